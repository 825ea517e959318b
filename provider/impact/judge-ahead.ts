import type { PageSecurityPolicy } from '../client/page-security';
import { DETECTED_STATUSES } from '../client/page-security';
import { ZoneImpactEvaluator, type Acceptance, type ZonePolicies } from './evaluate';
import { listedJudge, type DetectedKind, type DetectedStatus, type ListedItem } from './listed';
import type { PolicyUnderReview } from './model';
import { zoneKey, zoneOptions, zonePoliciesOf } from './zone';
import { resourceOf, stackPolicies, stackPolicyIds } from '../stack/export';

/**
 * The review's judging ahead (issue 30): a zone read ahead (`./read-ahead.ts`) judged against the
 * previous state's CSP policies, which are what the proposed ones are when the change leaves them
 * alone (a nightly review, a change to anything else). Judged then, page by page, the zone's items
 * are judged while the engine still runs the program's resources, not after it: on a zone of
 * 200,000 scripts, that judging was most of what the review added to a preview after the program
 * had run (bench/RESULTS.md, issue 30).
 *
 * The engine gives a policy pack each resource's inputs as the program registers it (`Analyze`),
 * long before `AnalyzeStack`; the pack's resource policy that reports nothing hears them
 * (`../pack/pack.ts`) and tells {@link JudgeAhead.declared}. A zone is judged once read and once
 * the program's code has begun to declare its resources (the stack's own resource comes before the
 * program is type-checked: judged then, the zone would take the cores from it), and not, or no
 * further, once a policy of the zone is declared otherwise, or one the previous state does not
 * have. When the zone the review is given has the same key (`zoneKey` of `./zone.ts`: the same
 * policies, live policies and managed ids) and its `acceptBlocked` answers every blocked script
 * asked about as the judging ahead did (nothing accepted), the review takes that judgement
 * ({@link JudgeAhead.judged}); otherwise it judges the zone itself from what was read. A script
 * whose verdict depends on its pages, or more than {@link MAX_ASKED} blocked scripts, ends the
 * judging ahead.
 */

/** Blocked scripts the judging ahead asks about (and keeps, to ask the review's acceptance again), at most. */
export const MAX_ASKED = 10_000;

/**
 * The previous state's CSP policies by zone, as a review would be given them if the change left
 * them alone, and the ids of every live policy the stack manages: what the judging ahead judges with.
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

/** A zone as read ahead: its live policies, and the pages of each of its listings. */
export interface ZoneRead {
  live: readonly PageSecurityPolicy[];
  pages(kind: DetectedKind, status: DetectedStatus): Iterable<ListedItem[]>;
}

/** One zone's judging ahead. */
interface Judging {
  /** The previous state's policies of the zone, by URN. */
  expected: ReadonlyMap<string, PolicyUnderReview>;
  /** A policy of the zone was declared otherwise, or one the previous state does not have. */
  changed: boolean;
  /** The zone, once read. */
  read?: ZoneRead;
  /** Its judgement, once begun. */
  judged?: Judged;
}

/** A zone's items judged once read, against its policies of the previous state. */
interface Judged {
  zone: ZonePolicies;
  evaluator: ZoneImpactEvaluator;
  /** The blocked scripts asked about, each answered as not accepted. */
  asked: Set<string>;
  /** Why the judging ahead stopped: the review judges the zone itself. */
  ended?: string;
  /** Settles when the judging has ended, every item judged or not. */
  done: Promise<void>;
}

/** The type token of a stack's own resource. */
const STACK_TYPE = 'pulumi:pulumi:Stack';

/** The zones of a {@link Speculation} judged ahead once read and declared as they were; see the module's comment. */
export class JudgeAhead {
  private readonly zones = new Map<string, Judging>();
  /** Whether the program has begun to declare its resources ({@link declared}). */
  private declaring = false;
  private disposed = false;

