import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { listPageSize, PAGE_SECURITY_SEGMENT } from '../../rules/dialect';
import { dialectOf } from '../settings';
import { EdgeGuardError } from './errors';
import { deletedSchema, type HttpClient, type PageOptions } from './http';
import { reported, type Known } from './reading';

export { reported, type Known } from './reading';

/**
 * The page security API (spec 2.2 to 2.6 and 4; contract "Page security"): the zone's settings,
 * the scripts, connections and cookies it detected, and its CSP policies. Records keep the API's
 * field names, as the vendor's SDK does, except the one field whose name holds the vendor token
 * (spec 2.2), which is given a vendor-neutral name so that callers never build it.
 */

/** A path of page security: `zones/{zone_id}/<segment>`, the segment the dialect's (`page_security`, `page_shield`). */
function zonePath(http: HttpClient, zoneId: string, rest = ''): string {
  return `zones/${encodeURIComponent(zoneId)}/${PAGE_SECURITY_SEGMENT[dialectOf(http.settings)]}${rest}`;
}

/** The page size a list of page security asks for: `perPage`, within the vendor's bounds in `vendor`. */
function perPageOf(http: HttpClient, perPage: number): number {
  return listPageSize(dialectOf(http.settings), 'pageSecurity', perPage);
}

// ---- Settings (spec 2.2) ----

/** Spec 2.2 as the GET returns it, with the vendor's reporting flag under a neutral name. */
export interface PageSecuritySettings {
  /** Whether page security is on. */
  enabled: boolean;
  updated_at: string;
  /** Wire field `use_<vendor>_reporting_endpoint`. */
  use_vendor_reporting_endpoint: boolean;
  use_connection_url_path: boolean;
}

/** Body of the settings PUT (spec 4). */
export interface PageSecuritySettingsUpdateParams {
  enabled: boolean;
}

/** Spec 4: the PUT answers with `enabled` and `updated_at` only. */
export const settingsUpdateResultSchema = z.object({ enabled: z.boolean(), updated_at: z.string() });

/**
 * Schema of the settings GET for `vendor` (the client's `vendor` setting): the flag's wire name is
 * `use_<vendor>_reporting_endpoint`, so it is only known at run time.
 */
export function pageSecuritySettingsSchema(vendor: string) {
  const flag = `use_${vendor}_reporting_endpoint`;
  return z
    .looseObject({ enabled: z.boolean(), updated_at: z.string(), use_connection_url_path: z.boolean() })
    .transform((record, ctx): PageSecuritySettings => {
      const reporting = record[flag];
      if (typeof reporting !== 'boolean') {
        ctx.addIssue({
          code: 'custom',
          path: [flag],
          message: `must be a boolean (is the vendor setting "${vendor}" the service's?)`,
        });
        return z.NEVER;
      }
      return {
        enabled: record.enabled,
        updated_at: record.updated_at,
        use_vendor_reporting_endpoint: reporting,
        use_connection_url_path: record.use_connection_url_path,
      };
    });
}

/** GET `zones/{zone_id}/page_security`. */
export async function getSettings(http: HttpClient, zoneId: string): Promise<PageSecuritySettings> {
  const answer = await http.send({
    operation: 'get page security settings',
    method: 'GET',
    path: zonePath(http, zoneId),
    result: pageSecuritySettingsSchema(http.settings.vendor),
  });
  return answer.result;
}

/** PUT `zones/{zone_id}/page_security`; the answer holds only `enabled` and `updated_at` (spec 4). */
export async function updateSettings(
  http: HttpClient,
  zoneId: string,
  params: PageSecuritySettingsUpdateParams,
): Promise<z.output<typeof settingsUpdateResultSchema>> {
  const answer = await http.send({
    operation: 'update page security settings',
    method: 'PUT',
    path: zonePath(http, zoneId),
    body: { enabled: params.enabled },
    result: settingsUpdateResultSchema,
  });
  return answer.result;
}

// ---- Detected scripts, connections and cookies (spec 2.3 to 2.5) ----

