import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Dialect } from '../../rules/dialect';
import type { OffsetClock } from './clock';
import { ApiError, ErrorCode } from './errors';
import { sha256Hex } from './ids';
import { Collection, type Store } from './store';
import { pathId } from './validation';

/**
 * Accounts, zones and credentials: what every service checks before it touches its own records.
 * Spec 5 and the contract's "Authentication": a bearer token (optionally scoped to zones and
 * accounts) or an e-mail + key pair; page security accepts tokens only.
 */

export interface Account {
  id: string;
  name: string;
  created_on: string;
}

export interface Zone {
  id: string;
  name: string;
  account_id: string;
  created_on: string;
}

/**
 * A token known to the emulator. Only its SHA-256 is kept, so the data directory holds no
 * credential. A token that lists neither zones nor accounts reaches everything; one that lists
 * either is limited to what it lists (a listed account brings that account's zones).
 */
export interface TokenRecord {
  hash: string;
  zones?: string[];
  accounts?: string[];
}

export const accounts = new Collection<Account>('accounts');
export const zones = new Collection<Zone>('zones');
export const tokens = new Collection<TokenRecord>('tokens');

/** Credentials given on the command line (they are configuration, not state). */
export interface CredentialConfig {
  /** Tokens with access to everything. */
  tokens: readonly string[];
  email?: string;
  key?: string;
}

/** What every service plugin is given. */
export interface EmulatorContext {
  store: Store;
  clock: OffsetClock;
  /**
   * The spec's `<vendor>` token in wire field names (contract: default `edgeguard`; in the
   * `vendor` dialect, the vendor's own name).
   */
  vendor: string;
  /** Which dialect of the API is served (contract, "Two dialects"): `spec` or `vendor`. */
  dialect: Dialect;
  credentials: CredentialConfig;
}

/** Who is calling. */
export type Principal = { kind: 'token'; zones?: readonly string[]; accounts?: readonly string[] } | { kind: 'key' };

function unauthorized(message: string): ApiError {
  return new ApiError(401, [{ code: ErrorCode.authentication, message }]);
}

function forbidden(message: string): ApiError {
  return new ApiError(403, [{ code: ErrorCode.forbidden, message }]);
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(sha256Hex(given));
  const b = Buffer.from(sha256Hex(expected));
  return timingSafeEqual(a, b);
}

/** Spec 5: who the request's credentials belong to, or a 401 that never echoes them. */
export function authenticate(ctx: EmulatorContext, request: FastifyRequest): Principal {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw unauthorized('Authorization: expected "Bearer <API token>"');
    const token = match[1];
    if (ctx.credentials.tokens.some((known) => sameSecret(token, known))) return { kind: 'token' };
    const record = ctx.store.get(tokens, sha256Hex(token));
    if (record) {
      const principal: Principal = { kind: 'token' };
      if (record.zones) principal.zones = record.zones;
      if (record.accounts) principal.accounts = record.accounts;
      return principal;
    }
    throw unauthorized('Authorization: the API token is not valid');
  }
  const email = request.headers['x-auth-email'];
  const key = request.headers['x-auth-key'];
  if (email !== undefined || key !== undefined) {
    if (typeof email !== 'string' || typeof key !== 'string') {
      throw unauthorized('X-Auth-Email and X-Auth-Key must be sent together');
    }
    const { email: knownEmail, key: knownKey } = ctx.credentials;
    if (
      knownEmail !== undefined &&
      knownKey !== undefined &&
      email.toLowerCase() === knownEmail.toLowerCase() &&
      sameSecret(key, knownKey)
    ) {
      return { kind: 'key' };
    }
    throw unauthorized('X-Auth-Email/X-Auth-Key: the e-mail and API key do not match');
  }
  throw unauthorized('no credentials: send "Authorization: Bearer <API token>" or X-Auth-Email and X-Auth-Key');
}

/**
 * The key the API rate limit counts a request under (contract, "API rate limit"): its token, or
 * the e-mail of its e-mail + key pair, hashed so the limiter keeps no credential; `undefined` when
 * the credentials are refused, since a 401 counts for no one.
 */
export function rateLimitKey(ctx: EmulatorContext, request: FastifyRequest): string | undefined {
  try {
    authenticate(ctx, request);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return undefined;
    throw error;
  }
  const token = /^Bearer\s+(\S+)/i.exec(request.headers.authorization ?? '')?.[1];
  if (token !== undefined) return `token:${sha256Hex(token)}`;
  return `email:${sha256Hex(String(request.headers['x-auth-email']).toLowerCase())}`;
}

function scoped(
  principal: Principal,
): principal is { kind: 'token'; zones?: readonly string[]; accounts?: readonly string[] } {
  return principal.kind === 'token' && (principal.zones !== undefined || principal.accounts !== undefined);
}

/** Options of {@link requireZone}. */
export interface ZoneAccess {
  /** Spec 5.3: page security operations require an API token; e-mail + key gets 403. */
  tokenOnly?: boolean;
}

/**
 * Authenticates the request and resolves the zone of its path: 401, then 403 for the wrong kind
 * of credential, 400 for a malformed id, 403 outside a token's scope, 404 for an unknown zone.
 */
export function requireZone(
  ctx: EmulatorContext,
  request: FastifyRequest,
  rawZoneId: unknown,
  access: ZoneAccess = {},
): Zone {
  const principal = authenticate(ctx, request);
  if (access.tokenOnly && principal.kind !== 'token') {
    throw forbidden('page security operations require an API token; X-Auth-Email/X-Auth-Key is not accepted here');
  }
  const zoneId = pathId(rawZoneId, 'zone_id');
  const zone = ctx.store.get(zones, zoneId);
  if (scoped(principal)) {
    const inScope =
      principal.zones?.includes(zoneId) || (zone !== undefined && principal.accounts?.includes(zone.account_id));
    if (!inScope) throw forbidden(`the API token has no access to zone ${zoneId}`);
  }
  if (!zone) throw new ApiError(404, [{ code: ErrorCode.invalidZoneOrAccount, message: `zone ${zoneId} not found` }]);
  return zone;
}

/** As {@link requireZone}, for the account of the path. */
export function requireAccount(ctx: EmulatorContext, request: FastifyRequest, rawAccountId: unknown): Account {
  const principal = authenticate(ctx, request);
  const accountId = pathId(rawAccountId, 'account_id');
  if (scoped(principal) && !principal.accounts?.includes(accountId)) {
    throw forbidden(`the API token has no access to account ${accountId}`);
  }
  const account = ctx.store.get(accounts, accountId);
  if (!account)
    throw new ApiError(404, [{ code: ErrorCode.invalidZoneOrAccount, message: `account ${accountId} not found` }]);
  return account;
}
