import {
  authorizingEntry,
  inventoryPageOf,
  type InventoryPage,
  type ScriptEntry,
  type ScriptInventory,
} from '../../rules/inventory';
import { isMaliciousScore } from '../../rules/malicious';
import { NotFoundError } from '../client/errors';
import type { HttpClient } from '../client/http';
import { mapLimited } from '../client/map-limited';
import type { z } from 'zod';
import {
  DETECTED_STATUSES,
  getScript,
  listScripts,
  scoresShape,
  type ScriptDetail,
  type ScriptVersion,
} from '../client/page-security';

/**
 * What page security detects on an inventory's payment pages, each script judged against the
 * inventory (PCI DSS 4.0 requirements 6.4.3 and 11.6.1, issue 25): the one reading that the
 * `ScriptInventory` resource, the review's payment policies, `edgeguard-inventory` and
 * `edgeguard-audit` share, so none of them calls a script authorized or unchanged that another
 * does not.
 *
 * Requests: the scripts of the pages' hosts are listed in both statuses ({@link PER_PAGE} a
 * request), and each listed script is read once (spec 2.3: only the single script gives every page
 * it was seen on, and its versions), {@link PARALLEL_READS} at a time. The bound is
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
  /** The pages it was seen on that are on the inventory's pages, as reported (without scheme). */
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
 * The most requests {@link readPaymentScripts} makes when the pages' hosts hold `listed` scripts:
 * the list pages (at least one per status) and one read per script. Retries are not counted.
 */
export function requestBound(listed: number): number {
  return DETECTED_STATUSES.length + Math.ceil(listed / PER_PAGE) + listed;
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

/** What a reading asked of the service, added to as it reads: the scripts listed, and the requests (retries not counted). */
export interface ReadTally {
  listed: number;
  requests: number;
}

/**
 * A script page security detects on some inventory pages, as read, before any entry judges it:
 * what {@link readScriptsOnPages} keeps, and {@link judgePaymentScripts} judges.
 */
export interface ScriptOnPages {
  /** The script as read, without the pages it was seen on (those on the inventory's pages are {@link pages}). */
  script: Omit<ScriptDetail, 'page_urls'>;
  /** The pages it was seen on that are on the inventory's pages, as reported (without scheme). */
  pages: string[];
  /** The inventory pages (their `text`) those pages fall on. */
  inventoryPages: string[];
}

/** Options of {@link readScriptsOnPages}. */
export interface ReadOptions {
  /**
   * What it lists and the requests it asks are added to it as it goes (a caller states its
   * requests against {@link requestBound} of what was listed); when it fails, the requests asked
   * until then.
   */
  tally?: ReadTally;
  /** Once aborted, the reading stops at its next page or batch, rejecting with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Every script page security detects in `zoneId` on `pages` (an inventory's), of both statuses,
 * read once and not yet judged: the pages' hosts listed, each listed script read for its pages and
 * versions, and those seen on none of `pages` dropped. Sorted by URL then id, so the result changes
 * only when what is detected does. A script gone between its listing and its read is no longer
 * detected. It does not depend on the inventory's entries: a reading made before they are known
 * (the review's read ahead) is judged with them later ({@link judgePaymentScripts}).
 */
export async function readScriptsOnPages(
  client: HttpClient,
  zoneId: string,
  pages: readonly InventoryPage[],
  options: ReadOptions = {},
): Promise<ScriptOnPages[]> {
  const { tally, signal } = options;
  const hosts = [...new Set(pages.map((page) => page.host))];
  if (hosts.length === 0) return [];
  const onPages: ScriptInventory = { pages, scripts: [] };
  const found: ScriptOnPages[] = [];
  // Read a list page's scripts while the next page is asked for, keeping only those seen on the
  // pages: what is kept grows with the payment pages' scripts, not with the hosts' other scripts.
  for (const status of DETECTED_STATUSES) {
    let batch: string[] = [];
    let listed = 0;
    const readBatch = async () => {
      signal?.throwIfAborted();
      if (tally) tally.requests += batch.length;
      const read = await mapLimited(batch, PARALLEL_READS, (id) => scriptOnPages(client, zoneId, onPages, id));
      for (const script of read) if (script !== undefined) found.push(script);
      batch = [];
    };
    try {
      for await (const script of listScripts(client, zoneId, { status, hosts }, PER_PAGE, { prefetch: true })) {
        listed += 1;
        batch.push(script.id);
        if (batch.length === PER_PAGE) await readBatch();
      }
      await readBatch();
    } catch (error) {
      // The list pages answered, and the one asked for when it failed (the next, asked ahead).
      if (tally) tally.requests += Math.ceil(listed / PER_PAGE) + 1;
      throw error;
    }
    if (tally) {
      tally.listed += listed;
      tally.requests += Math.max(1, Math.ceil(listed / PER_PAGE));
    }
  }
  return found.sort(({ script: a }, { script: b }) =>
    a.url < b.url ? -1 : a.url > b.url ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
}

/** The script `id`, read; `undefined` when it is on none of the pages, or gone since it was listed. */
async function scriptOnPages(
  client: HttpClient,
  zoneId: string,
  onPages: ScriptInventory,
  id: string,
): Promise<ScriptOnPages | undefined> {
  let script;
  try {
    script = await getScript(client, zoneId, id);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
  const pages: string[] = [];
  const inventoryPages = new Set<string>();
  for (const page of script.page_urls) {
    const on = inventoryPageOf(onPages, page);
    if (on === undefined) continue;
    pages.push(page);
    inventoryPages.add(on.text);
  }
  if (pages.length === 0) return undefined;
  // Of the pages it was seen on, those on the inventory's alone are kept: the others are the hosts' other pages.
  const { page_urls: _seenOn, ...kept } = script;
  return { script: kept, pages, inventoryPages: [...inventoryPages] };
}

/**
 * `read` (scripts read on `inventory`'s pages by {@link readScriptsOnPages}) judged against
 * `inventory`'s entries: each with the entry that authorizes it, its integrity, and the versions
 * since the pinned one when changed. Pure; in `read`'s order.
 */
export function judgePaymentScripts(read: readonly ScriptOnPages[], inventory: ScriptInventory): PaymentScript[] {
  return read.map(({ script, pages, inventoryPages }) => {
    const entry = authorizingEntry(inventory, script.url);
    const integrity = integrityOf(entry, script.hash);
    const pinned = entry?.kind === 'url' ? entry.hash : undefined;
    return {
      id: script.id,
      url: script.url,
      status: script.status,
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
      changes: integrity === 'changed' && pinned !== undefined ? changesSince(script.versions, pinned) : [],
    };
  });
}

/**
 * Every script page security detects on `inventory`'s pages in `zoneId`, of both statuses, judged
 * against its entries: {@link readScriptsOnPages}, then {@link judgePaymentScripts}. With `tally`,
 * what it listed and the requests it made are added to it.
 */
export async function readPaymentScripts(
  client: HttpClient,
  zoneId: string,
  inventory: ScriptInventory,
  tally?: ReadTally,
): Promise<PaymentScript[]> {
  return judgePaymentScripts(
    await readScriptsOnPages(client, zoneId, inventory.pages, tally ? { tally } : {}),
    inventory,
  );
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
