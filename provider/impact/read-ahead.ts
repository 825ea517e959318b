import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HttpClient } from '../client/http';
import { DETECTED_STATUSES, listPolicies, type PageSecurityPolicy } from '../client/page-security';
import { parsePolicyExpression } from '../../rules/expression';
import { ZoneImpactEvaluator, type Acceptance, type Detected, type ZonePolicies } from './evaluate';
import { detectedPages, type DetectedKind, type DetectedStatus, type ListedItem } from './listed';
import type { PolicyUnderReview } from './model';
import { zoneKey, zoneOptions, zonePoliciesOf } from './zone';
import { exportedResources, stackPolicies, stackPolicyIds } from '../stack/export';

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
 * requests and stated in the bound. The zone's live policies are listed first, for the review to
 * use as its own list of them.
 *
 * And while it reads, it judges (issue 30): the previous state's policies of a zone are what the
 * proposed ones are when the change leaves them alone (a nightly review, a change to anything
 * else), so each page is judged as it arrives, as the review would judge it then
 * ({@link Speculation}). When the zone the review is given has the same key (`zoneKey` of
 * `./zone.ts`: the same policies, live policies and managed ids) and its `acceptBlocked` answers
 * every blocked script asked about as the read ahead did (nothing accepted), the review takes that
 * judgement instead of judging every item again after the program has run: on a zone of 200,000
 * scripts, that was most of what the review added to a preview (bench/RESULTS.md, issue 30). A
 * script whose verdict depends on its pages, or more than {@link MAX_ASKED} blocked scripts, ends
 * the judging ahead: the review judges the zone itself.
 */

/** Blocked scripts the judging ahead asks about (and keeps, to ask the review's acceptance again), at most. */
export const MAX_ASKED = 10_000;

/**
 * The previous state's CSP policies by zone, as a review would be given them if the change left
 * them alone, and the ids of every live policy the stack manages: what a read ahead judges with.
 */
export interface Speculation {
  policies: ReadonlyMap<string, readonly PolicyUnderReview[]>;
  managedPolicyIds: readonly string[];
}

/**
 * The {@link Speculation} of a `pulumi stack export`: its CSP policies as their inputs declared
 * them; a zone with a policy whose declaration cannot be read is left out (not judged ahead).
 */
export function speculationOf(exported: unknown): Speculation {
  const managed = stackPolicies(exported);
  const policies = new Map<string, PolicyUnderReview[]>();
  const unreadable = new Set<string>();
  for (const { urn, name, zoneId, policyId, declared } of managed) {
    const zone = zoneId.toLowerCase();
    if (declared === undefined) {
      unreadable.add(zone);
      continue;
    }
    const { action, expression, value, enabled } = declared;
    policies.set(zone, [
      ...(policies.get(zone) ?? []),
      { key: urn, name, zoneId: zone, policy: { action, enabled, expression, value }, replaces: { id: policyId } },
    ]);
  }
  for (const zone of unreadable) policies.delete(zone);
  // The ids the review is given as the stack's (`reviewInputOf` of ../review/pack-input.ts).
  return { policies, managedPolicyIds: [...stackPolicyIds(exported).values()] };
}

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

/** A listed item as one line's entry: [host, id, url, status, first page, last seen, score or reports]. */
type Row = [string, string, string, string, string, string, number | string[] | null];

function rowOf(host: string, item: Detected): Row {
  return [
    host,
    item.id,
    item.url,
    item.status,
    item.firstPageUrl,
    item.lastSeenAt,
    item.jsIntegrityScore ?? (item.reports as string[] | undefined) ?? null,
  ];
}

