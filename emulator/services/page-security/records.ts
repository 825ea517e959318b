import { Collection } from '../../core/store';

/**
 * The records page security owns (spec 2.2 to 2.6) and how each is shown on the wire. Records
 * carry their `zone_id`, which the API never shows: one collection holds every zone's objects.
 */

/** Spec 3: the statuses of detected scripts, connections and cookies. */
export const DETECTED_STATUSES = ['active', 'infrequent'] as const;

/** The vendor's statuses of a list's `status`: the spec's and `inactive`, which no object here has. */
export const VENDOR_DETECTED_STATUSES = [...DETECTED_STATUSES, 'inactive'] as const;

/** Spec 3: `active` (the default of lists) or `infrequent`. */
export type DetectedStatus = (typeof DETECTED_STATUSES)[number];

/**
 * Spec 2.2, as stored for a zone whose settings were written. The two reporting flags are kept
 * under vendor-neutral names so that a change of `--vendor` does not strand stored state.
 */
export interface SettingsRecord {
  zone_id: string;
  enabled: boolean;
  updated_at: string;
  use_reporting_endpoint: boolean;
  use_connection_url_path: boolean;
}

/** Spec 2.3: one version of a script's content, with its scores. */
export interface ScriptVersion {
  hash: string;
  js_integrity_score: number;
  obfuscation_score: number;
  dataflow_score: number;
  malware_score: number;
  cryptomining_score: number;
  magecart_score: number;
  fetched_at: string;
}

/** Spec 2.3 and 2.4: the fields scripts and connections share. */
interface DetectedUrlRecord {
  zone_id: string;
  id: string;
  url: string;
  added_at: string;
  first_seen_at: string;
  last_seen_at: string;
  host: string;
  domain_reported_malicious: boolean;
  url_reported_malicious: boolean;
  malicious_url_categories: string[];
  first_page_url: string;
  status: DetectedStatus;
  url_contains_cdn_cgi_path: boolean;
}

/** Spec 2.3: a detected script, with the fields only the single GET shows. */
export interface ScriptRecord extends DetectedUrlRecord, ScriptVersion {
  page_urls: string[];
  versions: ScriptVersion[];
}

/** Spec 2.4: a detected outgoing connection. */
export interface ConnectionRecord extends DetectedUrlRecord {
  malicious_domain_categories: string[];
}

/** Spec 2.5 plus the `status` spec 3 gives cookies. */
export interface CookieRecord {
  zone_id: string;
  id: string;
  type: string;
  name: string;
  host: string;
  domain_attribute: string;
  expires_attribute: string;
  http_only_attribute: boolean;
  max_age_attribute: number | null;
  path_attribute: string;
  same_site_attribute: string;
  secure_attribute: boolean;
  first_seen_at: string;
  last_seen_at: string;
  first_page_url: string;
  page_urls: string[];
  status: DetectedStatus;
}

/** Spec 2.6 actions. */
export const POLICY_ACTIONS = ['log', 'allow'] as const;

/** The vendor's actions (SDK 7.1.0 adds `add_reporting_directives`), accepted in its dialect. */
export const VENDOR_POLICY_ACTIONS = [...POLICY_ACTIONS, 'add_reporting_directives'] as const;

/** Spec 2.6: a CSP policy. `expression` and `value` are kept exactly as sent. */
export interface PolicyRecord {
  zone_id: string;
  id: string;
  description: string;
  action: (typeof VENDOR_POLICY_ACTIONS)[number];
  expression: string;
  /** Contract: always the string form on the wire. */
  enabled: 'true' | 'false';
  value: string;
}

/** Settings by zone id; a zone without one has the defaults of spec 2.2. */
export const settings = new Collection<SettingsRecord>('page_security_settings');
/** Detected scripts by script id. */
export const scripts = new Collection<ScriptRecord>('page_security_scripts');
/** Detected connections by connection id. */
export const connections = new Collection<ConnectionRecord>('page_security_connections');
/** Detected cookies by cookie id. */
export const cookies = new Collection<CookieRecord>('page_security_cookies');
/** CSP policies by policy id, in creation order (the store keeps insertion order durably). */
export const policies = new Collection<PolicyRecord>('page_security_policies');

/** A detected object of any kind: what lists sort and filter on. */
export type DetectedRecord = ScriptRecord | ConnectionRecord | CookieRecord;

/** Spec 2.2 on the wire; `vendor` names the reporting endpoint flag. */
export function settingsView(record: SettingsRecord, vendor: string): Record<string, boolean | string> {
  return {
    enabled: record.enabled,
    updated_at: record.updated_at,
    [`use_${vendor}_reporting_endpoint`]: record.use_reporting_endpoint,
    use_connection_url_path: record.use_connection_url_path,
  };
}

