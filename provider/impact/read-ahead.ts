import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { DETECTED_STATUSES } from '../client/detected-statuses';
import { clientFor } from '../client/shared';
import { USUAL_PRIORITY_ARG } from '../helpers/priority';
import type { PageSecurityPolicy } from '../client/page-security';
import type { Settings } from '../settings';
import { parsePolicyExpression } from '../../rules/expression';
import type { Acceptance, ZoneImpactEvaluator, ZonePolicies } from './evaluate';
import { JudgeAhead, type Speculation } from './judge-ahead';
import { detectedPages, type DetectedKind, type DetectedStatus } from './listed';
import { FileListing, type ReadListing } from './listing-file';
import { exportedResources } from '../stack/export';

/** The read ahead's child process at the lowest priority, or at its parent's. */
export type ReadAheadPriority = 'lowest' | 'usual';

/**
 * The review's read ahead: the detected lists read while the engine runs the program, from what
 * the previous state names, so that the judging that must wait for the proposed policies does not
 * also wait for the service.
 *
 * The engine gives a policy pack the proposed values at the end, in `AnalyzeStack`, after the
 * program has run (about 3 s of a 3.2 s preview in bench/RESULTS.md, issue 20), and the pack spent
 * that time idle. The state before the change (`pulumi stack export`, which `edgeguard-review`
 * gives the pack: `EDGEGUARD_REVIEW_BASELINE`) names the zones and the hosts of the stack's CSP
 * policies; a change to a policy's value, the usual one, keeps both. So from the pack's start
 * (`../pack/pack.ts`), it lists each zone's live policies, then the scripts and connections of
 * those hosts (the plan's listings, `../review/plan.ts`), in a child process at the lowest priority
 * with its own client (`./read-ahead-child.ts`), into files the pack opened and gives it, in lines
 * of at most 250 items, so that memory holds one page whatever the number of items (and nothing on
 * disk once they are open: {@link FileListing}). A zone read is judged ahead against the previous
 * state's policies (`./judge-ahead.ts`), in the pack.
 *
 * The review of a zone takes its listings ({@link ReadAhead.take}) when they cover its hosts, and
 * lists the service itself otherwise, or when the read ahead failed (a listing refused, a line
 * that cannot be written, no folder for the files): the read ahead never fails the review. Once the
 * review needs what the child has not read yet, it ends the child, which at the lowest priority
 * on a busy machine would hold it up for minutes, and reads on from where each listing was left
 * (as it does when the child ended early). Each listing counts the requests its child process says
 * it asked for, and those the review asked to read it on;
 * the listings no review takes are aborted once the review is done with the zones
 * ({@link ReadAhead.unusedRequests}), and what they asked is counted in the requests and stated in
 * the bound.
 */

/**
 * The start of the name of the folder the read ahead makes its files in (and removes once they are
 * open): its own, apart from the review's other folders, so that what it leaves can be told apart.
 */
export const READ_AHEAD_FOLDER = 'edgeguard-review-ahead-';

/**
 * The child process's module (`./read-ahead-child.ts`), compiled: beside this one under `dist/`, or,
 * run from the sources (the tests), the one the build put there (a process runs JavaScript).
 */
const CHILD =
  path.extname(__filename) === '.js'
    ? path.join(__dirname, 'read-ahead-child.js')
    : path.join(__dirname, '..', '..', 'dist', 'provider', 'impact', 'read-ahead-child.js');

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

/** One zone's listings, read ahead on its hosts. */
interface ZoneReading {
  hosts: ReadonlySet<string>;
  /** The zone's live policies, listed before its items. */
  live: Promise<PageSecurityPolicy[]>;
  /** Its list asked for, as its child process says. */
  liveAsked: boolean;
  liveUsed: boolean;
  listings: Map<string, FileListing>;
  /** Stops the zone's listings: no page is asked for after. */
  stop: () => void;
  /**
   * Settles once its live policies and every listing are read, or left unfinished by the child
   * process's end: whether all were read (and the zone given to the judging ahead). Rejects with
   * the first listing that failed.
   */
  done: Promise<boolean>;
  /** {@link done} has settled. */
  settled: boolean;
  taken: boolean;
}

/** The listings of a zone, in the order the child process is given their files. */
const LISTINGS = (['scripts', 'connections'] as const).flatMap((kind) =>
  DETECTED_STATUSES.map((status): [DetectedKind, DetectedStatus] => [kind, status]),
);

