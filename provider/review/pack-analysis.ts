import * as fs from 'node:fs';
import type { PolicyResource } from '@pulumi/policy';
import { clientLayer } from '../helpers/lazy-client';
import type { Acceptance } from '../impact/evaluate';
import { reviewPerPage } from '../impact/model';
import { dialectOf, SETTINGS, SettingsError } from '../settings';
import { previousState, reviewInputOf, type Unjudged } from './pack-input';
import type * as inventoryReadAhead from '../payment/read-ahead';
import type * as plan from './plan';
import type { ReviewInput, ReviewResult } from './plan';
import type * as readAhead from '../impact/read-ahead';
import type * as weaknesses from '../impact/weaknesses';

/**
 * The policy pack's one analysis of a stack: every policy of the pack asks for it, and the first
 * to ask reads the service (`./plan.ts`), from the listings read ahead while the program ran when
 * there are some ({@link warmReview}); the others get the same. After each policy it is written to
 * {@link REVIEW_OUTPUT_ENV}, with the violations reported so far.
 */

import { readAheadPriority, REVIEW_OUTPUT_ENV } from './pack-env';
export { REVIEW_OUTPUT_ENV };

/** One violation the pack reported. */
export interface PackViolation {
  policy: string;
  /** The resource, or none for the stack as a whole. */
  urn?: string;
  message: string;
}

/** What the pack writes to {@link REVIEW_OUTPUT_ENV}. */
export interface PackOutput {
  /** Why the review could not be done; absent when it was. */
  error?: string;
  review?: ReviewResult;
  unjudged: Unjudged[];
  violations: PackViolation[];
}

/**
 * The review's plan, with the API client and undici, and the weaknesses with the CSP Evaluator,
 * loaded at the pack's start when it reads ahead ({@link warmReview}, about 0.15 s of CPU before
 * it serves, bench/RESULTS.md issues 20 and 43), else at the first analysis. Node loads them once
 * and returns them from its cache.
 */
export function reviewModules(): {
  plan: typeof plan;
  readAhead: typeof readAhead;
  inventoryReadAhead: typeof inventoryReadAhead;
  weaknesses: typeof weaknesses;
} {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded after the pack serves, as said above */
  return {
    plan: require('./plan') as typeof plan,
    readAhead: require('../impact/read-ahead') as typeof readAhead,
    inventoryReadAhead: require('../payment/read-ahead') as typeof inventoryReadAhead,
    weaknesses: require('../impact/weaknesses') as typeof weaknesses,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/**
 * The client of the settings in the pack's environment (`EDGEGUARD_BASE_URL`, ...), resolved by the
 * settings table as every component resolves them: the pack has no stack configuration to read
 * (`./pack-config.ts`); `edgeguard-review` puts the stack's there (`packSettingsEnv` of
 * `./review-stack.ts`).
 */
function packClient() {
  return clientLayer().clientFrom();
}

/** The variables of the settings the pack needs, as its hint names them. */
const SETTING_VARIABLES = `${SETTINGS.baseUrl.env} and ${SETTINGS.apiToken.env} (or ${SETTINGS.apiEmail.env} and ${SETTINGS.apiKey.env})`;

/** The listings read ahead from the previous state, from the pack's start. */
let readingAhead: readAhead.ReadAhead | undefined;
/** The inventories' pages' scripts read ahead from the previous state, likewise. */
let inventoriesAhead: inventoryReadAhead.InventoryReadAhead | undefined;

/**
 * Hears a resource the program declares: its URN, type token and, for a CSP policy, its inputs
 * (`{}` for other resources, whose inputs are not read).
 */
export type Declared = (urn: string, type: string, inputs: Record<string, unknown>) => void;

/**
 * Hears a resource the program declares (`hearingPolicy` of `../pack/policies.ts`), for the read
 * ahead's judging (`JudgeAhead.declared` of `../impact/judge-ahead.ts`). The read ahead starts
 * before the pack serves (`../pack/pack.ts`), so none is declared before it.
 */
export const declaredResource: Declared = (urn, type, inputs) => readingAhead?.declared(urn, type, inputs);

/** Stops both read aheads and forgets them: used by the first analysis alone, their requests are counted once. */
function disposeReadAhead(): void {
  readingAhead?.dispose();
  inventoriesAhead?.dispose();
  readingAhead = undefined;
  inventoriesAhead = undefined;
}

/**
 * At the pack's start, before it serves (`../pack/pack.ts`): loads the review's modules
 * ({@link reviewModules}), and, when the previous state is given (`REVIEW_BASELINE_ENV` of
 * `./pack-input.ts`), starts reading the detected lists of the zones and hosts its CSP policies
 * name (`../impact/read-ahead.ts`), judging a zone once read against the previous state's
 * policies, once the program declares its resources and unless it declares one of those otherwise
 * ({@link declaredResource}), and the scripts on the pages of its script inventories
 * (`../payment/read-ahead.ts`). Without settings to read with, or a previous state to read,
 * nothing is read ahead: the review reads at the analysis, and says what is missing. Whether it
 * started reading.
 */
export function warmReview(): boolean {
  try {
    return startReadAhead();
  } catch {
    // The read ahead never fails the review: the review reads at the analysis.
    disposeReadAhead();
    return false;
  }
}

/** {@link warmReview}'s work: whether it started reading. */
function startReadAhead(): boolean {
  const modules = reviewModules();
  const state = previousState();
  if ('reason' in state || readingAhead !== undefined || inventoriesAhead !== undefined) return false;
  const targets = modules.readAhead.readAheadTargets(state.exported);
  const inventories = modules.inventoryReadAhead.inventoryTargets(state.exported);
  if (targets.size === 0 && inventories.length === 0) return false;
  let client;
  try {
    client = packClient();
  } catch {
    return false;
  }
  // In the scope change, the zones the change leaves as they are go unlisted (../review/plan.ts):
  // listing them ahead would spend the requests the scope saves. A scope that is none throws here,
  // and is the analysis's to report.
  const scope = modules.plan.reviewScopeFrom();
  // A priority it does not name throws here too, and is the analysis's to report.
  const priority = readAheadPriority();
  process.once('exit', disposeReadAhead);
  if (targets.size > 0 && scope === 'full')
    readingAhead = new modules.readAhead.ReadAhead(
      client.settings,
      targets,
      reviewPerPage(dialectOf(client.settings)),
      modules.readAhead.speculationOf(state.exported),
      priority,
    ).start();
  if (inventories.length > 0)
    inventoriesAhead = new modules.inventoryReadAhead.InventoryReadAhead(client, inventories).start();
  return readingAhead !== undefined || inventoriesAhead !== undefined;
}

/** The analysis of a stack's resources that the pack's policies share. */
export interface Analysis {
  key: string;
  input: ReviewInput;
  unjudged: Unjudged[];
  review?: ReviewResult;
  error?: string;
  violations: PackViolation[];
}

let current: { key: string; analysis: Promise<Analysis> } | undefined;

/**
 * Why the review could not be done, as a person should read it. A setting missing or malformed
 * says that the pack reads the settings from its environment alone: a pack run by hand
 * (`pulumi preview --policy-pack ...`) does not see the stack's configuration.
 */
function reasonOf(error: unknown): string {
  clientLayer().withSettingHint(error);
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof SettingsError)) return message;
  return `${message}. The policy pack reads the service's settings from its environment alone (${SETTING_VARIABLES}), not from the stack's configuration: set them for the preview, or review with edgeguard-review, which sets them from the stack's edgeguard:* configuration`;
}

