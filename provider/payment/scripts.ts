import {
  authorizingEntry,
  inventoryPageOf,
  type InventoryPage,
  type ScriptEntry,
  type ScriptInventory,
} from '../../rules/inventory';
import { isMaliciousScore } from '../../rules/malicious';
import type { Dialect } from '../../rules/dialect';
import { NotFoundError } from '../client/errors';
import type { HttpClient } from '../client/http';
import { mapLimited } from '../client/map-limited';
import type { z } from 'zod';
import {
  DETECTED_STATUSES,
  getScript,
  listScripts,
  scoresShape,
  type Script,
  type ScriptDetail,
  type ScriptVersion,
} from '../client/page-security';
import { dialectOf } from '../settings';

/**
 * What page security detects on an inventory's payment pages, each script judged against the
 * inventory (PCI DSS 4.0 requirements 6.4.3 and 11.6.1, issues 25 and 30): the one reading that the
 * `ScriptInventory` resource, the review's payment policies, `edgeguard-inventory` and
 * `edgeguard-audit` share, so none of them calls a script authorized or unchanged that another
 * does not.
 *
 * Requests: the scripts seen on each page are listed in both statuses with the `page_url` filter
 * ({@link PER_PAGE} a request, within both dialects' bounds), so the listing costs what the pages
 * hold, whatever the size of the zone. The filtered list says a script is on the page, whatever
 * page it was first seen on (issue 42, item 5): a script first seen elsewhere (the site's analytics,
 * first seen on the home page) costs no read of its own. A listed script is read (spec 2.3: only
 * the single script gives its versions) only when its entry pins a hash and the listed one is
 * another or none (the versions since the pin), {@link PARALLEL_READS} at a time. The bound is
 * {@link requestBound}.
 */

/** Scripts listed per request. */
export const PER_PAGE = 100;

/** Scripts read at once for their pages and versions. */
export const PARALLEL_READS = 8;

/**
 * A script's integrity against the inventory:
 * - `unchanged`: its entry pins a hash and the live one is that hash;
 * - `changed`: its entry pins a hash and the live one differs (or the plan reports none);
 * - `unpinned`: its entry pins none (a prefix entry, or a url entry without `hash`);
 * - `unauthorized`: no entry authorizes it.
 */
export type Integrity = (typeof INTEGRITIES)[number];

/** The integrities, from the best to the worst. */
export const INTEGRITIES = ['unchanged', 'unpinned', 'changed', 'unauthorized'] as const;

/** The six scores of spec 2.3, as page security reports them (absent on plans without them). */
export type Scores = z.output<z.ZodObject<typeof scoresShape>>;

/** One script page security detected on the inventory's pages, judged. */
export interface PaymentScript {
  id: string;
  url: string;
  /** `active` or `infrequent` (spec 3). */
  status: string;
  firstSeenAt: string;
  lastSeenAt: string;
  /** The hash of its current version, when the plan reports one. */
  hash?: string;
  /** When its current version was fetched, when reported. */
  fetchedAt?: string;
  scores: Scores;
  /** `js_integrity_score` below 10 (`rules/malicious.ts`). */
  malicious: boolean;
  /** What page security reports of the script's domain and URL. */
  reported: { domainMalicious: boolean; urlMalicious: boolean; urlCategories: string[] };
  /**
   * The pages it was seen on that are on the inventory's pages, as reported: its first page when
   * that is one of them (the listing gives no other: spec 2.3), else every one of them it was seen
   * on (it was read for them). Whatever the entries, so that a pin does not move it.
   */
  pages: string[];
  /** The inventory pages (their `text`, `shop.example.com/checkout`) those pages fall on. */
  inventoryPages: string[];
  /** The entry that authorizes it, when one does. */
  entry?: ScriptEntry;
  integrity: Integrity;
  /**
   * When `changed`: the versions since the pinned one, newest first, each with its hash, scores
   * and `fetched_at` (the pinned version last when page security still lists it); otherwise empty.
   */
  changes: ScriptVersion[];
}

