import { countsOf, exitStatusOf, findingsOf, passes, type JudgedScript } from '../../../provider/payment/evidence';
import type { AuditEvidence } from '../../../provider/payment/evidence-schema';
import { findingText, summaryText } from '../../../provider/format/audit-wording';
import type { Integrity } from '../../../provider/payment/scripts';
import { CARD, FAILING, HOSTILE_URL, PASSING, V1, V3, WIDGET } from '../../helpers/audit-evidence';

/**
 * The exit status rule of edgeguard-audit: 0 when every script is authorized, none changed and none
 * malicious (unpinned ones pass), 1 when one is unauthorized, changed or malicious whatever its
 * integrity (by its score or as page security reports it); and the failing scripts it names on
 * stderr.
 */

const NOT_REPORTED = { domainMalicious: false, urlMalicious: false, urlCategories: [] };

/** How a script below is malicious: by its score (4), its domain or its URL reported, or not at all. */
type Malice = 'score' | 'domain' | 'url' | 'none';

function script(integrity: Integrity, malice: Malice = 'none'): JudgedScript {
  return {
    integrity,
    malicious: malice === 'score',
    scores: { js_integrity_score: malice === 'score' ? 4 : 80 },
    reported: { ...NOT_REPORTED, domainMalicious: malice === 'domain', urlMalicious: malice === 'url' },
  };
}

/** An evidence whose only counts are those of `scripts`. */
function counted(scripts: JudgedScript[]): AuditEvidence {
  const counts = countsOf(scripts);
  return { ...PASSING, passed: passes(counts), counts };
}

test.each<[string, 0 | 1, JudgedScript[]]>([
  ['none', 0, []],
  ['unchanged', 0, [script('unchanged')]],
  ['unpinned twice', 0, [script('unpinned'), script('unpinned')]],
  ['unchanged and unpinned', 0, [script('unchanged'), script('unpinned')]],
  ['unchanged and changed', 1, [script('unchanged'), script('changed')]],
  ['unpinned and unauthorized', 1, [script('unpinned'), script('unauthorized')]],
  ['changed and unauthorized', 1, [script('changed'), script('unauthorized')]],
  ['unchanged, malicious by its score', 1, [script('unchanged', 'score')]],
  ['unchanged, its domain reported malicious', 1, [script('unchanged', 'domain')]],
  ['unpinned, its URL reported malicious', 1, [script('unpinned', 'url')]],
  ['unchanged beside unchanged and malicious', 1, [script('unchanged'), script('unchanged', 'score')]],
])('scripts %s: exit %d', (_, status, scripts) => {
  const evidence = counted(scripts);
  expect(evidence.passed).toBe(status === 0);
  expect(exitStatusOf(evidence)).toBe(status);
});

test('counts by integrity, and the malicious ones among them whatever their integrity', () => {
  expect(
    countsOf([script('unchanged', 'score'), script('changed'), script('changed', 'url'), script('unauthorized')]),
  ).toEqual({
    scripts: 4,
    unchanged: 1,
    unpinned: 0,
    changed: 2,
    unauthorized: 1,
    malicious: 2,
  });
  // A score of 10 is not below the rule's threshold.
  expect(countsOf([{ ...script('unchanged'), scores: { js_integrity_score: 10 } }]).malicious).toBe(0);
});

test('the fixed evidences: changed, unauthorized and malicious scripts fail, unchanged and unpinned alone pass', () => {
  expect(FAILING.counts).toEqual({ scripts: 5, unchanged: 2, unpinned: 1, changed: 1, unauthorized: 1, malicious: 2 });
  expect(exitStatusOf(FAILING)).toBe(1);
  expect(exitStatusOf(PASSING)).toBe(0);
  expect(PASSING.counts.malicious).toBe(0);
});

test('the failing scripts, each once per inventory with every payment page it is on, named on stderr', () => {
  expect(findingsOf(PASSING)).toEqual([]);
  expect(findingsOf(FAILING).map((finding) => [finding.script.url, finding.pages])).toEqual([
    [CARD, ['shop.example.com/checkout']],
    [HOSTILE_URL, ['shop.example.com/checkout']],
    [WIDGET, ['pay.example.com']],
  ]);
  expect(summaryText(FAILING).split('\n')).toEqual([
    'fail: 5 scripts (2 pinned, unchanged; 1 unpinned; 1 changed; 1 unauthorized), 2 malicious; failing:',
    `  ${CARD}: changed, pinned ${V1}, live ${V3} since 2026-11-20T10:00:00.000Z, on shop.example.com/checkout (inventory checkout-scripts)`,
    `  ${HOSTILE_URL}: unauthorized, no entry authorizes it; malicious (js_integrity_score 4; domain reported malicious; URL reported malicious (Malware <b>)), on shop.example.com/checkout (inventory checkout-scripts)`,
    `  ${WIDGET}: malicious (URL reported malicious (Malware)), pinned, unchanged, on pay.example.com (inventory checkout-scripts)`,
  ]);
  expect(summaryText(PASSING)).toBe(
    'pass: every script authorized, none changed and none malicious (unpinned ones are allowed); 2 scripts (1 pinned, unchanged; 1 unpinned; 0 changed; 0 unauthorized), none malicious',
  );
});

test('an authorized, unchanged script malicious by its score is named with its score', () => {
  const widget = findingsOf(FAILING).find((finding) => finding.script.url === WIDGET)!;
  const byScore = {
    ...widget,
    script: { ...widget.script, malicious: true, scores: { js_integrity_score: 7 }, reported: NOT_REPORTED },
  };
  expect(findingText(byScore)).toBe(
    `${WIDGET}: malicious (js_integrity_score 7), pinned, unchanged, on pay.example.com (inventory checkout-scripts)`,
  );
});
