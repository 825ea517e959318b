import { isMaliciousScore, MALICIOUS_SCORE_THRESHOLD, MALICIOUS_SCRIPT_RULE } from '../../../rules/malicious';

/** Spec 1.2 and 8: a script whose js_integrity_score is below 10 is malicious, and the rule is said so. */

test('below the threshold is malicious; at it, above it, or without a score, not', () => {
  expect(MALICIOUS_SCORE_THRESHOLD).toBe(10);
  expect([0, 9, 10, 11, 99, undefined].map(isMaliciousScore)).toEqual([true, true, false, false, false, false]);
});

test('the rule in words names the threshold', () => {
  expect(MALICIOUS_SCRIPT_RULE).toBe('js_integrity_score below 10');
});