/**
 * The most requests {@link readPaymentScripts} makes when `listed` scripts are seen on the pages
 * and `read` of them are read: at most ⌈listed / {@link PER_PAGE}⌉ list pages in each status (at
 * least one), and one request per script read; and when `apart` pages were listed apart (an
 * inventory of several pages with scripts first seen elsewhere), as many again for each. For `k`
 * scripts on the pages of which `c` must be read: `2 × ⌈k / 100⌉ + c` (2 + c with none), whatever
 * page each was first seen on, in both dialects (100 a page is within the vendor's bound too); an
 * inventory of `P` pages listed apart adds `2 × P × ⌈k / 100⌉`. Retries are not counted.
 */
export function requestBound(listed: number, read: number, apart = 0): number {
  return DETECTED_STATUSES.length * (1 + apart) * Math.max(1, Math.ceil(listed / PER_PAGE)) + read;
}

/** The integrity of a script of live `hash` authorized by `entry`. */
export function integrityOf(entry: ScriptEntry | undefined, hash: string | undefined): Integrity {
  if (entry === undefined) return 'unauthorized';
  if (entry.kind !== 'url' || entry.hash === undefined) return 'unpinned';
  return hash?.toLowerCase() === entry.hash ? 'unchanged' : 'changed';
}

/** The versions of a changed script since the pinned one: newest first, down to the pinned one when listed. */
function changesSince(versions: readonly ScriptVersion[], pinned: string): ScriptVersion[] {
  const at = versions.findIndex((version) => version.hash?.toLowerCase() === pinned);
  return at === -1 ? [...versions] : versions.slice(0, at + 1);
}

/**
 * What a reading asked of the service, added to as it reads: the scripts listed on the pages, the
 * scripts read one by one, and the requests (retries not counted).
 */
export interface ReadTally {
  listed: number;
  read: number;
  requests: number;
  /**
   * The inventory pages listed apart, each with its own `page_url` filter, to place the scripts
   * first seen elsewhere on an inventory of several pages (absent: none).
   */
  pages?: number;
}

/** A tally of nothing read yet. */
export function newTally(): ReadTally {
  return { listed: 0, read: 0, requests: 0 };
}

/** {@link requestBound} of what `tally` says was listed and read. */
export function tallyBound(tally: ReadTally): number {
  return requestBound(tally.listed, tally.read, tally.pages ?? 0);
}

/**
 * A script page security detects on some inventory pages, before any entry judges it: what
 * {@link listScriptsOnPages} gives, {@link readChangedScripts} completes and
 * {@link judgePaymentScripts} judges.
 */
export interface ScriptOnPages {
  /**
   * The script as listed, or as read: only a script read has its `versions` (spec 2.3), and only
   * those are needed, of the scripts whose pinned hash is not the listed one.
   */
  script: Omit<ScriptDetail, 'page_urls' | 'versions'> & { versions?: ScriptVersion[] };
  /** The pages it was seen on that are on the inventory's pages, as reported (see {@link PaymentScript.pages}). */
  pages: string[];
  /** The inventory pages (their `text`) those pages fall on. */
  inventoryPages: string[];
}