/** Spec 2.3: a script as lists show it, without `page_urls` and `versions`. */
export function scriptListView(record: ScriptRecord) {
  return {
    id: record.id,
    url: record.url,
    added_at: record.added_at,
    first_seen_at: record.first_seen_at,
    last_seen_at: record.last_seen_at,
    host: record.host,
    domain_reported_malicious: record.domain_reported_malicious,
    url_reported_malicious: record.url_reported_malicious,
    malicious_url_categories: [...record.malicious_url_categories],
    first_page_url: record.first_page_url,
    status: record.status,
    url_contains_cdn_cgi_path: record.url_contains_cdn_cgi_path,
    hash: record.hash,
    js_integrity_score: record.js_integrity_score,
    obfuscation_score: record.obfuscation_score,
    dataflow_score: record.dataflow_score,
    malware_score: record.malware_score,
    cryptomining_score: record.cryptomining_score,
    magecart_score: record.magecart_score,
    fetched_at: record.fetched_at,
  };
}

/** Spec 2.3: the single-script response, which adds `page_urls` and `versions`. */
export function scriptDetailView(record: ScriptRecord) {
  return {
    ...scriptListView(record),
    page_urls: [...record.page_urls],
    versions: record.versions.map((version) => ({
      hash: version.hash,
      js_integrity_score: version.js_integrity_score,
      obfuscation_score: version.obfuscation_score,
      dataflow_score: version.dataflow_score,
      malware_score: version.malware_score,
      cryptomining_score: version.cryptomining_score,
      magecart_score: version.magecart_score,
      fetched_at: version.fetched_at,
    })),
  };
}

/** Spec 2.4 on the wire. */
export function connectionView(record: ConnectionRecord) {
  return {
    id: record.id,
    url: record.url,
    added_at: record.added_at,
    first_seen_at: record.first_seen_at,
    last_seen_at: record.last_seen_at,
    host: record.host,
    domain_reported_malicious: record.domain_reported_malicious,
    malicious_domain_categories: [...record.malicious_domain_categories],
    url_reported_malicious: record.url_reported_malicious,
    malicious_url_categories: [...record.malicious_url_categories],
    first_page_url: record.first_page_url,
    status: record.status,
    url_contains_cdn_cgi_path: record.url_contains_cdn_cgi_path,
  };
}

/** Spec 2.5 (and `status`) on the wire. */
export function cookieView(record: CookieRecord) {
  return {
    id: record.id,
    type: record.type,
    name: record.name,
    host: record.host,
    domain_attribute: record.domain_attribute,
    expires_attribute: record.expires_attribute,
    http_only_attribute: record.http_only_attribute,
    max_age_attribute: record.max_age_attribute,
    path_attribute: record.path_attribute,
    same_site_attribute: record.same_site_attribute,
    secure_attribute: record.secure_attribute,
    first_seen_at: record.first_seen_at,
    last_seen_at: record.last_seen_at,
    first_page_url: record.first_page_url,
    page_urls: [...record.page_urls],
    status: record.status,
  };
}

/**
 * A script or connection in the vendor's dialect: without `status`, which its schema does not
 * declare on them (the lists still filter by it).
 */
export function vendorDetectedView<V extends { status: DetectedStatus }>(view: V): Omit<V, 'status'> {
  const { status: _status, ...rest } = view;
  return rest;
}

/**
 * A cookie in the vendor's dialect: without `status` and `first_page_url` (its schema declares
 * neither on cookies), without `max_age_attribute` when it has none (a number there, not nullable),
 * and a `third_party` cookie as `unknown` (the vendor's types are `first_party` and `unknown`).
 */
export function vendorCookieView(record: CookieRecord) {
  const { status: _status, first_page_url: _first, max_age_attribute: maxAge, ...rest } = cookieView(record);
  const view = { ...rest, type: record.type === 'first_party' ? 'first_party' : 'unknown' };
  return maxAge === null ? view : { ...view, max_age_attribute: maxAge };
}

/** Spec 2.6 on the wire. */
export function policyView(record: PolicyRecord) {
  return {
    id: record.id,
    description: record.description,
    action: record.action,
    expression: record.expression,
    enabled: record.enabled,
    value: record.value,
  };
}

/** A policy in the vendor's dialect: `enabled` as the JSON boolean its schema declares. */
export function vendorPolicyView(record: PolicyRecord) {
  return { ...policyView(record), enabled: record.enabled === 'true' };
}
