import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HttpClient } from '../client/http';
import { DETECTED_STATUSES } from '../client/page-security';
import { parsePolicyExpression } from '../../rules/expression';
import { urlOrigin, type Detected } from './evaluate';
import { detectedPages, type DetectedKind, type DetectedStatus, type ListedItem } from './listed';
import { exportedResources } from '../stack/export';

/**
 * The review's read ahead: the detected lists read while the engine runs the program, from what
 * the previous state names, so that the judging that must wait for the proposed policies does not
 * also wait for the service.
 *
 * The engine gives a policy pack the proposed values at the end, in `AnalyzeStack`, after the
 * program has run (about 3 s of a 3.2 s preview in bench/RESULTS.md, issue 20), and the pack spent
 * that time idle. The state before the change (`pulumi stack export`, which `edgeguard-review`
 * gives the pack: `EDGEGUARD_REVIEW_BASELINE`) names the zones and the hosts of the stack's CSP
 * policies; a change to a policy's value, the usual one, keeps both. So once the engine has
 * configured the pack, it lists the scripts and connections of those hosts (the plan's listings,
 * `./plan.ts`), and keeps them in files of its own, a page per line, so that memory holds one page
 * whatever the number of items (and nothing on disk once they are open: {@link FileListing}). The
 * review of a zone then judges from those files when they cover
 * its hosts, and lists the service itself otherwise; listings no review used are counted in the
 * requests and stated in the bound.
 */

/** One listing read ahead: its items, page by page from its file, and the requests it took. */
export interface ReadListing {
  count: number;
  /** List requests made: one per page, at least one. */
  requests: number;
  /** The items' pages, in the order the service listed them. */
  pages(): Iterable<ListedItem[]>;
}