  constructor(private readonly speculation: Speculation | undefined) {
    for (const [zoneId, policies] of speculation?.policies ?? []) {
      if (policies.length > 0)
        this.zones.set(zoneId, { expected: new Map(policies.map((policy) => [policy.key, policy])), changed: false });
    }
  }

  /** Zone `zoneId` is read: judged now if the program has begun to declare its resources, else once it does. */
  read(zoneId: string, read: ZoneRead): void {
    const zone = this.zones.get(zoneId);
    if (zone === undefined || zone.read !== undefined) return;
    zone.read = read;
    this.begin(zone);
  }

  /**
   * Hears a resource the program declares (the engine's `Analyze` call, with the resource's type
   * token and, for a CSP policy, its inputs; other resources' are not read): the zones read are
   * judged from the first other than the stack's own; a CSP policy of a zone declared otherwise
   * than the previous state has it, or one the previous state does not have, stops the zone's
   * judging, or keeps it from starting.
   */
  declared(urn: string, type: string, inputs: Readonly<Record<string, unknown>>): void {
    if (this.disposed) return;
    if (resourceOf(type) === 'CspPolicy') {
      const zoneId = typeof inputs.zoneId === 'string' ? inputs.zoneId.toLowerCase() : undefined;
      for (const [id, zone] of this.zones) {
        const expected = zone.expected.get(urn);
        if (expected !== undefined ? !declaredAs(expected, inputs) : zoneId === id) {
          zone.changed = true;
          if (zone.judged !== undefined) zone.judged.ended ??= 'a policy of the zone is declared otherwise';
        }
      }
    }
    if (this.declaring || type === STACK_TYPE) return;
    this.declaring = true;
    for (const zone of this.zones.values()) this.begin(zone);
  }

  /** Starts judging `zone` if it is read, the program declares, and nothing of the zone was declared otherwise. */
  private begin(zone: Judging): void {
    if (this.disposed || !this.declaring || zone.read === undefined || zone.judged !== undefined || zone.changed)
      return;
    const read = zone.read;
    const policies = zonePoliciesOf([...zone.expected.values()], read.live, this.speculation!.managedPolicyIds);
    const asked = new Set<string>();
    const judged: Judged = { zone: policies, asked, evaluator: undefined!, done: Promise.resolve() };
    const acceptBlocked: Acceptance = (url) => {
      asked.add(url);
      if (asked.size > MAX_ASKED) judged.ended = `more than ${MAX_ASKED} blocked scripts`;
      return undefined;
    };
    judged.evaluator = new ZoneImpactEvaluator(policies, zoneOptions(undefined, acceptBlocked));
    // A page per turn of the event loop: the engine's calls are answered between pages.
    judged.done = (async () => {
      for (const kind of ['scripts', 'connections'] as const) {
        for (const status of DETECTED_STATUSES) {
          for (const page of read.pages(kind, status)) {
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
    zone.judged = judged;
  }

  /** Settles once every judging begun has ended. */
  async settled(): Promise<void> {
    await Promise.all([...this.zones.values()].map((zone) => zone.judged?.done ?? Promise.resolve()));
  }

  /**
   * The judgement of the zone's items made ahead, for a review of `zone` (made with
   * `zonePoliciesOf`) judging with `sampleSize` and `acceptBlocked`, once the judging has ended:
   * `undefined` unless the zone was judged with the same key, to its end, and `acceptBlocked`
   * accepts none of the blocked scripts asked about. A judging of another key is stopped.
   */
  async judged(
    zoneId: string,
    zone: ZonePolicies,
    sampleSize: number | undefined,
    acceptBlocked: Acceptance | undefined,
  ): Promise<ZoneImpactEvaluator | undefined> {
    const judged = this.zones.get(zoneId)?.judged;
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

  /** Stops every judging at its next page. */
  dispose(): void {
    this.disposed = true;
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
function judgePage(judged: Judged, kind: DetectedKind, page: readonly ListedItem[]): void {
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
