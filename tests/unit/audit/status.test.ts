import { countsOf, exitStatusOf, findingsOf, passes } from '../../../provider/audit/evidence';
import type { AuditEvidence } from '../../../provider/audit/schema';
import { summaryText } from '../../../provider/audit/wording';
import type { Integrity } from '../../../provider/payment/scripts';
import { CARD, FAILING, HOSTILE_URL, PASSING, V1, V3 } from '../../helpers/audit-evidence';

/**
 * The exit status rule of edgeguard-audit: 0 when every script is authorized and none changed
 * (unpinned ones pass), 1 when one is unauthorized or changed; and the failing scripts it names on
 * stderr.
 */

/** An evidence whose only counts are `integrities`. */
function counted(integrities: Integrity[]): AuditEvidence {
  const counts = countsOf(integrities);
  return { ...PASSING, passed: passes(counts), counts };
}

test.each<[Integrity[], 0 | 1]>([
  [[], 0],
  [['unchanged'], 0],
  [['unpinned', 'unpinned'], 0],
  [['unchanged', 'unpinned'], 0],
  [['unchanged', 'changed'], 1],
  [['unpinned', 'unauthorized'], 1],
  [['changed', 'unauthorized'], 1],
])('scripts %j: exit %d', (integrities, status) => {
  const evidence = counted(integrities);
  expect(evidence.passed).toBe(status === 0);
  expect(exitStatusOf(evidence)).toBe(status);
});

test('the fixed evidences: one changed and one unauthorized fail, unchanged and unpinned alone pass', () => {
  expect(exitStatusOf(FAILING)).toBe(1);
  expect(exitStatusOf(PASSING)).toBe(0);
  expect(countsOf(['unchanged', 'changed', 'changed'])).toEqual({
    scripts: 3,
    unchanged: 1,
    unpinned: 0,
    changed: 2,
    unauthorized: 0,
  });
});

test('the failing scripts, each once per inventory with every payment page it is on, named on stderr', () => {
  expect(findingsOf(PASSING)).toEqual([]);
  expect(findingsOf(FAILING).map((finding) => [finding.script.url, finding.pages])).toEqual([
    [CARD, ['shop.example.com/checkout']],
    [HOSTILE_URL, ['shop.example.com/checkout']],
  ]);
  expect(summaryText(FAILING).split('\n')).toEqual([
    'fail: 4 scripts (1 pinned, unchanged; 1 unpinned; 1 changed; 1 unauthorized); failing:',
    `  ${CARD}: changed, pinned ${V1}, live ${V3} since 2026-11-20T10:00:00.000Z, on shop.example.com/checkout (inventory checkout-scripts)`,
    `  ${HOSTILE_URL}: unauthorized, no entry authorizes it, on shop.example.com/checkout (inventory checkout-scripts)`,
  ]);
  expect(summaryText(PASSING)).toBe(
    'pass: every script authorized and none changed (unpinned ones are allowed); 2 scripts (1 pinned, unchanged; 1 unpinned; 0 changed; 0 unauthorized)',
  );
});