/** Spec 2.3: the six scores of a script's version. */
export const SCORE_FIELDS = [
  'js_integrity_score',
  'obfuscation_score',
  'dataflow_score',
  'malware_score',
  'cryptomining_score',
  'magecart_score',
] as const;

/** Spec 2.3: the six scores of a script's version, each absent on plans without it, as EdgeGuard writes them. */
export const scoresShape = Object.fromEntries(
  SCORE_FIELDS.map((field) => [field, z.number().int().optional()]),
) as Record<(typeof SCORE_FIELDS)[number], z.ZodOptional<z.ZodNumber>>;

/** Spec 2.3 as read: the scores, each absent or null on plans without it (vendor: `number | null`). */
const readScoresShape = Object.fromEntries(SCORE_FIELDS.map((field) => [field, reported(z.number())])) as Record<
  (typeof SCORE_FIELDS)[number],
  ReturnType<typeof reported<z.ZodNumber>>
>;

/** Spec 2.3 says some fields depend on the plan: the content hash, the scores and their time (vendor: nullable). */
const planDependentShape = {
  hash: reported(z.string()),
  ...readScoresShape,
  fetched_at: reported(z.string()),
};

/** A list of strings the vendor may leave out: absent reads as empty. */
const stringList = z.array(z.string()).optional().default([]);

/**
 * Spec 2.3 and 2.4: what scripts and connections share. The vendor's schema requires `id`, `url`,
 * the times, `host` and `url_contains_cdn_cgi_path`; the rest may be absent.
 */
const detectedUrlShape = {
  id: z.string(),
  url: z.string(),
  added_at: z.string(),
  first_seen_at: z.string(),
  last_seen_at: z.string(),
  host: z.string(),
  /** Absent reads as not reported (`false`). */
  domain_reported_malicious: z.boolean().optional().default(false),
  /** Absent reads as not reported (`false`). */
  url_reported_malicious: z.boolean().optional().default(false),
  /** The vendor may leave it out. */
  first_page_url: reported(z.string()),
  /** Spec 3: `active` or `infrequent`; other statuses are not shown, so any string is kept. The vendor does not declare it. */
  status: reported(z.string()),
  url_contains_cdn_cgi_path: z.boolean(),
};

/** Spec 2.3: a script as lists return it. */
export const scriptSchema = z.object({
  ...detectedUrlShape,
  /** Spec 2.3: "present in some responses". */
  malicious_url_categories: z.array(z.string()).optional(),
  /** The pages it was seen on: the single script's (spec 2.3), which the vendor's lists may give too. */
  page_urls: reported(z.array(z.string())),
  ...planDependentShape,
});
/** A detected script (spec 2.3). Scores are absent on plans without them. */
export type Script = z.output<typeof scriptSchema>;

/** Spec 2.3: one version of a script's content, with its scores. */
export const scriptVersionSchema = z.object(planDependentShape);
/** One version of a script (spec 2.3 `versions[]`). */
export type ScriptVersion = z.output<typeof scriptVersionSchema>;

/**
 * Spec 2.3: the single-script response, which adds `page_urls` and `versions`. The vendor may leave
 * `page_urls` out and answer `versions` null: both read as empty.
 */
export const scriptDetailSchema = scriptSchema.extend({
  page_urls: stringList,
  versions: z.preprocess((value) => value ?? [], z.array(scriptVersionSchema)),
});
/** A script with the pages it was seen on and its versions (spec 2.3). */
export type ScriptDetail = z.output<typeof scriptDetailSchema>;

/** Spec 2.4. */
export const connectionSchema = z.object({
  ...detectedUrlShape,
  malicious_domain_categories: stringList,
  malicious_url_categories: stringList,
});
/** A detected outgoing connection (spec 2.4). */
export type Connection = z.output<typeof connectionSchema>;

/** The fields of a listed script or connection that judging it needs, beside those of its kind. */
const JUDGED_FIELDS = {
  id: true,
  url: true,
  host: true,
  status: true,
  first_page_url: true,
  last_seen_at: true,
} as const;

