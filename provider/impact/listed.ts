import type { HttpClient, PageOptions } from '../client/http';
import {
  DETECTED_STATUSES,
  judgedConnectionPages,
  judgedScriptPages,
  type JudgedConnection,
  type JudgedScript,
} from '../client/page-security';
import { connectionReports, type Detected, type HostKindEvaluator, type ZoneImpactEvaluator } from './evaluate';

/**
 * The detected lists as the review reads them: spec 2.3's scripts and 2.4's connections of a
 * zone's hosts, `/cdn-cgi/` ones included, one listing per status (spec 3), each item as the review
 * judges it.
 */

/** The two kinds of detected item the review lists. */
export type DetectedKind = 'scripts' | 'connections';
/** Spec 3: a status a list returns (`DETECTED_STATUSES`), one listing each. */
export type DetectedStatus = (typeof DETECTED_STATUSES)[number];

/** One listed item: the host it was detected on, as the list gave it, and the item. */
export interface ListedItem {
  host: string;
  item: Detected;
}

/**
 * The judge of a listed item of `kind` on `host` (as the list gives it, else lowercased), or
 * `undefined` when none of the zone's policies covers the host: the review's judging and the read
 * ahead's alike.
 */
export function listedJudge(
  evaluator: ZoneImpactEvaluator,
  kind: DetectedKind,
  host: string,
): HostKindEvaluator | undefined {
  const fetched = kind === 'scripts' ? 'script' : 'connection';
  return evaluator.judge(fetched, host) ?? evaluator.judge(fetched, host.toLowerCase());
}

/**
 * The status and first page of a listed item: where the service leaves them out (the vendor does
 * not declare `status`, and may omit `first_page_url`), the status the list was asked for and the
 * host it was seen on.
 */
function seenWhere(item: JudgedScript | JudgedConnection, listed: DetectedStatus) {
  return { status: item.status ?? listed, firstPageUrl: item.first_page_url ?? item.host };
}

/** A listed script as the review judges it. */
function seenScript(script: JudgedScript, listed: DetectedStatus): Detected {
  return {
    id: script.id,
    url: script.url,
    ...seenWhere(script, listed),
    lastSeenAt: script.last_seen_at,
    ...(script.js_integrity_score !== undefined ? { jsIntegrityScore: script.js_integrity_score } : {}),
  };
}

/** A listed connection as the review judges it. */
function seenConnection(connection: JudgedConnection, listed: DetectedStatus): Detected {
  return {
    id: connection.id,
    url: connection.url,
    ...seenWhere(connection, listed),
    lastSeenAt: connection.last_seen_at,
    reports: connectionReports(connection),
  };
}

/**
 * The items of one kind and status detected on `hosts` of the zone, a page of `perPage` at a time,
 * each next page asked for while the current one is judged (`reading`: told as each page is asked
 * for, stopped, and begun past the first page, as `HttpClient.pages` is). Those under `/cdn-cgi/` included, which the service
 * leaves out unless asked: a policy that blocks one still breaks the page.
 */
export async function* detectedPages(
  client: HttpClient,
  zoneId: string,
  kind: DetectedKind,
  status: DetectedStatus,
  hosts: readonly string[],
  perPage: number,
  reading: Pick<PageOptions, 'asked' | 'signal' | 'firstPage'> = {},
): AsyncGenerator<ListedItem[]> {
  const params = { status, hosts, excludeCdnCgi: false };
  const options = { ...reading, prefetch: true };
  if (kind === 'scripts') {
    for await (const page of judgedScriptPages(client, zoneId, params, perPage, options))
      yield page.map((script) => ({ host: script.host, item: seenScript(script, status) }));
  } else {
    for await (const page of judgedConnectionPages(client, zoneId, params, perPage, options))
      yield page.map((connection) => ({ host: connection.host, item: seenConnection(connection, status) }));
  }
}