/** Options of a reading. */
export interface ReadOptions {
  /**
   * What it lists and reads and the requests it asks are added to it as it goes (a caller states
   * its requests against {@link requestBound}); when it fails, the requests asked until then.
   */
  tally?: ReadTally;
  /** Once aborted, the reading stops at its next page or batch, rejecting with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * The `page_url` patterns of `pages` (contract: matched whole against a page URL without scheme,
 * query and fragment, `*` any run, case-insensitively): a host with any port and any path, or a
 * path and the pages under it. The service compares the raw text, so the path is written as a page
 * URL may carry it: percent-encoded as `encodeURI` writes it, and as the URL parser writes it where
 * the two differ (`[`, `]`, `|`, `^` stay raw there), so a page holding them, or written already
 * percent-encoded, matches either way. A `,` (the list's separator) becomes `*`. In `vendor`, a `*`
 * may stand only at a pattern's start or end (the vendor's words), so a path with a `,` is cut
 * there and ended with `*`, and the ports are not patterned (a page on another port is not listed).
 * A pattern may take in more than the page (another case, a path after a `,`): the filtered list's
 * word is taken for it.
 */
export function pageUrlPatterns(pages: readonly InventoryPage[], dialect: Dialect = 'spec'): string[] {
  const patterns = new Set<string>();
  const vendor = dialect === 'vendor';
  for (const { host, path } of pages) {
    if (path === '') {
      for (const pattern of [host, `${host}/*`, `${host}:*`]) patterns.add(pattern);
      continue;
    }
    const written = encodeURI(path);
    const parsed = written.replace(/%(5B|5D|7C|5E)/gi, (escape) => decodeURIComponent(escape));
    for (const encoded of new Set([written, parsed])) {
      if (vendor) {
        const comma = encoded.indexOf(',');
        if (comma === -1) {
          patterns.add(`${host}${encoded}`);
          patterns.add(`${host}${encoded}/*`);
        } else patterns.add(`${host}${encoded.slice(0, comma)}*`);
        continue;
      }
      const starred = encoded.replaceAll(',', '*');
      for (const origin of [host, `${host}:*`]) {
        patterns.add(`${origin}${starred}`);
        patterns.add(`${origin}${starred}/*`);
      }
    }
  }
  return [...patterns];
}

/** The pages of `seen` on the pages of `onPages`, and the inventory pages they fall on. */
function placed(onPages: ScriptInventory, seen: readonly string[]): Pick<ScriptOnPages, 'pages' | 'inventoryPages'> {
  const pages: string[] = [];
  const inventoryPages = new Set<string>();
  for (const page of seen) {
    const on = inventoryPageOf(onPages, page);
    if (on === undefined) continue;
    pages.push(page);
    inventoryPages.add(on.text);
  }
  return { pages, inventoryPages: [...inventoryPages] };
}

/**
 * Every script page security detects in `zoneId` on `pages` (an inventory's), of both statuses,
 * not yet judged: listed with the pages' `page_url` patterns, `/cdn-cgi/` scripts included (a
 * payment page's `/cdn-cgi/` script is still a script on the page). The filtered list says a script
 * is on the pages, whatever page it was first seen on (issue 42, item 5): nothing is read for it.
 * It is placed with the page URLs it reports (`page_urls` when the list gives them, else its first
 * page) that fall on the inventory's pages; one that reports none of them (first seen elsewhere) is
 * on the inventory's page when it has one, and when it has several, each page is listed apart once
 * to know which (the page's own text stands for the URL then). Sorted by URL then id, so the result
 * changes only when what is detected does. It does not depend on the inventory's entries: a listing
 * made before they are known (the review's read ahead) is completed with them later
 * ({@link readChangedScripts}).
 */
export async function listScriptsOnPages(
  client: HttpClient,
  zoneId: string,
  pages: readonly InventoryPage[],
  options: ReadOptions = {},
): Promise<ScriptOnPages[]> {
  if (pages.length === 0) return [];
  const onPages: ScriptInventory = { pages, scripts: [] };
  const dialect = dialectOf(client.settings);
  const found = new Map<string, ScriptOnPages>();
  const unplaced = new Set<string>();
  await listOnPages(client, zoneId, pageUrlPatterns(pages, dialect), options, (script, status) => {
    const where = placed(onPages, reportedPages(script));
    if (where.pages.length === 0) unplaced.add(script.id);
    found.set(script.id, { script: listedScript(script, status), ...where });
  });
  if (unplaced.size > 0 && pages.length === 1) {
    for (const id of unplaced)
      found.set(id, { ...found.get(id)!, pages: [pages[0]!.text], inventoryPages: [pages[0]!.text] });
  } else if (unplaced.size > 0) {
    if (options.tally) options.tally.pages = (options.tally.pages ?? 0) + pages.length;
    for (const page of pages) {
      await listOnPages(client, zoneId, pageUrlPatterns([page], dialect), { ...options, counted: false }, (script) => {
        const before = found.get(script.id);
        if (before === undefined || !unplaced.has(script.id)) return;
        found.set(script.id, {
          ...before,
          pages: union(before.pages, [page.text]),
          inventoryPages: union(before.inventoryPages, [page.text]),
        });
      });
    }
    // Listed with every page's patterns yet with none's alone (a list changing meanwhile): not on the pages.
    for (const id of unplaced) if (found.get(id)!.pages.length === 0) found.delete(id);
  }
  return [...found.values()].sort(({ script: a }, { script: b }) =>
    a.url < b.url ? -1 : a.url > b.url ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
}

/** The page URLs a listed script reports: its `page_urls` when the list gives them, else its first page. */
function reportedPages(script: Script): string[] {
  return script.page_urls ?? (script.first_page_url !== undefined ? [script.first_page_url] : []);
}

/** A listed script as a reading keeps it: without its pages, with the status it was listed in when it has none. */
function listedScript(script: Script, status: string): ScriptOnPages['script'] {
  const { page_urls: _seenOn, ...kept } = script;
  return { ...kept, status: script.status ?? status };
}

/**
 * Lists the scripts matching `patterns` in both statuses, `each` called with every one; its list
 * pages are added to the tally's requests, and its scripts to `listed` unless `counted` is false
 * (a listing apart of scripts already counted).
 */
async function listOnPages(
  client: HttpClient,
  zoneId: string,
  patterns: string[],
  options: ReadOptions & { counted?: boolean },
  each: (script: Script, status: string) => void,
): Promise<void> {
  const { tally, signal } = options;
  const query = { pageUrl: patterns, excludeCdnCgi: false };
  for (const status of DETECTED_STATUSES) {
    let listed = 0;
    try {
      for await (const script of listScripts(client, zoneId, { ...query, status }, PER_PAGE, { prefetch: true })) {
        signal?.throwIfAborted();
        listed += 1;
        each(script, status);
      }
    } catch (error) {
      // The list pages answered, and the one asked for when it failed (the next, asked ahead).
      if (tally) tally.requests += Math.ceil(listed / PER_PAGE) + 1;
      throw error;
    }
    if (tally) {
      if (options.counted !== false) tally.listed += listed;
      tally.requests += Math.max(1, Math.ceil(listed / PER_PAGE));
    }
  }
}

/** `a` and `b` without repeats, in order. */
function union(a: readonly string[] | undefined, b: readonly string[]): string[] {
  return [...new Set([...(a ?? []), ...b])];
}

/** The scripts `ids`, read {@link PARALLEL_READS} at a time; `undefined` for one gone since it was listed. */
async function readScripts(
  client: HttpClient,
  zoneId: string,
  ids: readonly string[],
  options: ReadOptions,
): Promise<Array<ScriptDetail | undefined>> {
  if (ids.length === 0) return [];
  options.signal?.throwIfAborted();
  if (options.tally) {
    options.tally.read += ids.length;
    options.tally.requests += ids.length;
  }
  return mapLimited(ids, PARALLEL_READS, async (id) => {
    try {
      return await getScript(client, zoneId, id);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  });
}

/**
 * Whether judging `script` against `inventory` needs what only its read gives: its entry pins a
 * hash, the listing shows another or none (some plans report none), and it was not read already.
 * The read gives the versions since the pin, and the hash again: a script whose read shows none
 * either stays `changed`.
 */
export function needsRead(script: ScriptOnPages['script'], inventory: ScriptInventory): boolean {
  if (script.versions !== undefined) return false;
  const entry = authorizingEntry(inventory, script.url);
  return integrityOf(entry, script.hash) === 'changed';
}

/**
 * `listed` (from {@link listScriptsOnPages}) with the scripts that {@link needsRead} against
 * `inventory` read, so that {@link judgePaymentScripts} has their versions; each keeps the pages
 * the listing placed it on (the filtered list's word, which the read's `page_urls`, optional at the
 * vendor, does not overrule). A script gone since it was listed is no longer detected. In
 * `listed`'s order.
 */
export async function readChangedScripts(
  client: HttpClient,
  zoneId: string,
  listed: readonly ScriptOnPages[],
  inventory: ScriptInventory,
  options: ReadOptions = {},
): Promise<ScriptOnPages[]> {
  const changed = listed.filter(({ script }) => needsRead(script, inventory));
  const reads = await readScripts(
    client,
    zoneId,
    changed.map(({ script }) => script.id),
    options,
  );
  const byId = new Map(changed.map(({ script }, i) => [script.id, reads[i]]));
  return listed.flatMap((onPage) => {
    if (!byId.has(onPage.script.id)) return [onPage];
    const read = byId.get(onPage.script.id);
    if (read === undefined) return [];
    // Placed as the listing placed it, whatever the entries: the resource's `detected` and the
    // review's pages then do not move when a pin does. The read adds the versions.
    const { page_urls: _seenOn, ...script } = read;
    return [{ ...onPage, script: { ...script, status: script.status ?? onPage.script.status } }];
  });
}

/**
 * `read` (scripts on `inventory`'s pages, listed by {@link listScriptsOnPages} and completed by
 * {@link readChangedScripts}) judged against `inventory`'s entries: each with the entry that
 * authorizes it, its integrity, and the versions since the pinned one when changed. Pure; in
 * `read`'s order.
 */
export function judgePaymentScripts(read: readonly ScriptOnPages[], inventory: ScriptInventory): PaymentScript[] {
  return read.map(({ script, pages, inventoryPages }) => {
    const entry = authorizingEntry(inventory, script.url);
    const integrity = integrityOf(entry, script.hash);
    const pinned = entry?.kind === 'url' ? entry.hash : undefined;
    return {
      id: script.id,
      url: script.url,
      status: script.status ?? 'active',
      firstSeenAt: script.first_seen_at,
      lastSeenAt: script.last_seen_at,
      ...(script.hash !== undefined ? { hash: script.hash.toLowerCase() } : {}),
      ...(script.fetched_at !== undefined ? { fetchedAt: script.fetched_at } : {}),
      scores: scoresOf(script),
      malicious: isMaliciousScore(script.js_integrity_score),
      reported: {
        domainMalicious: script.domain_reported_malicious,
        urlMalicious: script.url_reported_malicious,
        urlCategories: script.malicious_url_categories ?? [],
      },
      pages: [...pages],
      inventoryPages: [...inventoryPages],
      ...(entry !== undefined ? { entry } : {}),
      integrity,
      changes: integrity === 'changed' && pinned !== undefined ? changesSince(script.versions ?? [], pinned) : [],
    };
  });
}

/**
 * Every script page security detects on `inventory`'s pages in `zoneId`, of both statuses, judged
 * against its entries: {@link listScriptsOnPages}, {@link readChangedScripts}, then
 * {@link judgePaymentScripts}. With `tally`, what it listed and read and the requests it made are
 * added to it.
 */
export async function readPaymentScripts(
  client: HttpClient,
  zoneId: string,
  inventory: ScriptInventory,
  tally?: ReadTally,
): Promise<PaymentScript[]> {
  const options = tally ? { tally } : {};
  const listed = await listScriptsOnPages(client, zoneId, inventory.pages, options);
  return judgePaymentScripts(await readChangedScripts(client, zoneId, listed, inventory, options), inventory);
}

/** The scores of a script or version, those reported. */
export function scoresOf(from: Scores): Scores {
  const scores: Scores = {};
  for (const key of SCORE_KEYS) if (from[key] !== undefined) scores[key] = from[key];
  return scores;
}

/** The scores' names, in spec 2.3's order. */
export const SCORE_KEYS = Object.keys(scoresShape) as Array<keyof Scores>;

/** How an entry is named in messages and reports: its `url` or `prefix`. */
export function entryText(entry: ScriptEntry): string {
  return entry.kind === 'url' ? entry.url : entry.prefix;
}
