import { z } from 'zod';
import { listPageSize } from '../../rules/dialect';
import { dialectOf } from '../settings';
import { deletedSchema, type HttpClient, type PollOptions } from './http';
import { reported, type Known } from './reading';

/**
 * The custom hostnames API of a zone (spec 2.9, 3, 4, 7, 8; contract "Custom hostnames (zone
 * level)"). Records keep the API's field names, as the vendor's SDK does, except
 * `<vendor>_branding`, whose name holds the vendor token: it is given the neutral name `branding`
 * so that callers never build it.
 */

/** Contract: the statuses of spec 3 in lowercase, plus `pending` (ownership not validated yet). */
export const CUSTOM_HOSTNAME_STATUSES = ['pending', 'active', 'moved', 'blocked', 'caa_error'] as const;
/** A custom hostname's `status`. */
export type CustomHostnameStatus = (typeof CUSTOM_HOSTNAME_STATUSES)[number];

/** Contract: how ownership of the hostname is proven for the certificate. */
export const SSL_METHODS = ['txt', 'http'] as const;
/** Spec 2.9: the certificate type. */
export const SSL_TYPES = ['dv'] as const;
/** Contract: the two certificate authorities (`google` is the more compatible one, spec 2.9). */
export const CERTIFICATE_AUTHORITIES = ['google', 'lets_encrypt'] as const;
/** A certificate authority the service issues from. */
export type CertificateAuthority = (typeof CERTIFICATE_AUTHORITIES)[number];
/** What a client may ask for: `""` lets the service choose (spec 2.9). */
export type RequestedCertificateAuthority = '' | CertificateAuthority;

/** The `ssl` settings of a create or an edit (spec 2.9). */
export interface CustomHostnameSsl {
  method: (typeof SSL_METHODS)[number];
  type: (typeof SSL_TYPES)[number];
  /** `""` (the default) lets the service choose; a name fixes that CA. */
  certificate_authority: RequestedCertificateAuthority;
}

/** Contract: the certificate statuses the emulator gives (the vendor has 21, any of which is kept). */
export const SSL_STATUSES = ['pending_validation', 'active', 'caa_error'] as const;

/**
 * A custom hostname as the API returns it (contract "Record"), read as the vendor's schema allows:
 * only `id` and `hostname` are required there, and its statuses are many more than the contract's
 * (16 for the hostname, 21 for the certificate). What is absent stays absent; a value EdgeGuard does
 * not know is kept as it came ({@link Known}).
 */
export interface CustomHostname {
  id: string;
  /** Lowercase; may start with `*.`. */
  hostname: string;
  /** Absent when the service leaves it out. */
  status?: Known<CustomHostnameStatus>;
  /** Why validation has not succeeded, such as the hostname not pointing at the zone; empty when none is reported. */
  verification_errors: string[];
  ssl: {
    method?: Known<CustomHostnameSsl['method']>;
    type?: Known<CustomHostnameSsl['type']>;
    /** The CA in use: for a requested `""`, the one the service chose (never `""`). */
    certificate_authority?: Known<CertificateAuthority>;
    status?: Known<(typeof SSL_STATUSES)[number]>;
  };
  /**
   * Wire field `<vendor>_branding` (spec 2.9), or `ssl.<vendor>_branding`; absent when the answer
   * holds neither (the vendor's answers declare no branding).
   */
  branding?: boolean;
  /** The TXT record that proves ownership: publish `value` at `name`; absent when not reported. */
  ownership_verification?: { type?: string; name?: string; value?: string };
  created_at?: string;
}

/** Body of a create. */
export interface CustomHostnameCreateParams {
  hostname: string;
  ssl: CustomHostnameSsl;
  /** Sent as `<vendor>_branding`. Default `false`. */
  branding?: boolean;
}

/**
 * Body of an edit (spec 4): only `ssl` can change; an edit restarts validation. Without
 * `certificate_authority` the service keeps the one requested before (`""` stays the service's
 * choice), so an edit that only restarts validation changes no setting.
 */
export interface CustomHostnameEditParams {
  /** `method` and `type` may be left out only to keep what the service has (one EdgeGuard does not know). */
  ssl: Partial<CustomHostnameSsl>;
}

/** `value` when it is one of `known`, else `undefined`: a value read from the service, narrowed to one EdgeGuard can send back. */
export function knownValue<T extends string>(known: readonly T[], value: string | undefined): T | undefined {
  return (known as readonly (string | undefined)[]).includes(value) ? (value as T) : undefined;
}

/** Filters of the list. */
export interface CustomHostnameListParams {
  /** Exact match (the service lowercases it). */
  hostname?: string;
}