/** What the previous state names: per zone, the hosts of its CSP policies. */
export type ReadAheadTargets = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * The zones and hosts of the CSP policies of a `pulumi stack export` (EdgeGuard's dynamic
 * resources and the provider plugin's), from their outputs; policies whose zone or expression
 * cannot be read are left out.
 */
export function readAheadTargets(exported: unknown): Map<string, Set<string>> {
  const targets = new Map<string, Set<string>>();
  for (const resource of exportedResources(exported)) {
    if (resource.kind !== 'CspPolicy') continue;
    const { zoneId, expression } = resource.outputs;
    if (typeof zoneId !== 'string' || typeof expression !== 'string') continue;
    const parsed = parsePolicyExpression(expression);
    if (!parsed.ok) continue;
    const zone = zoneId.toLowerCase();
    targets.set(zone, (targets.get(zone) ?? new Set()).add(parsed.value.hostname));
  }
  return targets;
}

/**
 * A listed item as a line's entry: [host, id, url, origin, status, first page, last seen, score or
 * reports], its host, URL's origin (`urlOrigin`, -1 for none), status and first page as indexes
 * into the texts its page shares ({@link Line}).
 */
type Row = [number, string, string, number, number, number, string, number | string[] | null];

/**
 * One page as a line of its file: the hosts, URL origins, statuses and first pages of its items,
 * each once, and their rows. A page's items come from few hosts, origins and pages: read back, they
 * share one string for each, which the judging hashes once to find its host's judge, its origin's
 * keys and its page's outcomes, and the line is a fifth shorter to write and parse
 * (bench/RESULTS.md, issue 30).
 */
type Line = [string[], Row[]];

function lineOf(page: readonly ListedItem[]): Line {
  const texts: string[] = [];
  const indexes = new Map<string, number>();
  const index = (text: string) => {
    let at = indexes.get(text);
    if (at === undefined) {
      at = texts.push(text) - 1;
      indexes.set(text, at);
    }
    return at;
  };
  const origin = (url: string) => {
    const text = urlOrigin(url);
    return text === undefined ? -1 : index(text);
  };
  const rows = page.map(({ host, item }): Row => [
    index(host),
    item.id,
    item.url,
    origin(item.url),
    index(item.status),
    index(item.firstPageUrl),
    item.lastSeenAt,
    item.jsIntegrityScore ?? (item.reports as string[] | undefined) ?? null,
  ]);
  return [texts, rows];
}

function pageOf([texts, rows]: Line): ListedItem[] {
  return rows.map(([host, id, url, origin, status, firstPage, lastSeenAt, extra]) => {
    const item: Detected = { id, url, status: texts[status]!, firstPageUrl: texts[firstPage]!, lastSeenAt };
    if (origin >= 0) item.origin = texts[origin]!;
    if (typeof extra === 'number') item.jsIntegrityScore = extra;
    else if (Array.isArray(extra)) item.reports = extra;
    return { host: texts[host]!, item };
  });
}

/**
 * A listing kept in a file: a page per line, and where each line is. The file is removed from its
 * folder as soon as it is open, and read and written through its descriptor: the engine ends the
 * pack with a kill, so nothing it would clean up on its way out stays on disk.
 */
class FileListing implements ReadListing {
  count = 0;
  requests = 0;
  private readonly lines: Array<{ at: number; length: number }> = [];
  private size = 0;
  private fd: number | undefined;

  constructor(file: string) {
    this.fd = fs.openSync(file, 'w+', 0o600);
    fs.rmSync(file, { force: true });
  }

  append(page: readonly ListedItem[]): void {
    if (this.fd === undefined) return;
    const written = fs.writeSync(this.fd, `${JSON.stringify(lineOf(page))}\n`, this.size, 'utf8');
    this.lines.push({ at: this.size, length: written - 1 });
    this.size += written;
    this.count += page.length;
  }

  *pages(): Iterable<ListedItem[]> {
    for (const { at, length } of this.lines) {
      if (this.fd === undefined) return;
      const buffer = Buffer.allocUnsafe(length);
      fs.readSync(this.fd, buffer, 0, length, at);
      yield pageOf(JSON.parse(buffer.toString('utf8')) as Line);
    }
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

/** One zone's listings, read ahead on its hosts. */
interface ZoneRead {
  hosts: ReadonlySet<string>;
  listings: Map<string, FileListing>;
  /** Settles when every listing of the zone has ended; rejects with the first failure. */
  done: Promise<void>;
  taken: boolean;
}

const listingKey = (kind: DetectedKind, status: DetectedStatus) => `${kind} ${status}`;

/**
 * The listings of the zones and hosts the previous state names, read from when {@link start} is
 * called; {@link take} gives a zone's to the review that covers no other host.
 */
export class ReadAhead {
  private readonly zones = new Map<string, ZoneRead>();
  private disposed = false;

  constructor(
    private readonly client: HttpClient,
    private readonly targets: ReadAheadTargets,
    private readonly perPage: number,
  ) {}

  /** Starts every zone's listings, the four of a zone side by side, each page asked for while the last is kept. */
  start(): this {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-review-'));
    let index = 0;
    for (const [zoneId, hosts] of this.targets) {
      const listings = new Map<string, FileListing>();
      const reads: Array<Promise<void>> = [];
      for (const kind of ['scripts', 'connections'] as const) {
        for (const status of DETECTED_STATUSES) {
          const listing = new FileListing(path.join(dir, `${index}-${kind}-${status}`));
          listings.set(listingKey(kind, status), listing);
          reads.push(this.read(listing, zoneId, [...hosts], kind, status));
        }
      }
      index += 1;
      // Settled once every listing has ended, so that the requests counted are all of them.
      const done = Promise.allSettled(reads).then((ends) => {
        const failed = ends.find((end) => end.status === 'rejected');
        if (failed !== undefined) throw failed.reason;
      });
      // A failure is the review's to report, where it is awaited; until then it is not unhandled.
      done.catch(() => undefined);
      this.zones.set(zoneId, { hosts, listings, done, taken: false });
    }
    // Every file is open and out of the folder: the folder goes too.
    fs.rmSync(dir, { recursive: true, force: true });
    return this;
  }

  private async read(
    listing: FileListing,
    zoneId: string,
    hosts: string[],
    kind: DetectedKind,
    status: DetectedStatus,
  ): Promise<void> {
    // The page being answered counts as soon as it is asked for; a failed read counts it too.
    listing.requests = 1;
    for await (const page of detectedPages(this.client, zoneId, kind, status, hosts, this.perPage)) {
      if (this.disposed) return;
      listing.append(page);
      listing.requests += 1;
    }
    listing.requests = Math.max(1, Math.ceil(listing.count / this.perPage));
  }

  /**
   * The listings of `zoneId` read ahead, for a review of the zone's policies on `hosts`, once
   * read: `undefined` when the read ahead did not cover every one of those hosts, failed, was
   * given already, or was disposed of. Items on the zone's other hosts read ahead are in the listings too.
   */
  async take(zoneId: string, hosts: readonly string[]): Promise<Map<string, ReadListing> | undefined> {
    const zone = this.zones.get(zoneId);
    if (this.disposed || zone === undefined || zone.taken || !hosts.every((host) => zone.hosts.has(host)))
      return undefined;
    zone.taken = true;
    try {
      await zone.done;
    } catch {
      // Listed again by the review, which reports the failure if it lasts.
      zone.taken = false;
      return undefined;
    }
    return zone.listings;
  }

  /** The listing of one kind and status from {@link take}'s answer. */
  static listing(listings: Map<string, ReadListing>, kind: DetectedKind, status: DetectedStatus): ReadListing {
    return listings.get(listingKey(kind, status))!;
  }

  /** The list requests of the zones no review took, once their reads have ended. */
  async unusedRequests(): Promise<number> {
    let requests = 0;
    for (const zone of this.zones.values()) {
      if (zone.taken) continue;
      await zone.done.catch(() => undefined);
      for (const listing of zone.listings.values()) requests += listing.requests;
    }
    return requests;
  }

  /** Stops reading and closes the files. */
  dispose(): void {
    this.disposed = true;
    for (const zone of this.zones.values()) for (const listing of zone.listings.values()) listing.close();
  }
}