/**
 * A listed script with the fields a judgement of every detected script needs (the review's):
 * parsed as {@link scriptSchema} parses them, the other fields left out unparsed. Parsing every
 * field of 100,000 listed items took about a fifth of the review's time (bench/RESULTS.md, issue 20).
 */
export const judgedScriptSchema = scriptSchema.pick({ ...JUDGED_FIELDS, js_integrity_score: true });
export type JudgedScript = z.output<typeof judgedScriptSchema>;

/** A listed connection with the fields a judgement needs, as {@link judgedScriptSchema}. */
export const judgedConnectionSchema = connectionSchema.pick({
  ...JUDGED_FIELDS,
  domain_reported_malicious: true,
  url_reported_malicious: true,
  malicious_domain_categories: true,
  malicious_url_categories: true,
});
export type JudgedConnection = z.output<typeof judgedConnectionSchema>;

/**
 * Spec 2.5, plus the `status` spec 3 gives cookies (absent from table 2.5, hence optional). The
 * vendor requires `id`, `type`, `name`, `host` and the times; the attributes may be absent, and it
 * declares no `first_page_url` nor `status`.
 */
export const cookieSchema = z.object({
  id: z.string(),
  /** `first_party` or `unknown` at the vendor; any other value is kept. */
  type: z.string(),
  name: z.string(),
  host: z.string(),
  domain_attribute: reported(z.string()),
  expires_attribute: reported(z.string()),
  http_only_attribute: reported(z.boolean()),
  /** Null or absent when the cookie has none. */
  max_age_attribute: z
    .number()
    .nullish()
    .transform((value) => value ?? null),
  path_attribute: reported(z.string()),
  /** `lax`, `strict` or `none` at the vendor; any other value is kept. */
  same_site_attribute: reported(z.string()),
  secure_attribute: reported(z.boolean()),
  first_seen_at: z.string(),
  last_seen_at: z.string(),
  first_page_url: reported(z.string()),
  page_urls: stringList,
  status: reported(z.string()),
});
/** A detected cookie (spec 2.5). */
export type Cookie = z.output<typeof cookieSchema>;

export { DETECTED_STATUSES } from './detected-statuses';

/** Query of the detected lists (spec 4). */
export interface DetectedListParams {
  /** Spec 3: `active` (what the service returns when omitted) or `infrequent`. */
  status?: string;
  /** Hostnames to keep; sent as the comma-separated `hosts` parameter. */
  hosts?: string | readonly string[];
}

/**
 * Query of the script and connection lists (contract, "Page security"): the vendor's filters,
 * each narrowing the list before paging. Lists are sent comma-separated.
 */
export interface FilteredListParams extends DetectedListParams {
  /**
   * Page URL patterns: an item is kept when one of the pages it was seen on (a connection: its
   * first page), read without scheme, query and fragment, matches one whole, `*` standing for any
   * run of characters, case-insensitively: `shop.example.com/pay`, `shop.example.com/pay/*`.
   * Hostnames in `hosts` may be such patterns too.
   */
  pageUrl?: string | readonly string[];
  /** Keeps the items whose URL contains one of these (case-insensitive). */
  urls?: string | readonly string[];
  /** Leaves out the items whose URL contains one of these (case-insensitive). */
  excludeUrls?: string | readonly string[];
  /**
   * Whether to leave out the items whose URL is under `/cdn-cgi/` (`url_contains_cdn_cgi_path`).
   * Default `true`, the service's: a caller that must see every item on a page says `false`.
   */
  excludeCdnCgi?: boolean;
  /** Orders by this field instead of the list's usual order (`first_seen_at`, then id). */
  orderBy?: 'first_seen_at' | 'last_seen_at';
  /** The direction of `orderBy`: `asc` (the default) or `desc`. */
  direction?: 'asc' | 'desc';
  /** Lists the malicious items first (a `js_integrity_score` below 10, or the URL or domain reported malicious). Default `false`. */
  prioritizeMalicious?: boolean;
}
/** Query of the script list. */
export type ScriptListParams = FilteredListParams;
/** Query of the connection list. */
export type ConnectionListParams = FilteredListParams;
/** Query of the cookie list. */
export type CookieListParams = DetectedListParams;

