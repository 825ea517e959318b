/**
 * What the policy pack reads in its environment beside the service's settings: the two files
 * `edgeguard-review` and the pack exchange, and the read ahead's priority. In a module of their own
 * so that the review, which only sets them, does not load the pack's modules (and `@pulumi/policy`
 * with the Pulumi SDK behind it) to learn their names.
 */

import type { ReadAheadPriority } from '../impact/read-ahead';

/** A file the pack writes its review to, as JSON (`PackOutput` of `./pack-analysis.ts`), after each policy. */
export const REVIEW_OUTPUT_ENV = 'EDGEGUARD_REVIEW_OUTPUT';

/**
 * A file holding `pulumi stack export` of the stack as it is before the change. With it, a policy
 * that the change modifies is compared with the live policy it replaces (the engine gives a
 * policy pack only the new inputs of a changed resource, not its id).
 */
export const REVIEW_BASELINE_ENV = 'EDGEGUARD_REVIEW_BASELINE';

/**
 * The priority of the read ahead's child process (`../impact/read-ahead.ts`): `lowest` (the default:
 * `nice` 19, so that the program and the engine keep the cores they need), or `usual`, the pack's
 * own: on a machine with cores to spare, or where the read ahead must finish before the program
 * does (the engine's tests, on a machine other work keeps busy). Any other value is refused, and
 * the review says so.
 */
export const REVIEW_AHEAD_PRIORITY_ENV = 'EDGEGUARD_REVIEW_AHEAD_PRIORITY';

/** The read ahead's priority {@link REVIEW_AHEAD_PRIORITY_ENV} asks for; a value it does not name is thrown. */
export function readAheadPriority(env: NodeJS.ProcessEnv = process.env): ReadAheadPriority {
  const value = env[REVIEW_AHEAD_PRIORITY_ENV];
  if (value === undefined || value === '' || value === 'lowest') return 'lowest';
  if (value === 'usual') return 'usual';
  throw new Error(`${REVIEW_AHEAD_PRIORITY_ENV} must be lowest or usual, not ${JSON.stringify(value)}`);
}
