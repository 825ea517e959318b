import { z } from 'zod';
import { MALICIOUS_SCORE_THRESHOLD } from '../../../rules/malicious';
import { choice } from '../../../rules/zod';
import type { Refinement } from './detected-order';
import type { ConnectionRecord, ScriptRecord } from './records';

/**
 * The filters of the lists of detected scripts and connections (contract, "Page security"):
 * `page_url`, `urls`, `exclude_urls`, `hosts`, `exclude_cdn_cgi`, `order_by` with `direction`, and
 * `prioritize_malicious`, parsed from the query and turned into what the sorted lists apply
 * (`./detected-order.ts`): the hosts whose lists to read, a test of each item, and an order.
 */

/** A comma-separated list of the query, its items trimmed, the empty ones dropped. */
function commaList(what: string) {
  return z.string({ error: `must be one comma-separated list of ${what}` }).transform((text) =>
    text
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  );
}

const BOOLEANS = ['true', 'false'] as const;

/** The filters of the query, beside `page`, `per_page` and `status`. */
export const detectedFilterShape = {
  page_url: commaList('page URL patterns').optional(),
  urls: commaList('URL parts').optional(),
  exclude_urls: commaList('URL parts').optional(),
  hosts: commaList('host names or patterns').optional(),
  exclude_cdn_cgi: choice(BOOLEANS, 'whether to leave out the /cdn-cgi/ items').optional(),
  order_by: choice(['first_seen_at', 'last_seen_at'], 'the field to order by').optional(),
  direction: choice(['asc', 'desc'], 'the direction of order_by').optional(),
  prioritize_malicious: choice(BOOLEANS, 'whether to list the malicious items first').optional(),
};

/** The filters as the query gave them, parsed. */
export type DetectedFilterQuery = {
  [K in keyof typeof detectedFilterShape]?: z.output<(typeof detectedFilterShape)[K]>;
};

/** A script or a connection: the items these filters apply to. */
export type FilteredRecord = ScriptRecord | ConnectionRecord;

/** What a list applies to its items, beyond the status (`./detected-order.ts`). */
export interface ListRefinement<T> extends Refinement<T> {
  /** Lowercase host names whose lists hold every item kept, or `undefined` for the whole zone's. */
  hosts: ReadonlySet<string> | undefined;
}

/** A pattern where `*` stands for any run of characters, matched whole and case-insensitively. */
function wildcard(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 'is');
}

/** A page URL as `page_url` reads it: without its scheme, query and fragment. */
export function pageUrlAsMatched(url: string): string {
  const rest = url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, '');
  const end = rest.search(/[?#]/);
  return end === -1 ? rest : rest.slice(0, end);
}

/** The pages an item was seen on, as `page_url` reads them: a script's every page, a connection's first. */
function pagesOf(record: FilteredRecord): readonly string[] {
  return 'page_urls' in record ? record.page_urls : [record.first_page_url];
}

/** Contract: malicious is a `js_integrity_score` below 10, or the URL or its domain reported malicious. */
function isMalicious(record: FilteredRecord): boolean {
  return (
    record.url_reported_malicious ||
    record.domain_reported_malicious ||
    ('js_integrity_score' in record && record.js_integrity_score < MALICIOUS_SCORE_THRESHOLD)
  );
}

/**
 * The refinement of a list asked with `query`. Exact host names read those hosts' lists alone;
 * a host pattern (with `*`) reads the zone's list and tests each item's host.
 */
export function refinementOf<T extends FilteredRecord>(query: DetectedFilterQuery): ListRefinement<T> {
  const tests: Array<(record: T) => boolean> = [];
  const hostNames = (query.hosts ?? []).map((host) => host.toLowerCase());
  const hostPatterns = hostNames.some((host) => host.includes('*')) ? hostNames.map(wildcard) : undefined;
  if (hostPatterns) tests.push((record) => hostPatterns.some((pattern) => pattern.test(record.host)));
  if (query.page_url !== undefined && query.page_url.length > 0) {
    const patterns = query.page_url.map(wildcard);
    tests.push((record) =>
      pagesOf(record).some((page) => {
        const matched = pageUrlAsMatched(page);
        return patterns.some((pattern) => pattern.test(matched));
      }),
    );
  }
  const lower = (parts: readonly string[] | undefined) =>
    parts !== undefined && parts.length > 0 ? parts.map((part) => part.toLowerCase()) : undefined;
  const urls = lower(query.urls);
  if (urls) tests.push((record) => urls.some((part) => record.url.toLowerCase().includes(part)));
  const excluded = lower(query.exclude_urls);
  if (excluded) tests.push((record) => !excluded.some((part) => record.url.toLowerCase().includes(part)));
  if ((query.exclude_cdn_cgi ?? 'true') === 'true') tests.push((record) => !record.url_contains_cdn_cgi_path);

  // Contract: without order_by the list keeps its usual order, so `direction` alone changes nothing.
  const orderBy = query.order_by;
  const sign = query.direction === 'desc' ? -1 : 1;
  const byField =
    orderBy === undefined
      ? undefined
      : (a: T, b: T) => (a[orderBy] === b[orderBy] ? 0 : a[orderBy] < b[orderBy] ? -sign : sign);
  const malicious = query.prioritize_malicious === 'true';
  const compare =
    byField === undefined && !malicious
      ? undefined
      : (a: T, b: T) => (malicious ? Number(isMalicious(b)) - Number(isMalicious(a)) : 0) || (byField?.(a, b) ?? 0);
  return {
    hosts: hostNames.length === 0 || hostPatterns ? undefined : new Set(hostNames),
    keep: tests.length === 0 ? undefined : (record) => tests.every((test) => test(record)),
    compare,
    key: JSON.stringify([
      hostPatterns ? hostNames : [],
      query.page_url ?? [],
      urls ?? [],
      excluded ?? [],
      query.exclude_cdn_cgi ?? 'true',
      orderBy ?? '',
      orderBy === undefined ? '' : (query.direction ?? 'asc'),
      malicious,
    ]),
  };
}