/** A list parameter as sent: comma-separated, or left out when empty. */
function commaSeparated(value: string | readonly string[] | undefined): string | undefined {
  const text = typeof value === 'string' ? value : value?.join(',');
  return text === '' ? undefined : text;
}

/**
 * In `vendor`, a pattern of `page_url` or `hosts` takes `*` only at its start or its end (the
 * vendor's words: "wildcards are supported at the start and end"): one elsewhere is refused here,
 * saying which, rather than sent for the service to read as it will.
 */
function patternsOf(http: HttpClient, parameter: string, value: string | readonly string[] | undefined) {
  const text = commaSeparated(value);
  if (text === undefined || dialectOf(http.settings) === 'spec') return text;
  for (const pattern of text.split(',')) {
    if (pattern.slice(1, -1).includes('*'))
      throw new EdgeGuardError(
        `${parameter} pattern ${JSON.stringify(pattern)} has a * inside it; the vendor's API takes * only at the start or the end of a pattern`,
      );
  }
  return text;
}

function detectedQuery(http: HttpClient, params: FilteredListParams): Record<string, string | undefined> {
  const flag = (value: boolean | undefined) => (value === undefined ? undefined : String(value));
  return {
    status: params.status,
    hosts: patternsOf(http, 'hosts', params.hosts),
    page_url: patternsOf(http, 'page_url', params.pageUrl),
    urls: commaSeparated(params.urls),
    exclude_urls: commaSeparated(params.excludeUrls),
    exclude_cdn_cgi: flag(params.excludeCdnCgi),
    order_by: params.orderBy,
    direction: params.direction,
    prioritize_malicious: flag(params.prioritizeMalicious),
  };
}

const scriptList = <S extends z.ZodType>(http: HttpClient, zoneId: string, params: ScriptListParams, item: S) => ({
  operation: 'list page security scripts',
  path: zonePath(http, zoneId, '/scripts'),
  query: detectedQuery(http, params),
  result: z.array(item),
});

/**
 * Every script of the zone matching `params`, `perPage` per request; with `prefetch`, each next
 * page is asked for while the current one is consumed (`HttpClient.paginate`).
 */
export async function* listScripts(
  http: HttpClient,
  zoneId: string,
  params: ScriptListParams,
  perPage: number,
  options: { prefetch?: boolean } = {},
): AsyncGenerator<Script> {
  // A generator, so that a request refused before it is sent fails where the list is read.
  yield* http.paginate(scriptList(http, zoneId, params, scriptSchema), perPageOf(http, perPage), options);
}

/** The pages of {@link listScripts}, each as an array (`HttpClient.pages`), with a judgement's fields ({@link judgedScriptSchema}). */
export async function* judgedScriptPages(
  http: HttpClient,
  zoneId: string,
  params: ScriptListParams,
  perPage: number,
  options: PageOptions = {},
): AsyncGenerator<JudgedScript[]> {
  yield* http.pages(scriptList(http, zoneId, params, judgedScriptSchema), perPageOf(http, perPage), options);
}

/** GET one script, with `page_urls` and `versions`. */
export async function getScript(http: HttpClient, zoneId: string, scriptId: string): Promise<ScriptDetail> {
  const answer = await http.send({
    operation: 'get page security script',
    method: 'GET',
    path: zonePath(http, zoneId, `/scripts/${encodeURIComponent(scriptId)}`),
    result: scriptDetailSchema,
  });
  return answer.result;
}

const connectionList = <S extends z.ZodType>(
  http: HttpClient,
  zoneId: string,
  params: ConnectionListParams,
  item: S,
) => ({
  operation: 'list page security connections',
  path: zonePath(http, zoneId, '/connections'),
  query: detectedQuery(http, params),
  result: z.array(item),
});

