import { parseScriptInventory } from '../../../rules/inventory';
import { entryTextOf } from '../../../rules/inventory-changes';
import type { PaymentScript } from '../../../provider/payment/scripts';
import { markdown, renderMarkdown } from '../../../provider/format/review-markdown';
import { findingText, text } from '../../../provider/format/review-text';
import type { InventoryReview } from '../../../provider/payment/review';
import {
  changedFinding,
  cspDifferenceFinding,
  inventoryStatement,
  maliciousFinding,
  unauthorizedFinding,
} from '../../../provider/payment/statements';
import type { ReviewReport } from '../../../provider/review/report';
import { reviewReport } from '../../helpers/review-report';

/**
 * What the review says of a script inventory (provider/payment/statements.ts): the payment
 * policies' messages as the pack prints them (as-text) and the report's "Payment-page scripts"
 * section (as-markdown), from one fixed review, each fact in both.
 */

const PAGE = 'https://checkout.example.com/pay';
const CARD = 'https://js.pay.example/v3/card.js';
const OWN = 'https://checkout.example.com/static/js/';
const SKIM = 'https://cdn.evil.example/skim.js';
const WIDGET = 'https://cdn.new.example/widget.js';
const [PINNED, LIVE, OTHER] = ['a1', 'b2', 'c3'].map((two) => two.repeat(32)) as [string, string, string];

const parsed = parseScriptInventory({
  pages: ['checkout.example.com/pay', 'shop.example.com/checkout'],
  scripts: [
    { url: CARD, justification: 'Card form of the processor', owner: 'payments', hash: PINNED },
    { prefix: OWN, justification: 'Our checkout code', owner: 'web' },
    { url: SKIM, justification: 'Analytics vendor' },
  ],
});
if (!parsed.ok) throw new Error(parsed.error.message);
const INVENTORY = parsed.value;
const [CARD_ENTRY, OWN_ENTRY, SKIM_ENTRY] = INVENTORY.scripts as [
  (typeof INVENTORY.scripts)[number],
  (typeof INVENTORY.scripts)[number],
  (typeof INVENTORY.scripts)[number],
];

function script(url: string, extra: Partial<PaymentScript>): PaymentScript {
  return {
    id: url,
    url,
    status: 'active',
    firstSeenAt: '2026-10-01T00:00:00.000Z',
    lastSeenAt: '2026-11-24T10:00:00.000Z',
    hash: OTHER,
    scores: { js_integrity_score: 60, magecart_score: 2 },
    malicious: false,
    reported: { domainMalicious: false, urlMalicious: false, urlCategories: [] },
    pages: [PAGE],
    inventoryPages: ['checkout.example.com/pay'],
    integrity: 'unpinned',
    changes: [],
    ...extra,
  };
}

const SCRIPTS: PaymentScript[] = [
  script(CARD, {
    hash: LIVE,
    fetchedAt: '2026-11-24T09:30:00.000Z',
    scores: { js_integrity_score: 41, magecart_score: 12 },
    entry: CARD_ENTRY,
    integrity: 'changed',
    changes: [
      { hash: LIVE, fetched_at: '2026-11-24T09:30:00.000Z' },
      { hash: OTHER, fetched_at: '2026-11-20T09:30:00.000Z' },
      { hash: PINNED, fetched_at: '2026-10-01T00:00:00.000Z' },
    ] as PaymentScript['changes'],
  }),
  script(`${OWN}app.js`, { entry: OWN_ENTRY }),
  script(SKIM, {
    scores: { js_integrity_score: 4 },
    malicious: true,
    reported: { domainMalicious: false, urlMalicious: true, urlCategories: ['Malware'] },
    entry: SKIM_ENTRY,
    status: 'infrequent',
  }),
  script(WIDGET, { integrity: 'unauthorized', pages: [PAGE, `${PAGE}/confirm`] }),
];

function reviewOf(extra: Partial<InventoryReview> = {}): InventoryReview {
  return {
    key: 'urn:inventory',
    name: 'checkout-scripts',
    zoneId: 'z',
    pages: ['checkout.example.com/pay', 'shop.example.com/checkout'],
    entries: INVENTORY.scripts.map(entryTextOf),
    cspSources: `${SKIM} ${CARD} ${OWN}`,
    scripts: SCRIPTS,
    integrity: { unchanged: 0, unpinned: 2, changed: 1, unauthorized: 1 },
    changes: {
      added: [entryTextOf(SKIM_ENTRY)],
      removed: [{ kind: 'url', text: 'https://old.example/gone.js', justification: 'Old chat widget' }],
      repinned: [{ entry: entryTextOf(CARD_ENTRY), from: OTHER, to: PINNED }],
      justified: [{ entry: entryTextOf(OWN_ENTRY), from: 'Ours', to: 'Our checkout code' }],
      owned: [],
    },
    newlyAuthorized: [SKIM],
    csp: [
      {
        host: 'checkout.example.com',
        policies: [
          { name: 'checkout-enforce', governedBy: 'script-src', missing: [OWN], extra: ["'unsafe-inline'"] },
          { name: 'checkout-exact', governedBy: 'script-src', missing: [], extra: [] },
        ],
      },
      { host: 'shop.example.com', policies: [] },
    ],
    ...extra,
  };
}

