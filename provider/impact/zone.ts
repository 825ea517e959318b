import type { PageSecurityPolicy } from '../client/page-security';
import {
  DEFAULT_SAMPLE_SIZE,
  MALICIOUS_LINES_KEPT,
  type Acceptance,
  type Baseline,
  type EvaluatorOptions,
  type LivePolicy,
  type PolicyText,
  type ZonePolicies,
} from './evaluate';
import type { PolicyUnderReview } from './model';

/**
 * A zone's CSP policies as the review judges them (`ZonePolicies` of `./evaluate.ts`), made the one
 * way from the stack's policies of the zone and the zone's live policies, whether the review makes
 * them at the analysis (`../review/plan.ts`) or the read ahead while the program runs, from the
 * previous state (`./read-ahead.ts`); and the key that tells when the two judge alike.
 */

/** A live policy as the review reads it. */
export function livePolicyOf(found: PageSecurityPolicy): LivePolicy {
  return {
    id: found.id,
    policy: {
      action: found.action,
      enabled: found.enabled === 'true',
      expression: found.expression,
      value: found.value,
    },
  };
}

function baselineOf(policy: PolicyUnderReview, live: ReadonlyMap<string, LivePolicy>): Baseline {
  if (policy.replaces === 'none') return { kind: 'none' };
  if ('unknown' in policy.replaces) return { kind: 'unknown', reason: policy.replaces.unknown };
  const found = live.get(policy.replaces.id);
  // Gone from the service (deleted outside the stack): the change recreates it.
  if (found === undefined) return { kind: 'none' };
  return { kind: 'live', ...found };
}

/**
 * `policies` in the order a zone's are judged in: their keys' (the URNs). The engine gives the
 * review the program's resources in the program's order, and the read ahead knows the previous
 * state's; judged in one order, the two judge alike ({@link zoneKey}) whatever order each came in.
 */
export function inJudgingOrder<Policy extends Pick<PolicyUnderReview, 'key'>>(policies: readonly Policy[]): Policy[] {
  return [...policies].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * The zone's policies to judge: `policies` (the stack's of the zone) against `listed` (every live
 * policy of the zone), the stack managing `managedPolicyIds` (its state's) and those the policies
 * replace; the zone's other live policies stay, headers beside the stack's. The proposed policies
 * come {@link inJudgingOrder}.
 */
export function zonePoliciesOf(
  policies: readonly PolicyUnderReview[],
  listed: readonly PageSecurityPolicy[],
  managedPolicyIds: readonly string[],
): ZonePolicies {
  const live = new Map(listed.map((policy) => [policy.id, livePolicyOf(policy)]));
  const replaced = policies.flatMap(({ replaces }) =>
    typeof replaces === 'object' && 'id' in replaces ? [replaces.id] : [],
  );
  return {
    proposed: inJudgingOrder(policies).map((policy) => ({
      name: policy.name,
      policy: policy.policy,
      baseline: baselineOf(policy, live),
    })),
    live: [...live.values()],
    managed: new Set([...managedPolicyIds, ...replaced]),
  };
}

/**
 * The options a zone is judged with: `sampleSize` items kept per list, the blocked scripts
 * `acceptBlocked` accepts, and every blocked connection kept (the pack accepts those after the
 * judging: `acceptBlocked` of `../review/pack-analysis.ts`'s policies).
 */
export function zoneOptions(sampleSize: number | undefined, acceptBlocked: Acceptance | undefined): EvaluatorOptions {
  return {
    ...(sampleSize !== undefined ? { sampleSize } : {}),
    ...(acceptBlocked ? { scripts: { acceptBlocked } } : {}),
    connections: { notAllowedKept: MALICIOUS_LINES_KEPT },
  };
}

/**
 * What a zone's judgement depends on beside the items judged and the answers of its
 * `acceptBlocked`, as one text: two judgements of one zone with the same key, the same items and
 * the same answers come to the same impacts (the order items are added in changes nothing).
 */
export function zoneKey(zone: ZonePolicies, sampleSize: number | undefined): string {
  // Fields in one order, whatever order the objects were made with.
  const text = ({ action, enabled, expression, value }: PolicyText) => [action, enabled, expression, value];
  const baseline = (baseline: Baseline) =>
    baseline.kind === 'live'
      ? [baseline.kind, baseline.id, text(baseline.policy)]
      : baseline.kind === 'unknown'
        ? [baseline.kind, baseline.reason]
        : [baseline.kind];
  return JSON.stringify([
    zone.proposed.map((proposed) => [proposed.name, text(proposed.policy), baseline(proposed.baseline)]),
    zone.live.map((live) => [live.id, text(live.policy)]),
    'unknown' in zone.managed ? zone.managed.unknown : [...zone.managed].sort(),
    sampleSize ?? DEFAULT_SAMPLE_SIZE,
  ]);
}