/** Every connection of the zone matching `params`, `perPage` per request; `prefetch` as for {@link listScripts}. */
export async function* listConnections(
  http: HttpClient,
  zoneId: string,
  params: ConnectionListParams,
  perPage: number,
  options: { prefetch?: boolean } = {},
): AsyncGenerator<Connection> {
  yield* http.paginate(connectionList(http, zoneId, params, connectionSchema), perPageOf(http, perPage), options);
}

/** The pages of {@link listConnections}, each as an array (`HttpClient.pages`), with a judgement's fields ({@link judgedConnectionSchema}). */
export async function* judgedConnectionPages(
  http: HttpClient,
  zoneId: string,
  params: ConnectionListParams,
  perPage: number,
  options: PageOptions = {},
): AsyncGenerator<JudgedConnection[]> {
  yield* http.pages(connectionList(http, zoneId, params, judgedConnectionSchema), perPageOf(http, perPage), options);
}

/** GET one connection. */
export async function getConnection(http: HttpClient, zoneId: string, connectionId: string): Promise<Connection> {
  const answer = await http.send({
    operation: 'get page security connection',
    method: 'GET',
    path: zonePath(http, zoneId, `/connections/${encodeURIComponent(connectionId)}`),
    result: connectionSchema,
  });
  return answer.result;
}

/**
 * The cookie list's query: only the parameters the list declares. `status` (spec 4) is sent in the
 * spec dialect; the vendor's cookie list has none (its cookies have no status), so there `active`
 * (what the spec returns by default) is left out and another status refused, saying so.
 */
function cookieQuery(http: HttpClient, params: CookieListParams): Record<string, string | undefined> {
  const hosts = patternsOf(http, 'hosts', params.hosts);
  if (dialectOf(http.settings) === 'spec') return { status: params.status, hosts };
  if (params.status !== undefined && params.status !== 'active')
    throw new EdgeGuardError(
      `the vendor's cookie list has no status filter, so the ${JSON.stringify(params.status)} cookies cannot be listed apart: list them without status`,
    );
  return { hosts };
}

/** Every cookie of the zone matching `params`, `perPage` per request. */
export async function* listCookies(
  http: HttpClient,
  zoneId: string,
  params: CookieListParams,
  perPage: number,
): AsyncGenerator<Cookie> {
  yield* http.paginate(
    {
      operation: 'list page security cookies',
      path: zonePath(http, zoneId, '/cookies'),
      query: cookieQuery(http, params),
      result: z.array(cookieSchema),
    },
    perPageOf(http, perPage),
  );
}

/** GET one cookie. */
export async function getCookie(http: HttpClient, zoneId: string, cookieId: string): Promise<Cookie> {
  const answer = await http.send({
    operation: 'get page security cookie',
    method: 'GET',
    path: zonePath(http, zoneId, `/cookies/${encodeURIComponent(cookieId)}`),
    result: cookieSchema,
  });
  return answer.result;
}

// ---- CSP policies (spec 2.6) ----

/** Spec 2.6 actions: `log` reports what the value does not allow, `allow` blocks it. */
export const POLICY_ACTIONS = ['log', 'allow'] as const;
/** An action EdgeGuard knows how to judge. */
export type PolicyAction = (typeof POLICY_ACTIONS)[number];

/** Whether `action` is one EdgeGuard judges (spec 2.6), not one the vendor added since (`add_reporting_directives`). */
export function isKnownAction(action: string): action is PolicyAction {
  return (POLICY_ACTIONS as readonly string[]).includes(action);
}

/** The fields of a policy that its create and update send (spec 2.6). */
type PolicyBody = {
  description: string;
  action: PolicyAction;
  expression: string;
  /** The spec's string form; the vendor dialect sends it as a JSON boolean. */
  enabled: 'true' | 'false';
  value: string;
};
/**
 * Spec 2.6 as returned. `enabled` travels as the string `"true"` or `"false"` in the spec and as a
 * JSON boolean at the vendor: both read as the string form. `action` is kept as it came, a value
 * EdgeGuard does not know included ({@link isKnownAction}). Fields beyond these are kept, so that a
 * field the `CspPolicy` runtime describes reaches it without a change here.
 */