const listingKey = (kind: DetectedKind, status: DetectedStatus) => `${kind} ${status}`;

/** What the read ahead tells its child process (`./read-ahead-child.ts`): what to read, once. */
export interface ReadingStart {
  kind: 'start';
  settings: Settings;
  perPage: number;
  zones: Array<{ zoneId: string; hosts: string[] }>;
  /** A zone's listings, in the order of their files. */
  listings: Array<[DetectedKind, DetectedStatus]>;
}
/** What the read ahead tells its child process. */
export type ParentMessage = ReadingStart | { kind: 'abort'; zone: number };
/** What the child process answers: by zone and listing, in the order of {@link ReadingStart}. */
export type ChildMessage =
  | { kind: 'live'; zone: number; policies: PageSecurityPolicy[] }
  | { kind: 'live'; zone: number; error: string }
  | { kind: 'asked live'; zone: number }
  | { kind: 'asked'; listing: number }
  | { kind: 'written'; listing: number; items: number; lines: number[] }
  | { kind: 'ended'; listing: number }
  | { kind: 'ended'; listing: number; error: string };

/** A promise and what settles it. */
function settled<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: Error) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  // A failure is the review's to meet, where it lists for itself; until then it is not unhandled.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export type { ReadListing } from './listing-file';
export { speculationOf, type Speculation } from './judge-ahead';

/**
 * The listings of the zones and hosts the previous state names, read from when {@link start} is
 * called, by a child process at the lowest priority (`./read-ahead-child.ts`) into files this
 * process opened and reads back; {@link take} gives a zone's to the review that covers no other
 * host.
 */
export class ReadAhead {
  private readonly zones = new Map<string, ZoneReading>();
  private readonly judging: JudgeAhead;
  private child: ChildProcess | undefined;
  /** Settles once the child process has ended and everything it said is heard. */
  private closed: Promise<void> = Promise.resolve();
  private disposed = false;

  constructor(
    /** The settings the child process reads with: a client of its own, and its own API budget. */
    private readonly settings: Settings,
    private readonly targets: ReadAheadTargets,
    private readonly perPage: number,
    /** What to judge a zone with once read, unless the program declares it otherwise; none judged ahead without it. */
    speculation?: Speculation,
    /**
     * The child's priority: the lowest, as the pack reads ahead, or this process's (the tests of
     * what the read ahead reads, which a machine whose cores are busy would otherwise hold up for
     * minutes: a process at nice 19 gets about 1% of a core that others want).
     */
    private readonly priority: ReadAheadPriority = 'lowest',
  ) {
    this.judging = new JudgeAhead(speculation);
  }

