import { LIST_PAGE_BOUNDS, type Dialect } from '../../rules/dialect';
import type { PolicyImpact, PolicyText } from './evaluate';

/**
 * What the review of a change judges and what it finds of its CSP policies and pools, apart from
 * the run that gathers it (`../review/plan.ts`): the lower floors (the payment review, the
 * statements, the formatters) speak of these without loading the review itself.
 */

/** Scripts per list request: the API's largest page (contract: per_page 1..1000). */
export const REVIEW_PER_PAGE = 1000;

/**
 * Scripts per list request in `dialect`: {@link REVIEW_PER_PAGE} within the dialect's page bounds
 * (`LIST_PAGE_BOUNDS`): 1,000 in the spec, 100 at the vendor, where a review lists ten times the
 * pages. Everything that lists for the review (the run, its read ahead, `edgeguard-csp`) takes it,
 * so their pages are the same.
 */
export function reviewPerPage(dialect: Dialect): number {
  return Math.min(REVIEW_PER_PAGE, LIST_PAGE_BOUNDS[dialect].pageSecurity.max);
}

/** Single-script reads per review, at most. */
export const MAX_PAGE_LOOKUPS = 100;

/** Violations per policy whose pages are read for the report (those it lists first), when the list gave only the first. */
export const PAGES_SHOWN_PER_POLICY = 10;

/** A CSP policy the stack declares. */
export interface PolicyUnderReview {
  /** What identifies it in the stack (its URN). */
  key: string;
  /** Its name in the program. */
  name: string;
  zoneId: string;
  policy: PolicyText;
  /**
   * What it replaces: the id of the live policy (looked up in the zone's list), `none` for a
   * policy being created, or `unknown` with the reason.
   */
  replaces: { id: string } | 'none' | { unknown: string };
}

/**
 * How much of a zone's detected lists a review reads (`../review/plan.ts`): `full`, every list of
 * every zone of the stack's policies (a nightly run); `change`, only the zones whose CSP headers
 * the change alters: a zone whose policies the change leaves as they are live is not listed, as
 * no verdict of its can change (a pull request's run).
 */
export type ReviewScope = 'full' | 'change';

/** One policy's review. */
export interface PolicyReview extends PolicyImpact {
  key: string;
  name: string;
  zoneId: string;
  action: string;
  enabled: boolean;
  value: string;
  /**
   * Why the zone's detected scripts and connections were not read for this policy (the review's
   * scope `change` and a zone the change leaves as it is): its lists are then empty, and none of
   * its verdicts on them is claimed.
   */
  notRead?: string;
}

/** The pools of a migration's account that no notification of the stack covers. */
export interface PoolCoverage {
  key: string;
  name: string;
  accountId: string;
  pools: number;
  uncovered: { count: number; names: string[] };
}

/** The requests the review made, against the plan's bound. */
export interface ReviewRequests {
  made: number;
  bound: number;
  /** The bound as a sum, term by term. */
  plan: string;
}

/** Whether the change creates the policy or changes what it does. */
export function isCreatedOrChanged(review: PolicyReview): boolean {
  if (review.baseline === 'none' || 'unknown' in review.baseline) return true;
  return (
    (review.sourcesAdded?.length ?? 0) > 0 ||
    (review.sourcesRemoved?.length ?? 0) > 0 ||
    review.baseline.effect !== review.effect ||
    review.baseline.hostname !== review.hostname
  );
}