test('payment-script-unauthorized names the script, its pages, its scores and flag, and the fix', () => {
  expect(findingText(unauthorizedFinding(reviewOf())!)).toBe(
    [
      'ScriptInventory "checkout-scripts": 1 script detected on its payment pages is authorized by no entry:',
      `  - ${WIDGET} on ${PAGE}, ${PAGE}/confirm (scores: js_integrity_score 60, magecart_score 2; not malicious; first seen 2026-10-01T00:00:00.000Z, last seen 2026-11-24T10:00:00.000Z)`,
      'Add an entry for it to the inventory with its justification (why it is on the payment pages), pinning its hash, or remove it from the pages.',
    ].join('\n'),
  );
});

test('payment-script-changed names the script, its entry, the pinned and the live hash, when and the new scores', () => {
  expect(findingText(changedFinding(reviewOf())!)).toBe(
    [
      'ScriptInventory "checkout-scripts": 1 pinned script is no longer the version approved:',
      `  - ${CARD} on ${PAGE} (entry ${CARD}; pinned hash ${PINNED}; live hash ${LIVE}; new version fetched 2026-11-24T09:30:00.000Z (2 versions since the pinned one); scores: js_integrity_score 41, magecart_score 12; not malicious; first seen 2026-10-01T00:00:00.000Z, last seen 2026-11-24T10:00:00.000Z)`,
      'Review the new content and re-pin the entry to the live hash (set its hash to it), or restore the approved version.',
    ].join('\n'),
  );
});

test('payment-script-malicious names the entry, the script and why it is malicious', () => {
  expect(findingText(maliciousFinding(reviewOf())!)).toBe(
    [
      'ScriptInventory "checkout-scripts" authorizes 1 script classified malicious (js_integrity_score below 10) or reported malicious:',
      `  - ${SKIM} on ${PAGE} (entry ${SKIM} (justification: Analytics vendor); scores: js_integrity_score 4; malicious (js_integrity_score 4; URL reported malicious (Malware)); infrequent; first seen 2026-10-01T00:00:00.000Z, last seen 2026-11-24T10:00:00.000Z)`,
      'Remove the entry, and the script from the payment pages; a script page security classifies malicious cannot be authorized there.',
    ].join('\n'),
  );
});

test('payment-csp-differs-from-inventory names the differing policy with its missing and extra sources, and the host without one', () => {
  expect(findingText(cspDifferenceFinding(reviewOf())!)).toBe(
    [
      `The CSP policies of the hosts of ScriptInventory "checkout-scripts"'s pages do not enforce exactly what it authorizes:`,
      `  - CspPolicy "checkout-enforce" (allow on checkout.example.com), by its script-src, does not allow ${OWN}, which the inventory authorizes; allows more than the inventory authorizes: 'unsafe-inline'.`,
      '  - Nothing enforces the inventory on shop.example.com: no enabled allow CspPolicy of the stack covers that host.',
      `Give each host of the pages an allow CspPolicy whose script-src is fed by the inventory's cspSources (script-src ${SKIM} ${CARD} ${OWN}).`,
    ].join('\n'),
  );
});