export const pageSecurityPolicySchema = z.looseObject({
  id: z.string(),
  description: z.string(),
  action: z.string().transform((action): Known<PolicyAction> => action),
  expression: z.string(),
  enabled: z
    .union([z.boolean(), z.enum(['true', 'false'])])
    .transform((enabled) => String(enabled) as 'true' | 'false'),
  value: z.string(),
});
/** A CSP policy (spec 2.6). */
export type PageSecurityPolicy = z.output<typeof pageSecurityPolicySchema>;

/** Body of the policy create (spec 4), which the update takes whole (contract). */
export type PageSecurityPolicyCreateParams = PolicyBody;
/** Body of the policy update: the full create body (contract). */
export type PageSecurityPolicyUpdateParams = PageSecurityPolicyCreateParams;

/**
 * The body of a policy's create or update, in the dialect's shape: `enabled` as the string `"true"`
 * or `"false"` in the spec (2.6), as a JSON boolean at the vendor.
 */
function policyBody(http: HttpClient, params: PageSecurityPolicyCreateParams): Record<string, unknown> {
  return {
    description: params.description,
    action: params.action,
    expression: params.expression,
    enabled: dialectOf(http.settings) === 'vendor' ? params.enabled === 'true' : params.enabled,
    value: params.value,
  };
}

/** GET the zone's policies; the list is answered whole (contract: one page). */
export async function listPolicies(http: HttpClient, zoneId: string): Promise<PageSecurityPolicy[]> {
  const answer = await http.send({
    operation: 'list CSP policies',
    method: 'GET',
    path: zonePath(http, zoneId, '/policies'),
    result: z.array(pageSecurityPolicySchema),
  });
  return answer.result;
}

/** GET one policy. */
export async function getPolicy(http: HttpClient, zoneId: string, policyId: string): Promise<PageSecurityPolicy> {
  const answer = await http.send({
    operation: 'get CSP policy',
    method: 'GET',
    path: zonePath(http, zoneId, `/policies/${encodeURIComponent(policyId)}`),
    result: pageSecurityPolicySchema,
  });
  return answer.result;
}

/**
 * POST a policy. After an ambiguous failure (the service may have created it without our
 * hearing), the first policy of the zone equal in every field is taken as ours rather than
 * creating a second one.
 */
export async function createPolicy(
  http: HttpClient,
  zoneId: string,
  params: PageSecurityPolicyCreateParams,
): Promise<PageSecurityPolicy> {
  const answer = await http.send({
    operation: 'create CSP policy',
    method: 'POST',
    path: zonePath(http, zoneId, '/policies'),
    // The spec dialect sends what it is given, as always; the vendor's only the fields it declares.
    body: dialectOf(http.settings) === 'spec' ? params : policyBody(http, params),
    result: pageSecurityPolicySchema,
    recover: async () =>
      (await listPolicies(http, zoneId)).find((policy) =>
        Object.entries(params).every(([field, value]) => isDeepStrictEqual(policy[field], value)),
      ),
  });
  return answer.result;
}

/** PUT a policy with the full body (contract); the answer is the updated policy. */
export async function updatePolicy(
  http: HttpClient,
  zoneId: string,
  policyId: string,
  params: PageSecurityPolicyUpdateParams,
): Promise<PageSecurityPolicy> {
  const answer = await http.send({
    operation: 'update CSP policy',
    method: 'PUT',
    path: zonePath(http, zoneId, `/policies/${encodeURIComponent(policyId)}`),
    body: policyBody(http, params),
    result: pageSecurityPolicySchema,
  });
  return answer.result;
}

/** DELETE a policy; the answer is `{id}` (contract), or HTTP 204 with no body (the vendor's). */
export async function deletePolicy(http: HttpClient, zoneId: string, policyId: string): Promise<void> {
  await http.send({
    operation: 'delete CSP policy',
    method: 'DELETE',
    path: zonePath(http, zoneId, `/policies/${encodeURIComponent(policyId)}`),
    result: deletedSchema,
    acknowledgement: true,
  });
}
