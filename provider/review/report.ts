import type { SourceLocation } from '../stack/program-location';
import type { MeaningRow } from './meaning';
import type { Unjudged } from './pack-input';
import type { InventoryReview } from '../payment/review';
import type { PolicyReview, PoolCoverage, ReviewRequests } from '../impact/model';

/**
 * The review report of `edgeguard-review` (issue 9, item 3), as data: `--json` writes it, and
 * `../format/review-markdown.ts` (`--markdown`) and `../format/sarif.ts` (`--sarif`) lay it out.
 * Pure: `./review-stack.ts` gathers what it holds.
 */

/** A policy violation the engine reported for the preview. */
export interface ReportedViolation {
  policy: string;
  /** `mandatory` fails the check; `advisory` informs. */
  level: 'mandatory' | 'advisory';
  /** The resource's name in the program, when the violation is about one. */
  resource?: string;
  urn?: string;
  message: string;
  /**
   * Where the program declares the resource, as the engine recorded it at the stack's last
   * deployment (`../stack/program-location.ts`); absent for a resource the stack does not hold yet.
   */
  declaredAt?: SourceLocation;
}

/** A place in the program: a file relative to the project folder (with `/`), a line and column from 1. */
/** What the review found, and how it ends. */
export interface ReviewReport {
  project: string;
  stack: string;
  /** The program's main file, relative to the project folder: where a violation not located at its resource is. */
  mainFile: string;
  /**
   * 0: no mandatory violation; 1: at least one; 2: the review could not be done; 3: asked to fail
   * on drift (`--fail-on-drift`), the refresh found a change made outside the stack, and there is
   * no mandatory violation (1 and 2 win).
   */
  exitCode: 0 | 1 | 2 | 3;
  /** Why the review could not be done (exit 2). */
  reason?: string;
  /** Every resource the preview creates, updates, replaces or deletes, by meaning. */
  changes: MeaningRow[];
  /** What `--refresh` found changed outside the stack; `null` without `--refresh`. */
  drift: MeaningRow[] | null;
  /** Every CSP policy of the stack, judged against the detected scripts and connections. */
  policies: PolicyReview[];
  /** The pools of migrated accounts left without alerts. */
  pools: PoolCoverage[];
  /**
   * Every script inventory of the stack: the scripts detected on its pages, judged against it as
   * the change leaves it, what the change does to its entries, and the CSP policies that enforce it.
   */
  inventories: InventoryReview[];
  /** Resources the review could not judge, and why. */
  unjudged: Unjudged[];
  violations: ReportedViolation[];
  /** The requests the policy pack made, against its bound. */
  requests?: ReviewRequests;
}