test('nothing to say: no finding for an inventory whose scripts are all authorized and unchanged and whose policies match', () => {
  const clean = reviewOf({
    scripts: [script(`${OWN}app.js`, { entry: OWN_ENTRY })],
    csp: [
      { host: 'checkout.example.com', policies: [{ name: 'p', governedBy: 'script-src', missing: [], extra: [] }] },
    ],
  });
  expect([unauthorizedFinding, changedFinding, maliciousFinding, cspDifferenceFinding].map((f) => f(clean))).toEqual([
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
});

function report(inventories: InventoryReview[]): ReviewReport {
  return reviewReport({ exitCode: 1, inventories });
}

/** The report's Payment-page scripts section. */
const section = (text: string) => text.split('\n### Payment-page scripts\n')[1]?.split('\n### ')[0] ?? '';

test("the report's section: counts, entries changed, newly authorized with scores, the violations and the enforcement", () => {
  const out = section(renderMarkdown(report([reviewOf()])));
  expect(out).toContain('#### `checkout-scripts`');
  expect(out).toContain(
    '4 scripts detected on its pages (`checkout.example.com/pay`, `shop.example.com/checkout`): 0 unchanged, 2 unpinned, 1 changed, 1 unauthorized.',
  );
  expect(out).toContain(`**Entries added (1)**\n\n- url \`${SKIM}\`: Analytics vendor, not pinned\n`);
  expect(out).toContain(
    '**Entries removed (1)**\n\n- url `https://old.example/gone.js`: Old chat widget, not pinned\n',
  );
  expect(out).toContain(
    `**Entries re-pinned (1)**\n\n- url \`${CARD}\`: hash \`${OTHER}\` -> \`${PINNED}\`; Card form of the processor (owner: payments)\n`,
  );
  expect(out).toContain(
    `**Justifications changed (1)**\n\n- prefix \`${OWN}\`: justification \`Ours\` -> \`Our checkout code\`\n`,
  );
  expect(out).toContain(
    `**Detected scripts this change newly authorizes (1)**\n\n- \`${SKIM}\` on \`${PAGE}\`; entry \`${SKIM}\`; live hash \`${OTHER}\`; scores: js\\_integrity\\_score 4; **malicious** (js\\_integrity\\_score 4; URL reported malicious (Malware)); **infrequent**;`,
  );
  // The violations as the pack says them, each fact in Markdown.
  for (const finding of [unauthorizedFinding, changedFinding, maliciousFinding].map((f) => f(reviewOf())!)) {
    expect(out).toContain(`**${markdown(finding.list.title)}**`);
    for (const line of finding.list.lines)
      expect(out).toContain(`- \`${line.url}\` ${markdown(line.pages)}; ${line.notes.map(markdown).join('; ')}`);
    expect(out).toContain(markdown(finding.fix));
  }
  expect(out).toContain(`live hash \`${LIVE}\``);
  expect(out).toContain(`pinned hash \`${PINNED}\``);
  expect(out).toContain(
    `- CspPolicy \`checkout-enforce\` (allow on \`checkout.example.com\`), by its \`script-src\`, does not allow \`${OWN}\`, which the inventory authorizes; allows more than the inventory authorizes: \`'unsafe-inline'\`.`,
  );
  expect(out).toContain(
    '- CspPolicy `checkout-exact` (allow on `checkout.example.com`) allows exactly what the inventory authorizes (`script-src`).',
  );
  expect(out).toContain('- Nothing enforces the inventory on `shop.example.com`');
});

test('every phrase of the statement reaches the Markdown, and the text of the same phrase reads as the pack says it', () => {
  const statement = inventoryStatement(reviewOf());
  const out = renderMarkdown(report([reviewOf()]));
  const phrases = [
    statement.counts,
    ...statement.entries.flatMap((part) => ('items' in part ? [part.title, ...part.items] : [part])),
    ...statement.csp,
  ];
  for (const phrase of phrases) expect(out).toContain(markdown(phrase));
  expect(text(statement.counts)).toBe(
    '4 scripts detected on its pages (checkout.example.com/pay, shop.example.com/checkout): 0 unchanged, 2 unpinned, 1 changed, 1 unauthorized.',
  );
});

test('a new inventory lists every entry as added; without the state before, the entries are not compared and nothing is called new', () => {
  const unknown = section(
    renderMarkdown(report([reviewOf({ changes: { unknown: 'no state given' }, newlyAuthorized: [] })])),
  );
  expect(unknown).toContain('The entries are not compared with those before the change: no state given.');
  expect(unknown).not.toContain('newly authorizes');
  const quiet = section(
    renderMarkdown(
      report([
        reviewOf({
          changes: { added: [], removed: [], repinned: [], justified: [], owned: [] },
          newlyAuthorized: [],
          scripts: [],
          integrity: { unchanged: 0, unpinned: 0, changed: 0, unauthorized: 0 },
        }),
      ]),
    ),
  );
  expect(quiet).toContain('The change adds, removes, re-pins and rewrites no entry.');
  expect(quiet).toContain('The change authorizes no script detected on the pages that was not authorized before.');
  expect(quiet).toContain('No script is unauthorized, changed or malicious.');
});

test('a report without inventories has no Payment-page scripts section', () => {
  expect(renderMarkdown(report([]))).not.toContain('Payment-page scripts');
});
