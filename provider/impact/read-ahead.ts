import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HttpClient } from '../client/http';
import { DETECTED_STATUSES, listPolicies, type PageSecurityPolicy } from '../client/page-security';
import { parsePolicyExpression } from '../../rules/expression';
import { ZoneImpactEvaluator, type Acceptance, type ZonePolicies } from './evaluate';
import { detectedPages, listedJudge, type DetectedKind, type DetectedStatus, type ListedItem } from './listed';
import { FileListing, type ReadListing } from './listing-file';
import { builtListingThread, ListingThread, type ListingSpec } from './listing-thread';
import type { PolicyUnderReview } from './model';
import { zoneKey, zoneOptions, zonePoliciesOf } from './zone';
import { exportedResources, resourceOf, stackPolicies, stackPolicyIds } from '../stack/export';

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
 * whatever the number of items (and nothing on disk once they are open: {@link FileListing}). It
 * lists in a thread of the lowest priority (`./listing-thread.ts`), so that the program, which
 * type-checks itself meanwhile, keeps the cores, and takes over what that thread has not read
 * once the review needs it. The review of a zone then judges from those files when they cover
 * its hosts, and lists the service itself otherwise; listings no review used are counted in the
 * requests and stated in the bound. The zone's live policies are listed first, for the review to
 * use as its own list of them.
 *
 * And once it has read a zone, it judges it against the previous state's policies (issue 30): they
 * are what the proposed ones are when the change leaves them alone (a nightly review, a change to
 * anything else). Judged then, page by page from the files, the zone's items are judged while the
 * engine still runs the program's resources, not after it: on a zone of 200,000 scripts, that
 * judging was most of what the review added to a preview after the program had run
 * (bench/RESULTS.md, issue 30). The engine gives a policy pack each resource's inputs as the
 * program registers it (`Analyze`), long before `AnalyzeStack`, and {@link ReadAhead.declared}
 * hears them: a zone is judged ahead once the program's code has begun to declare its resources
 * (a CSP policy whose value is written in the program is declared with the first of them), while
 * the engine runs their providers, and not, or no further, once a policy of the zone is declared
 * otherwise, or one the previous state does not have, so a change to a CSP policy costs little
 * more. When the zone the review is given has the
 * same key (`zoneKey` of `./zone.ts`: the same policies, live policies and managed ids) and its
 * `acceptBlocked` answers every blocked script asked about as the judging ahead did (nothing
 * accepted), the review takes that judgement ({@link ReadAhead.judgedAhead}); otherwise it judges
 * the zone itself from the files. A script whose verdict depends on its pages, or more than
 * {@link MAX_ASKED} blocked scripts, ends the judging ahead.
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

/** A zone's items judged once read, against its policies of the previous state. */
interface JudgedAhead {
  zone: ZonePolicies;
  evaluator: ZoneImpactEvaluator;
  /** The blocked scripts asked about, each answered as not accepted. */
  asked: Set<string>;
  /** Why the judging ahead stopped: the review judges the zone itself. */
  ended?: string;
  /** Settles when the judging has ended, every item judged or not. */
  done: Promise<void>;
}

/** What the program has declared of a zone's policies of the previous state ({@link ReadAhead.declared}). */
interface Declarations {
  /** The previous state's policies of the zone, by URN. */
  expected: ReadonlyMap<string, PolicyUnderReview>;
  /** A policy of the zone was declared otherwise, or one the previous state does not have. */
  changed: boolean;
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
  /** `undefined` without a speculation of the zone. */
  declarations: Declarations | undefined;
  /** Its live policies, once they and every listing are read. */
  listed: PageSecurityPolicy[] | undefined;
  /** The judging of its items, once read, unless a policy of the zone was declared otherwise first. */
  judged: JudgedAhead | undefined;
}

/** The type token of a stack's own resource. */
const STACK_TYPE = 'pulumi:pulumi:Stack';

const listingKey = (kind: DetectedKind, status: DetectedStatus) => `${kind} ${status}`;

/** One listing being read ahead, by the listing thread or by this one. */
interface Reading {
  listing: FileListing;
  spec: ListingSpec;
  /** Calls the listing thread made and gave no page for, once this thread took the listings over: counted as asked. */
  askedAhead: number;
  settled: boolean;
  /** Ends the listing's read, with its failure if it failed; once. */
  settle(failure?: Error): void;
}

export type { ReadListing } from './listing-file';

