/**
 * The two files `edgeguard-review` and the policy pack exchange, named in the pack's environment.
 * In a module of their own so that the review, which only sets them, does not load the pack's
 * modules (and `@pulumi/policy` with the Pulumi SDK behind it) to learn their names.
 */

/** A file the pack writes its review to, as JSON (`PackOutput` of `./pack-analysis.ts`), after each policy. */
export const REVIEW_OUTPUT_ENV = 'EDGEGUARD_REVIEW_OUTPUT';

/**
 * A file holding `pulumi stack export` of the stack as it is before the change. With it, a policy
 * that the change modifies is compared with the live policy it replaces (the engine gives a
 * policy pack only the new inputs of a changed resource, not its id).
 */
export const REVIEW_BASELINE_ENV = 'EDGEGUARD_REVIEW_BASELINE';