/** A string field of the record that may be absent or null, any value kept. */
const text = reported(z.string());

/**
 * Schema of a custom hostname for `vendor` (the client's `vendor` setting): the branding flag's
 * wire name is `<vendor>_branding`, so it is only known at run time. The flag is read at the top
 * level (the contract's) or under `ssl` (where the vendor's SDK sends it), and left absent when
 * neither holds it.
 */
export function customHostnameSchema(vendor: string) {
  const brandingField = `${vendor}_branding`;
  return z
    .looseObject({
      id: z.string(),
      hostname: z.string(),
      status: text,
      verification_errors: reported(z.array(z.string())),
      ssl: reported(z.looseObject({ method: text, type: text, certificate_authority: text, status: text })),
      ownership_verification: reported(z.object({ type: text, name: text, value: text })),
      created_at: text,
    })
    .transform((record, ctx): CustomHostname => {
      const ssl = record.ssl ?? {};
      const flag =
        (record as Record<string, unknown>)[brandingField] ?? (ssl as Record<string, unknown>)[brandingField];
      if (flag !== undefined && flag !== null && typeof flag !== 'boolean') {
        ctx.addIssue({
          code: 'custom',
          path: [brandingField],
          message: `must be a boolean (is the vendor setting "${vendor}" the service's?)`,
        });
        return z.NEVER;
      }
      return {
        id: record.id,
        hostname: record.hostname,
        ...(record.status !== undefined ? { status: record.status } : {}),
        verification_errors: record.verification_errors ?? [],
        ssl: {
          ...(ssl.method !== undefined ? { method: ssl.method } : {}),
          ...(ssl.type !== undefined ? { type: ssl.type } : {}),
          ...(ssl.certificate_authority !== undefined ? { certificate_authority: ssl.certificate_authority } : {}),
          ...(ssl.status !== undefined ? { status: ssl.status } : {}),
        },
        ...(typeof flag === 'boolean' ? { branding: flag } : {}),
        ...(record.ownership_verification !== undefined
          ? { ownership_verification: record.ownership_verification }
          : {}),
        ...(record.created_at !== undefined ? { created_at: record.created_at } : {}),
      };
    });
}

/**
 * The `ssl` of a create or an edit in the dialect's shape: in the spec, `certificate_authority: ""`
 * lets the service choose (2.9); the vendor's enum has no `""`, so there the field is left out,
 * which lets it choose. Fields left out of `ssl` stay out.
 */
function wireSsl(http: HttpClient, ssl: Partial<CustomHostnameSsl>): Record<string, string> {
  const { certificate_authority: ca } = ssl;
  const keepCa = ca !== undefined && (ca !== '' || dialectOf(http.settings) === 'spec');
  return {
    ...(ssl.method !== undefined ? { method: ssl.method } : {}),
    ...(ssl.type !== undefined ? { type: ssl.type } : {}),
    ...(keepCa ? { certificate_authority: ca } : {}),
  };
}

/**
 * The page size of the custom hostname list: `perPage` in the spec dialect, within the vendor's
 * bounds (5 to 50) in `vendor`.
 */
function hostnamePageSize(http: HttpClient, perPage: number): number {
  return listPageSize(dialectOf(http.settings), 'customHostnames', perPage);
}

function collectionPath(zoneId: string): string {
  return `zones/${encodeURIComponent(zoneId)}/custom_hostnames`;
}

function itemPath(zoneId: string, customHostnameId: string): string {
  return `${collectionPath(zoneId)}/${encodeURIComponent(customHostnameId)}`;
}

/**
 * POST a custom hostname. Creates are paced per zone (the client's `issuance` setting, default
 * spec 8's 15 per 60 s) so that this process never trips the issuance limit by itself; a 429
 * caused by other traffic is waited out by the HTTP layer (`Retry-After`). After an ambiguous failure, the zone's hostname of
 * the same name is taken as ours rather than creating a second one. A 409 (code 1406) on the
 * first attempt is someone else's hostname and is thrown as a `ConflictError`.
 */
export async function createCustomHostname(
  http: HttpClient,
  zoneId: string,
  params: CustomHostnameCreateParams,
): Promise<CustomHostname> {
  const branding = { [`${http.settings.vendor}_branding`]: params.branding ?? false };
  const ssl = wireSsl(http, params.ssl);
  // The contract's branding is a top-level field; the vendor reads it under `ssl` (SDK 7.1.0).
  const body =
    dialectOf(http.settings) === 'spec'
      ? { hostname: params.hostname, ssl, ...branding }
      : { hostname: params.hostname, ssl: { ...ssl, ...branding } };
  const answer = await http.send({
    operation: 'create custom hostname',
    method: 'POST',
    path: collectionPath(zoneId),
    body,
    result: customHostnameSchema(http.settings.vendor),
    recover: () => findCustomHostname(http, zoneId, params.hostname),
    pace: { key: zoneId, ...http.settings.issuance },
  });
  return answer.result;
}

