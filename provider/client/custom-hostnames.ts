import { z } from 'zod';
import type { HttpClient, PollOptions } from './http';

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

/** A custom hostname as the API returns it (contract "Record"). */
export interface CustomHostname {
  id: string;
  /** Lowercase; may start with `*.`. */
  hostname: string;
  status: CustomHostnameStatus;
  /** Why validation has not succeeded, such as the hostname not pointing at the zone. */
  verification_errors: string[];
  ssl: {
    method: CustomHostnameSsl['method'];
    type: CustomHostnameSsl['type'];
    /** The CA in use: for a requested `""`, the one the service chose (never `""`). */
    certificate_authority: CertificateAuthority;
    status: 'pending_validation' | 'active' | 'caa_error';
  };
  /** Wire field `<vendor>_branding` (spec 2.9). */
  branding: boolean;
  /** The TXT record that proves ownership: publish `value` at `name`. */
  ownership_verification: { type: 'txt'; name: string; value: string };
  created_at: string;
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
  ssl: Omit<CustomHostnameSsl, 'certificate_authority'> & Partial<Pick<CustomHostnameSsl, 'certificate_authority'>>;
}

/** Filters of the list. */
export interface CustomHostnameListParams {
  /** Exact match (the service lowercases it). */
  hostname?: string;
}

/**
 * Schema of a custom hostname for `vendor` (the client's `vendor` setting): the branding flag's
 * wire name is `<vendor>_branding`, so it is only known at run time.
 */
export function customHostnameSchema(vendor: string) {
  const brandingField = `${vendor}_branding`;
  return z
    .looseObject({
      id: z.string(),
      hostname: z.string(),
      status: z.enum(CUSTOM_HOSTNAME_STATUSES),
      verification_errors: z.array(z.string()),
      ssl: z.object({
        method: z.enum(SSL_METHODS),
        type: z.enum(SSL_TYPES),
        certificate_authority: z.enum(CERTIFICATE_AUTHORITIES),
        status: z.enum(['pending_validation', 'active', 'caa_error']),
      }),
      ownership_verification: z.object({ type: z.literal('txt'), name: z.string(), value: z.string() }),
      created_at: z.string(),
    })
    .transform((record, ctx): CustomHostname => {
      const branding = record[brandingField];
      if (typeof branding !== 'boolean') {
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
        status: record.status,
        verification_errors: record.verification_errors,
        ssl: record.ssl,
        branding,
        ownership_verification: record.ownership_verification,
        created_at: record.created_at,
      };
    });
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
  const body = {
    hostname: params.hostname,
    ssl: { method: params.ssl.method, type: params.ssl.type, certificate_authority: params.ssl.certificate_authority },
    [`${http.settings.vendor}_branding`]: params.branding ?? false,
  };
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
      query: { hostname: params.hostname },
      result: z.array(customHostnameSchema(http.settings.vendor)),
    },
    perPage,
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
    body: {
      ssl: {
        method: params.ssl.method,
        type: params.ssl.type,
        ...(params.ssl.certificate_authority !== undefined
          ? { certificate_authority: params.ssl.certificate_authority }
          : {}),
      },
    },
    result: customHostnameSchema(http.settings.vendor),
  });
  return answer.result;
}

/** DELETE a custom hostname; the answer is `{id}` (contract). A `NotFoundError` if it was gone. */
export async function deleteCustomHostname(http: HttpClient, zoneId: string, customHostnameId: string): Promise<void> {
  await http.send({
    operation: 'delete custom hostname',
    method: 'DELETE',
    path: itemPath(zoneId, customHostnameId),
    result: z.object({ id: z.string() }),
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
  return statuses.includes(record.status) && (record.status !== 'active' || record.ssl.status === 'active');
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