function emptyReview(): ReviewResult {
  return { policies: [], pools: [], inventories: [], requests: { made: 0, bound: 0, plan: 'nothing to read' } };
}

/**
 * The analysis of `resources`: read once per set of resources, whichever policy asks first. The
 * blocked scripts the team accepts are those of the policy that asks first
 * (`csp-blocks-detected-scripts`, which runs first).
 */
export function analysisOf(resources: readonly PolicyResource[], acceptBlocked?: Acceptance): Promise<Analysis> {
  const { input, unjudged } = reviewInputOf(resources);
  const key = JSON.stringify(input);
  if (current?.key === key) return current.analysis;
  const analysis = (async (): Promise<Analysis> => {
    const base = { key, input, unjudged, violations: [] };
    if (input.policies.length === 0 && input.migrations.length === 0 && (input.inventories ?? []).length === 0)
      return { ...base, review: emptyReview() };
    try {
      // A read ahead priority it does not name stopped the read ahead: the review says why.
      readAheadPriority();
      const review = await reviewModules().plan.reviewService(packClient(), input, {
        ...(acceptBlocked ? { acceptBlocked } : {}),
        ...(readingAhead !== undefined ? { readAhead: readingAhead } : {}),
        ...(inventoriesAhead !== undefined ? { inventoryReadAhead: inventoriesAhead } : {}),
      });
      return { ...base, review };
    } catch (error) {
      return { ...base, error: reasonOf(error) };
    } finally {
      disposeReadAhead();
    }
  })();
  current = { key, analysis };
  return analysis;
}

/** Writes `analysis` to {@link REVIEW_OUTPUT_ENV}, when it names a file. */
export function writeOutput(analysis: Analysis): void {
  const file = process.env[REVIEW_OUTPUT_ENV];
  if (file === undefined || file === '') return;
  const output: PackOutput = {
    ...(analysis.error !== undefined ? { error: analysis.error } : {}),
    ...(analysis.review !== undefined ? { review: analysis.review } : {}),
    unjudged: analysis.unjudged,
    violations: analysis.violations,
  };
  fs.writeFileSync(file, JSON.stringify(output, null, 2));
}