/** GET one custom hostname; a `NotFoundError` once it is gone (deleted, or 7 days in `moved`). */
export async function getCustomHostname(
  http: HttpClient,
  zoneId: string,
  customHostnameId: string,
): Promise<CustomHostname> {
  const answer = await http.send({
    operation: 'get custom hostname',
    method: 'GET',
    path: itemPath(zoneId, customHostnameId),
    result: customHostnameSchema(http.settings.vendor),
  });
  return answer.result;
}

/** Every custom hostname of the zone (optionally of one hostname), page by page. */
export function listCustomHostnames(
  http: HttpClient,
  zoneId: string,
  params: CustomHostnameListParams = {},
  perPage = 50,
): AsyncGenerator<CustomHostname> {
  return http.paginate(
    {
      operation: 'list custom hostnames',
      path: collectionPath(zoneId),
      // The contract's exact match is `hostname`; the vendor's SDK lists it as `hostname.exact`.
      query: { [dialectOf(http.settings) === 'spec' ? 'hostname' : 'hostname.exact']: params.hostname },
      result: z.array(customHostnameSchema(http.settings.vendor)),
    },
    hostnamePageSize(http, perPage),
  );
}

/** The zone's custom hostname named `hostname` (compared lowercase, as the service stores it), if any. */
export async function findCustomHostname(
  http: HttpClient,
  zoneId: string,
  hostname: string,
): Promise<CustomHostname | undefined> {
  const wanted = hostname.toLowerCase();
  for await (const record of listCustomHostnames(http, zoneId, { hostname: wanted })) {
    if (record.hostname === wanted) return record;
  }
  return undefined;
}

/** PATCH the `ssl` settings (spec 4). The service restarts validation, which is how `moved` is left. */
export async function editCustomHostname(
  http: HttpClient,
  zoneId: string,
  customHostnameId: string,
  params: CustomHostnameEditParams,
): Promise<CustomHostname> {
  const answer = await http.send({
    operation: 'edit custom hostname',
    method: 'PATCH',
    path: itemPath(zoneId, customHostnameId),
    body: { ssl: wireSsl(http, params.ssl) },
    result: customHostnameSchema(http.settings.vendor),
  });
  return answer.result;
}

/**
 * DELETE a custom hostname; the answer is `{id}` in the envelope (contract), or bare (the vendor's).
 * A `NotFoundError` if it was gone.
 */
export async function deleteCustomHostname(http: HttpClient, zoneId: string, customHostnameId: string): Promise<void> {
  await http.send({
    operation: 'delete custom hostname',
    method: 'DELETE',
    path: itemPath(zoneId, customHostnameId),
    result: deletedSchema,
    acknowledgement: true,
  });
}

/** Options of {@link waitForStatus}: when to give up, how often to look, and what to show after each look. */
export interface WaitOptions extends PollOptions<CustomHostname> {
  /**
   * Stop as soon as the hostname has one of these statuses; `active` counts once its certificate
   * is active too (`ssl.status`), since the hostname serves nothing securely before.
   */
  statuses: readonly CustomHostnameStatus[];
}

/** Whether `record` has one of `statuses` (`active` with its certificate active). */
export function hasStatus(record: CustomHostname, statuses: readonly CustomHostnameStatus[]): boolean {
  return isStatus(record.status, statuses) && (record.status !== 'active' || record.ssl.status === 'active');
}

/** Whether `status` (as read: any string, or absent) is one of `statuses`. */
export function isStatus(status: string | undefined, statuses: readonly CustomHostnameStatus[]): boolean {
  return (statuses as readonly (string | undefined)[]).includes(status);
}

/** What {@link waitForStatus} saw last. */
export interface WaitOutcome {
  /** The hostname as last read. */
  record: CustomHostname;
  /** Whether its status is one of those waited for (`false`: the time ran out). */
  reached: boolean;
}

/**
 * Reads `current` again until its status is one of `statuses` or `timeoutMs` has passed.
 * Validation is the service's work (the owner publishes DNS), so this waits on it.
 */
export async function waitForStatus(
  http: HttpClient,
  zoneId: string,
  current: CustomHostname,
  options: WaitOptions,
): Promise<WaitOutcome> {
  const { value, reached } = await http.poll(
    current,
    () => getCustomHostname(http, zoneId, current.id),
    (record) => hasStatus(record, options.statuses),
    options,
  );
  return { record: value, reached };
}