function listedOf(row: Row): ListedItem {
  const [host, id, url, status, firstPageUrl, lastSeenAt, extra] = row;
  const item: Detected = { id, url, status, firstPageUrl, lastSeenAt };
  if (typeof extra === 'number') item.jsIntegrityScore = extra;
  else if (Array.isArray(extra)) item.reports = extra;
  return { host, item };
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

  append(rows: Row[]): void {
    if (this.fd === undefined) return;
    const text = Buffer.from(`${JSON.stringify(rows)}\n`, 'utf8');
    fs.writeSync(this.fd, text, 0, text.length, this.size);
    this.lines.push({ at: this.size, length: text.length - 1 });
    this.size += text.length;
    this.count += rows.length;
  }

  *pages(): Iterable<ListedItem[]> {
    for (const { at, length } of this.lines) {
      if (this.fd === undefined) return;
      const buffer = Buffer.allocUnsafe(length);
      fs.readSync(this.fd, buffer, 0, length, at);
      yield (JSON.parse(buffer.toString('utf8')) as Row[]).map(listedOf);
    }
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

/** A zone's items judged as they are read, against its policies of the previous state. */
interface JudgedAhead {
  zone: ZonePolicies;
  evaluator: ZoneImpactEvaluator;
  /** The blocked scripts asked about, each answered as not accepted. */
  asked: Set<string>;
  /** Why the judging ahead stopped: the review judges the zone itself. */
  ended?: string;
}

/** One zone's listings, read ahead on its hosts. */
interface ZoneRead {
  hosts: ReadonlySet<string>;
  /** The zone's live policies, listed before its items. */
  live: Promise<PageSecurityPolicy[]>;
  liveUsed: boolean;
  listings: Map<string, FileListing>;
  /** Settles when every listing of the zone has ended; rejects with the first failure. */
  done: Promise<void>;
  taken: boolean;
  /** The judging of its items as read, once the live policies are known; `undefined` without a speculation of the zone. */
  judged: JudgedAhead | undefined;
}

const FETCH_KIND = { scripts: 'script', connections: 'connection' } as const;

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
    /** What to judge the items with as they are read; none judged ahead without it. */
    private readonly speculation?: Speculation,
  ) {}

  /**
   * Starts every zone's reading: its live policies listed, then its four listings side by side,
   * each page asked for while the last is kept (and judged, with a {@link Speculation} of the zone).
   */
  start(): this {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-review-'));
    let index = 0;
    for (const [zoneId, hosts] of this.targets) {
      const live = listPolicies(this.client, zoneId);
      // Its failure is the review's to meet, when it lists the policies itself.
      live.catch(() => undefined);
      const zone: ZoneRead = {
        hosts,
        live,
        liveUsed: false,
        listings: new Map(),
        done: Promise.resolve(),
        taken: false,
        judged: undefined,
      };
      const judging = live.then(
        (listed) => (zone.judged = this.judging(zoneId, listed)),
        () => undefined,
      );
      const reads: Array<Promise<void>> = [];
      for (const kind of ['scripts', 'connections'] as const) {
        for (const status of DETECTED_STATUSES) {
          const listing = new FileListing(path.join(dir, `${index}-${kind}-${status}`));
          zone.listings.set(listingKey(kind, status), listing);
          reads.push(this.read(listing, zoneId, [...hosts], kind, status, judging));
        }
      }
      index += 1;
      // Settled once every listing has ended, so that the requests counted are all of them.
      zone.done = Promise.allSettled(reads).then((ends) => {
        const failed = ends.find((end) => end.status === 'rejected');
        if (failed !== undefined) throw failed.reason;
      });
      // A failure is the review's to report, where it is awaited; until then it is not unhandled.
      zone.done.catch(() => undefined);
      this.zones.set(zoneId, zone);
    }
    // Every file is open and out of the folder: the folder goes too.
    fs.rmSync(dir, { recursive: true, force: true });
    return this;
  }

  /** The judging ahead of `zoneId` with its live policies `listed`, when there is a speculation of the zone. */
  private judging(zoneId: string, listed: readonly PageSecurityPolicy[]): JudgedAhead | undefined {
    const policies = this.speculation?.policies.get(zoneId);
    if (policies === undefined || policies.length === 0) return undefined;
    const zone = zonePoliciesOf(policies, listed, this.speculation!.managedPolicyIds);
    const asked = new Set<string>();
    const judged: JudgedAhead = { zone, asked, evaluator: undefined! };
    const acceptBlocked: Acceptance = (url) => {
      asked.add(url);
      if (asked.size > MAX_ASKED) judged.ended = `more than ${MAX_ASKED} blocked scripts`;
      return undefined;
    };
    judged.evaluator = new ZoneImpactEvaluator(zone, zoneOptions(undefined, acceptBlocked));
    return judged;
  }

  private async read(
    listing: FileListing,
    zoneId: string,
    hosts: string[],
    kind: DetectedKind,
    status: DetectedStatus,
    judging: Promise<JudgedAhead | undefined>,
  ): Promise<void> {
    const judged = await judging;
    // The page being answered counts as soon as it is asked for; a failed read counts it too.
    listing.requests = 1;
    for await (const page of detectedPages(this.client, zoneId, kind, status, hosts, this.perPage)) {
      if (this.disposed) return;
      listing.append(page.map(({ host, item }) => rowOf(host, item)));
      listing.requests += 1;
      if (judged !== undefined && judged.ended === undefined) judgeAhead(judged, kind, page);
    }
    listing.requests = Math.max(1, Math.ceil(listing.count / this.perPage));
  }

  /**
   * The zone's live policies listed ahead, for the review of the zone to use as its own list of
   * them; `undefined` when that listing failed, or the read ahead was disposed of or read no such zone.
   */
  async livePolicies(zoneId: string): Promise<PageSecurityPolicy[] | undefined> {
    const zone = this.zones.get(zoneId);
    if (this.disposed || zone === undefined || zone.liveUsed) return undefined;
    try {
      const listed = await zone.live;
      zone.liveUsed = true;
      return listed;
    } catch {
      return undefined;
    }
  }

  /**
   * The judgement of the zone's items made as they were read, for a review of `zone` (made with
   * `zonePoliciesOf`) judging with `sampleSize` and `acceptBlocked`, once {@link take} has given the zone's listings:
   * `undefined` unless the zone has the same key, no judging ahead ended, and `acceptBlocked`
   * accepts none of the blocked scripts asked about.
   */
  judgedAhead(
    zoneId: string,
    zone: ZonePolicies,
    sampleSize: number | undefined,
    acceptBlocked: Acceptance | undefined,
  ): ZoneImpactEvaluator | undefined {
    const judged = this.zones.get(zoneId)?.judged;
    if (this.disposed || judged === undefined || judged.ended !== undefined) return undefined;
    if (zoneKey(judged.zone, undefined) !== zoneKey(zone, sampleSize)) return undefined;
    for (const url of judged.asked) if (acceptBlocked?.(url) !== undefined) return undefined;
    return judged.evaluator;
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

  /** The list requests no review used, once their reads have ended: the listings of the zones no review took, and their live policies' lists. */
  async unusedRequests(): Promise<number> {
    let requests = 0;
    for (const zone of this.zones.values()) {
      if (!zone.liveUsed) requests += 1;
      if (zone.taken) continue;
      await zone.done.catch(() => undefined);
      for (const listing of zone.listings.values()) requests += listing.requests;
    }
    return requests;
  }

  /** Stops reading and closes the files. */
  dispose(): void {
    this.disposed = true;
    for (const zone of this.zones.values()) {
      zone.judged = undefined;
      for (const listing of zone.listings.values()) listing.close();
    }
  }
}

/**
 * Judges a page of `kind` as the review would (`judgeListed` of `../review/plan.ts`), or ends the
 * judging ahead at a script whose verdict depends on its pages, which the review would read.
 */
function judgeAhead(judged: JudgedAhead, kind: DetectedKind, page: readonly ListedItem[]): void {
  for (const { host, item } of page) {
    const judge =
      judged.evaluator.judge(FETCH_KIND[kind], host) ?? judged.evaluator.judge(FETCH_KIND[kind], host.toLowerCase());
    if (judge === undefined) continue;
    if (kind === 'scripts' && judge.dependsOnPages(item)) {
      judged.ended = `the verdict on ${item.url} depends on its pages`;
      return;
    }
    judge.add(item);
    if (judged.ended !== undefined) return;
  }
}