  /**
   * Starts every zone's reading, in the child process: its live policies listed, and its four
   * listings side by side, each page asked for while the last is kept; each zone read is given to the
   * judging ahead. Without a folder for the files, or a child process, nothing is read: the review
   * reads for itself.
   */
  start(): this {
    const files: Array<[string, ReadonlySet<string>, Map<string, FileListing>]> = [];
    let dir: string | undefined;
    try {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), READ_AHEAD_FOLDER));
      for (const [zoneId, hosts] of this.targets) {
        const listings = new Map<string, FileListing>();
        files.push([zoneId, hosts, listings]);
        for (const [kind, status] of LISTINGS)
          listings.set(listingKey(kind, status), new FileListing(path.join(dir, `${files.length}-${kind}-${status}`)));
      }
      this.child = spawn(process.execPath, [CHILD, ...(this.priority === 'usual' ? [USUAL_PRIORITY_ARG] : [])], {
        stdio: [
          'ignore',
          'ignore',
          'inherit',
          'ipc',
          // The child's descriptors 4 on (`FIRST_LISTING_FD` of `./read-ahead-child.ts`), in the
          // order of `LISTINGS`.
          ...files.flatMap(([, , listings]) => [...listings.values()].map((listing) => listing.descriptor!)),
        ],
        serialization: 'advanced',
      });
    } catch {
      // No folder, a file that cannot be made, or no process: nothing read ahead.
      for (const [, , listings] of files) for (const listing of listings.values()) listing.close();
      return this;
    } finally {
      // Every file is open and out of the folder: the folder goes too.
      if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
    }
    this.reading(this.child, files);
    return this;
  }

  /** Tells `child` to read the zones of `files`, and keeps what it answers. */
  private reading(child: ChildProcess, files: Array<[string, ReadonlySet<string>, Map<string, FileListing>]>): void {
    const lives = files.map(() => settled<PageSecurityPolicy[]>());
    const listings = files.flatMap(([, , zoneListings]) => [...zoneListings.values()]);
    // Each listing's end: read to its end (`complete`), or left by the child's end; a failure rejects.
    const ends = listings.map(() => settled<void>());
    const close = settled<void>();
    this.closed = close.promise;
    /** The child has ended: what it did not read is left to the review, from where it got. */
    let over = false;
    const left = (reason: string) => {
      over = true;
      const error = new Error(`the read ahead ended: ${reason}`);
      for (const live of lives) live.reject(error);
      for (const end of ends) end.resolve();
      close.resolve();
    };
    child.on('message', (message: ChildMessage) => {
      // Nothing after its end: the review reads on from there.
      if (over) return;
      if (message.kind === 'live')
        if ('error' in message) lives[message.zone]?.reject(new Error(message.error));
        else lives[message.zone]?.resolve(message.policies);
      else if (message.kind === 'asked live') this.zones.get(files[message.zone]![0])!.liveAsked = true;
      else if (message.kind === 'asked') listings[message.listing]!.requests += 1;
      else if (message.kind === 'written') listings[message.listing]!.written(message.items, message.lines);
      else if ('error' in message) ends[message.listing]?.reject(new Error(message.error));
      else {
        listings[message.listing]!.complete = true;
        ends[message.listing]?.resolve();
      }
    });
    // Once it has ended and its channel is read to its end ('close'), or could not start ('error'):
    // a promise settled once keeps its value.
    child.on('error', (error) => {
      child.kill('SIGKILL');
      left(error.message);
    });
    child.on('close', (code, signal) => left(`its process exited (${signal ?? code})`));
    files.forEach(([zoneId, hosts, zoneListings], zone) => {
      const reads = [...zoneListings.keys()].map((_, index) => ends[zone * LISTINGS.length + index]!.promise);
      const live = lives[zone]!.promise;
      // Settled once every listing has ended, so that the requests counted are all of them.
      const done = Promise.allSettled([live, ...reads]).then(([liveEnd, ...readEnds]) => {
        reading.settled = true;
        const failure = readEnds.find((end) => end.status === 'rejected');
        if (failure !== undefined) throw failure.reason;
        if (liveEnd.status === 'rejected' || [...zoneListings.values()].some((listing) => !listing.complete))
          return false;
        this.judging.read(zoneId, {
          live: liveEnd.value,
          pages: (kind, status) => zoneListings.get(listingKey(kind, status))!.kept(),
        });
        return true;
      });
      done.catch(() => undefined);
      const stop = () => {
        if (child.connected) child.send({ kind: 'abort', zone } satisfies ParentMessage);
      };
      const reading: ZoneReading = {
        hosts,
        live,
        liveAsked: false,
        liveUsed: false,
        listings: zoneListings,
        stop,
        done,
        settled: false,
        taken: false,
      };
      this.zones.set(zoneId, reading);
    });
    try {
      child.send({
        kind: 'start',
        settings: this.settings,
        perPage: this.perPage,
        zones: files.map(([zoneId, hosts]) => ({ zoneId, hosts: [...hosts] })),
        listings: LISTINGS,
      } satisfies ParentMessage);
    } catch (error) {
      child.kill('SIGKILL');
      left((error as Error).message);
    }
  }

  /**
   * Once the review needs what the child process has not read yet: the program has run, and a child
   * at the lowest priority, on a machine whose cores are busy, would hold the review up for minutes
   * (bench/RESULTS.md, issue 43). The child is ended (a kill, which a stopped or starved process
   * cannot put off), and what it has said is heard to its end; the review reads on from the page after
   * the last each listing wrote ({@link take}).
   */
  private async hurry(): Promise<void> {
    if (this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null)
      this.child.kill('SIGKILL');
    await this.closed;
  }

  /** Hears a resource the program declares, for the judging ahead (`JudgeAhead.declared` of `./judge-ahead.ts`). */
  declared(urn: string, type: string, inputs: Readonly<Record<string, unknown>>): void {
    this.judging.declared(urn, type, inputs);
  }

  /**
   * Settles once every zone is read and judged ahead as far as the program's declarations so far let
   * it be: its judging ahead ended, or not begun. What a caller that asks what was judged ahead waits
   * for (the tests), rather than for some time.
   */
  async judgingSettled(): Promise<void> {
    await this.ended();
    await this.judging.settled();
  }

  /**
   * The zone's live policies listed ahead, for the review of the zone to use as its own list of
   * them (the child process ended first if it is still reading the zone: {@link hurry}); `undefined`
   * when that listing failed or was not done, or the read ahead was disposed of or read no such zone.
   */
  async livePolicies(zoneId: string): Promise<PageSecurityPolicy[] | undefined> {
    const zone = this.zones.get(zoneId);
    if (this.disposed || zone === undefined || zone.liveUsed) return undefined;
    try {
      if (!zone.settled) await this.hurry();
      const listed = await zone.live;
      zone.liveUsed = true;
      return listed;
    } catch {
      return undefined;
    }
  }

  /**
   * The judgement of the zone's items made ahead (`JudgeAhead.judged` of `./judge-ahead.ts`), for
   * a review of `zone` judging with `sampleSize` and `acceptBlocked`, once {@link take} has given
   * the zone's listings: `undefined` when it was not judged ahead, or with other policies.
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
      if (!(await read.done)) return undefined;
    } catch {
      return undefined;
    }
    return this.judging.judged(zoneId, zone, sampleSize, acceptBlocked);
  }

  /**
   * The listings of `zoneId` read ahead, for a review of the zone's policies on `hosts`: once read,
   * or, what the child process has not read yet once the review needs it ({@link hurry}), read on
   * by the review from there, each page asked for counted in its listing. `undefined` when the read
   * ahead did not cover every one of those hosts (its listings are then aborted), a listing failed,
   * or it was given already or disposed of. Items on the zone's other hosts read ahead are in the
   * listings too.
   */
  async take(zoneId: string, hosts: readonly string[]): Promise<Map<string, ReadListing> | undefined> {
    const zone = this.zones.get(zoneId);
    if (this.disposed || zone === undefined || zone.taken) return undefined;
    if (!hosts.every((host) => zone.hosts.has(host))) {
      // The review lists the zone itself: what is still being read would be read for nothing.
      zone.stop();
      return undefined;
    }
    zone.taken = true;
    let complete: boolean;
    try {
      if (!zone.settled) await this.hurry();
      complete = await zone.done;
    } catch {
      // Listed again by the review, which reports the failure if it lasts.
      zone.taken = false;
      return undefined;
    }
    if (!complete) this.readOn(zoneId, zone);
    return zone.listings;
  }

  /** Each listing of `zone` its child process left unfinished, read on from the page after its last. */
  private readOn(zoneId: string, zone: ZoneReading): void {
    const client = clientFor(this.settings);
    for (const [kind, status] of LISTINGS) {
      const listing = zone.listings.get(listingKey(kind, status))!;
      if (listing.complete) continue;
      listing.continueWith(
        detectedPages(client, zoneId, kind, status, [...zone.hosts], this.perPage, {
          asked: () => void (listing.requests += 1),
          firstPage: listing.pagesWritten + 1,
        }),
      );
    }
  }

  /** The listing of one kind and status from {@link take}'s answer. */
  static listing(listings: Map<string, ReadListing>, kind: DetectedKind, status: DetectedStatus): ReadListing {
    return listings.get(listingKey(kind, status))!;
  }

  /** Settles once every listing has ended, read to its end, failed or aborted: what a review given them now would get. */
  async ended(): Promise<void> {
    await Promise.allSettled([...this.zones.values()].map((zone) => zone.done));
  }

  /**
   * The list requests no review used: the listings of the zones no review took, aborted now and
   * counted by the pages they asked for once their child process says they have ended, and their
   * live policies' lists.
   */
  async unusedRequests(): Promise<number> {
    const unused = [...this.zones.values()].filter((zone) => !zone.taken);
    for (const zone of unused) zone.stop();
    await Promise.allSettled(unused.map((zone) => zone.done));
    let requests = 0;
    for (const zone of this.zones.values()) if (zone.liveAsked && !zone.liveUsed) requests += 1;
    for (const zone of unused) for (const listing of zone.listings.values()) requests += listing.requests;
    return requests;
  }

  /** Stops reading and judging, and closes the files. */
  dispose(): void {
    this.disposed = true;
    this.judging.dispose();
    this.child?.kill();
    for (const zone of this.zones.values()) for (const listing of zone.listings.values()) listing.close();
  }
}