/**
 * The listings of the zones and hosts the previous state names, read from when {@link start} is
 * called; {@link take} gives a zone's to the review that covers no other host.
 */
export class ReadAhead {
  private readonly zones = new Map<string, ZoneRead>();
  private disposed = false;
  /** Whether the program has begun to declare its resources ({@link declared}). */
  private declaring = false;
  private readonly readings: Reading[] = [];
  /** Each zone's read, then its judging ahead started if it may start then: settles, never rejects. */
  private readonly readThenJudged: Array<Promise<void>> = [];
  private pagesFromThread = 0;
  /** The thread reading the listings, until they end or this thread takes them over ({@link hurry}). */
  private thread: ListingThread | undefined;

  constructor(
    private readonly client: HttpClient,
    private readonly targets: ReadAheadTargets,
    private readonly perPage: number,
    /** What to judge a zone with once read, unless the program declares it otherwise; none judged ahead without it. */
    private readonly speculation?: Speculation,
    /**
     * The module the listings are read by, in a thread of the lowest priority
     * (`./listing-thread.ts`), or `false` to read them on this thread. Default: the built module,
     * where this one is built; this thread under ts-jest, which runs the sources.
     */
    private readonly listingThread: string | false = builtListingThread() ?? false,
  ) {}

  /**
   * Starts every zone's reading: its live policies listed, and its four listings side by side,
   * each page asked for while the last is kept, in the listing thread; a zone read is judged against the
   * {@link Speculation}'s policies once the program declares its resources, unless it declares one
   * of those policies otherwise ({@link declared}).
   */
  start(): this {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-review-'));
    let index = 0;
    for (const [zoneId, hosts] of this.targets) {
      const live = listPolicies(this.client, zoneId);
      // Its failure is the review's to meet, when it lists the policies itself.
      live.catch(() => undefined);
      const speculated = this.speculation?.policies.get(zoneId) ?? [];
      const zone: ZoneRead = {
        hosts,
        live,
        liveUsed: false,
        listings: new Map(),
        done: Promise.resolve(),
        taken: false,
        declarations:
          speculated.length > 0
            ? {
                expected: new Map(speculated.map((policy) => [policy.key, policy])),
                changed: false,
              }
            : undefined,
        listed: undefined,
        judged: undefined,
      };
      const reads: Array<Promise<void>> = [];
      for (const kind of ['scripts', 'connections'] as const) {
        for (const status of DETECTED_STATUSES) {
          const listing = new FileListing(path.join(dir, `${index}-${kind}-${status}`));
          zone.listings.set(listingKey(kind, status), listing);
          reads.push(this.reading(listing, { zoneId, hosts: [...hosts], kind, status }));
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
      this.readThenJudged.push(
        Promise.all([live, zone.done]).then(
          ([listed]) => this.judgeOnceRead(zone, listed),
          () => undefined,
        ),
      );
      this.zones.set(zoneId, zone);
    }
    // Every file is open and out of the folder: the folder goes too.
    fs.rmSync(dir, { recursive: true, force: true });
    this.startThread();
    return this;
  }

  /** A listing to read: by the listing thread, once started, else here; settles when it has ended. */
  private reading(listing: FileListing, spec: ListingSpec): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const reading: Reading = {
        listing,
        spec,
        askedAhead: 0,
        settled: false,
        settle: (failure) => {
          if (reading.settled) return;
          reading.settled = true;
          if (failure === undefined) resolve();
          else reject(failure);
        },
      };
      // The page being answered counts as soon as it is asked for; a failed read counts it too.
      listing.requests = 1;
      this.readings.push(reading);
      if (this.listingThread === false) void this.readHere(reading);
    });
  }

  /** Has the listing thread read every listing, each page kept as it comes; this thread reads them if it cannot start. */
  private startThread(): void {
    if (this.listingThread === false || this.readings.length === 0) return;
    const readings = this.readings;
    try {
      this.thread = new ListingThread(
        this.listingThread,
        this.client.settings,
        this.client.budget,
        this.perPage,
        readings.map((reading) => reading.spec),
        {
          page: (index, bytes, items) => {
            const { listing, settled } = readings[index]!;
            if (settled || this.disposed) return;
            this.pagesFromThread += 1;
            listing.appendLine(bytes, items);
            listing.requests = listing.pagesKept + 1;
          },
          end: (index) => {
            const reading = readings[index]!;
            reading.listing.requests = reading.listing.pagesKept;
            reading.settle();
          },
          failed: (index, message) => readings[index]!.settle(new Error(message)),
          stopped: () => this.hurry(),
        },
      );
    } catch {
      for (const reading of readings) void this.readHere(reading);
    }
  }

  /**
   * Takes the listings the thread has not ended over, on this thread, each from the page after the
   * last it gave: the review needs them now, and a thread of the lowest priority may wait long on
   * a busy machine. The calls the thread made and gave no page for (asked ahead, or given too
   * late) are counted as asked, on the first listing taken over: the review states the sum.
   */
  private hurry(): void {
    const thread = this.thread;
    if (thread === undefined) return;
    this.thread = undefined;
    thread.stop();
    const taken = this.readings.filter((reading) => !reading.settled);
    if (taken.length > 0) taken[0]!.askedAhead = Math.max(0, thread.requests - this.pagesFromThread);
    for (const reading of taken) void this.readHere(reading, reading.listing.pagesKept + 1);
  }

  /**
   * Hears a resource the program declares (the engine's `Analyze` call, with the resource's type
   * token and, for a CSP policy, its inputs; other resources' are not read): the zones read are
   * judged ahead from the first other than the stack's own; a CSP policy of a zone declared otherwise than the previous state
   * has it, or one the previous state does not have, stops the zone's judging ahead, or keeps it
   * from starting.
   */
  declared(urn: string, type: string, inputs: Readonly<Record<string, unknown>>): void {
    if (this.disposed) return;
    if (resourceOf(type) === 'CspPolicy') {
      const zoneId = typeof inputs.zoneId === 'string' ? inputs.zoneId.toLowerCase() : undefined;
      for (const [id, zone] of this.zones) {
        const declarations = zone.declarations;
        if (declarations === undefined) continue;
        const expected = declarations.expected.get(urn);
        if (expected !== undefined ? !declaredAs(expected, inputs) : zoneId === id) {
          declarations.changed = true;
          if (zone.judged !== undefined) zone.judged.ended ??= 'a policy of the zone is declared otherwise';
        }
      }
    }
    // The stack's own resource comes as the program starts, before its code runs (ts-node
    // type-checks it first, seconds on 2 cores): judged then, the zone would take the cores from it.
    if (this.declaring || type === STACK_TYPE) return;
    this.declaring = true;
    for (const zone of this.zones.values()) if (zone.listed !== undefined) this.judgeOnceRead(zone, zone.listed);
  }

  /**
   * Starts judging `zone` ahead, now that it is read (`listed`: its live policies), once the program
   * declares its resources, unless it is judged already or a policy of it was declared otherwise.
   */
  private judgeOnceRead(zone: ZoneRead, listed: PageSecurityPolicy[]): void {
    zone.listed = listed;
    const declarations = zone.declarations;
    if (
      this.disposed ||
      !this.declaring ||
      zone.judged !== undefined ||
      declarations === undefined ||
      declarations.changed
    )
      return;
    zone.judged = this.judging(zone, listed);
  }

  /**
   * Judges `zone`'s items read ahead against the previous state's policies and `listed`, its live
   * policies, page by page, the engine's calls answered between pages.
   */
  private judging(zone: ZoneRead, listed: readonly PageSecurityPolicy[]): JudgedAhead {
    const policies = [...zone.declarations!.expected.values()];
    const policiesOfZone = zonePoliciesOf(policies, listed, this.speculation!.managedPolicyIds);
    const asked = new Set<string>();
    const judged: JudgedAhead = { zone: policiesOfZone, asked, evaluator: undefined!, done: Promise.resolve() };
    const acceptBlocked: Acceptance = (url) => {
      asked.add(url);
      if (asked.size > MAX_ASKED) judged.ended = `more than ${MAX_ASKED} blocked scripts`;
      return undefined;
    };
    judged.evaluator = new ZoneImpactEvaluator(policiesOfZone, zoneOptions(undefined, acceptBlocked));
    judged.done = (async () => {
      for (const kind of ['scripts', 'connections'] as const) {
        for (const status of DETECTED_STATUSES) {
          for (const page of zone.listings.get(listingKey(kind, status))!.pages()) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            if (this.disposed) judged.ended ??= 'disposed of';
            if (judged.ended !== undefined) return;
            judgePage(judged, kind, page);
          }
        }
      }
    })().catch((error: unknown) => {
      judged.ended ??= `failed: ${(error as Error).message}`;
    });
    return judged;
  }

  /** Reads a listing on this thread, from `firstPage` on: a request per page, the one being answered counted. */
  private async readHere(reading: Reading, firstPage = 1): Promise<void> {
    const { listing, spec } = reading;
    const { zoneId, kind, status, hosts } = spec;
    listing.requests = listing.pagesKept + reading.askedAhead + 1;
    try {
      for await (const page of detectedPages(this.client, zoneId, kind, status, hosts, this.perPage, firstPage)) {
        if (this.disposed) break;
        listing.append(page);
        listing.requests += 1;
      }
      if (!this.disposed) listing.requests = listing.pagesKept + reading.askedAhead;
      reading.settle();
    } catch (error) {
      reading.settle(error as Error);
    }
  }

  /**
   * Settles once every zone is read and judged ahead as far as the program's declarations so far let
   * it be: its judging ahead ended, or not begun. What a caller that asks what was judged ahead waits
   * for (the tests), rather than for some time.
   */
  async judgingSettled(): Promise<void> {
    await Promise.all(this.readThenJudged);
    await Promise.all([...this.zones.values()].map((zone) => zone.judged?.done ?? Promise.resolve()));
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
   * The judgement of the zone's items made ahead, for a review of `zone` (made with
   * `zonePoliciesOf`) judging with `sampleSize` and `acceptBlocked`, once {@link take} has given
   * the zone's listings and the judging ahead has ended: `undefined` unless the zone was judged
   * ahead with the same key, to its end, and `acceptBlocked` accepts none of the blocked scripts
   * asked about. A judging ahead of another key is stopped: the review judges the zone itself.
   */
  async judgedAhead(
    zoneId: string,
    zone: ZonePolicies,
    sampleSize: number | undefined,
    acceptBlocked: Acceptance | undefined,
  ): Promise<ZoneImpactEvaluator | undefined> {
    const read = this.zones.get(zoneId);
    if (this.disposed || read === undefined) return undefined;
    try {
      // Read to its end: its judging ahead may not have started yet.
      this.hurry();
      const [listed] = await Promise.all([read.live, read.done]);
      this.judgeOnceRead(read, listed);
    } catch {
      return undefined;
    }
    const judged = read.judged;
    if (this.disposed || judged === undefined || judged.ended !== undefined) return undefined;
    if (zoneKey(judged.zone, undefined) !== zoneKey(zone, sampleSize)) {
      judged.ended = 'the review judges other policies';
      return undefined;
    }
    await judged.done;
    if (this.disposed || judged.ended !== undefined) return undefined;
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
    this.hurry();
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

  /** Pages the listing thread has given (the others were read on this thread). */
  get threadPages(): number {
    return this.pagesFromThread;
  }

  /**
   * Settles once every listing has ended, read by the listing thread or this one, failed or not,
   * without taking them over ({@link hurry}): what a review given them now would get.
   */
  async ended(): Promise<void> {
    await Promise.allSettled([...this.zones.values()].map((zone) => zone.done));
  }

  /** The list requests no review used, once their reads have ended: the listings of the zones no review took, and their live policies' lists. */
  async unusedRequests(): Promise<number> {
    this.hurry();
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
    this.thread?.stop();
    this.thread = undefined;
    for (const zone of this.zones.values()) {
      zone.judged = undefined;
      for (const listing of zone.listings.values()) listing.close();
    }
  }
}

/** Whether a CSP policy's declared `inputs` are those of `expected`, as `reviewInputOf` (../review/pack-input.ts) reads them. */
function declaredAs(expected: PolicyUnderReview, inputs: Readonly<Record<string, unknown>>): boolean {
  const { action, expression, value } = expected.policy;
  return (
    typeof inputs.zoneId === 'string' &&
    inputs.zoneId.toLowerCase() === expected.zoneId &&
    inputs.action === action &&
    inputs.expression === expression &&
    inputs.value === value &&
    (inputs.enabled !== false) === expected.policy.enabled
  );
}

/**
 * Judges a page of `kind` as the review would (`judgeListed` of `../review/plan.ts`), or ends the
 * judging ahead at a script whose verdict depends on its pages, which the review would read.
 */
function judgePage(judged: JudgedAhead, kind: DetectedKind, page: readonly ListedItem[]): void {
  for (const { host, item } of page) {
    const judge = listedJudge(judged.evaluator, kind, host);
    if (judge === undefined) continue;
    if (kind === 'scripts' && judge.dependsOnPages(item)) {
      judged.ended = `the verdict on ${item.url} depends on its pages`;
      return;
    }
    judge.add(item);
    if (judged.ended !== undefined) return;
  }
}
