/**
 * When page security's data makes a detected script malicious (spec 1.2 and 8): the API has no
 * flag for it, only the script's `js_integrity_score`. The read helpers, the review, its policy
 * pack and report, `edgeguard-csp` and the demo all judge and quote this one rule, so that none of
 * them calls a script malicious that another lets through, or words the rule otherwise.
 */

/** A script whose `js_integrity_score` is below this is malicious. */
export const MALICIOUS_SCORE_THRESHOLD = 10;

/** The rule in words, as the review and the tools quote it: `js_integrity_score below 10`. */
export const MALICIOUS_SCRIPT_RULE = `js_integrity_score below ${MALICIOUS_SCORE_THRESHOLD}`;

/** Whether a script of this score is malicious; a script without one (a plan without scores) is not. */
export function isMaliciousScore(score: number | undefined): boolean {
  return score !== undefined && score < MALICIOUS_SCORE_THRESHOLD;
}
