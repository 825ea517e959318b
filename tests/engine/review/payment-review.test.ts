import * as fs from 'node:fs';
import * as path from 'node:path';
import { JUSTIFICATION_PLACEHOLDER } from '../../../rules/inventory';
import type { EngineStack } from '../../helpers/engine';
import { startTestEmulator, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { PAYMENT_PAGES, paymentPagesStack } from '../../helpers/payment-pages';
import { evidenceOf, paymentSection, runAudit, runReview, violationsOf } from '../../helpers/stack-commands';

/**
 * The nightly check of a checkout's payment-page scripts through the real engine (issue 25, item
 * 3): tests/engine/projects/payment-pages (a ScriptInventory with justified entries, the
 * card script pinned, and the CspPolicy its cspSources feed) is deployed once against a zone whose
 * payment page loads exactly those scripts; then `edgeguard-review`, built, as a scheduled job and a
 * pull request's check run it, case by case: the service changes under it (a new version of the
 * pinned script, a new script on the page), and the program changes (a re-pin, an entry for a
 * malicious script, an entry without a justification). The weekly audit (`edgeguard-audit`) fails
 * on the new version too, and passes once the re-pin is deployed.
 *
 * For dynamic resources these are also the steps of tests/engine/payment/inventory-deploy.test.ts
 * after a deployment (a new version of a pinned script, its re-pin deployed, a new script), which
 * takes them on the provider plugin's resources alone: what it asserts of them is asserted here.
 */

const TOKEN = 'e2e-payment-token-5b0e1c7d';
const { host: HOST, page: PAY, card: CARD } = PAYMENT_PAGES;
const OWN_SCRIPT = `${PAYMENT_PAGES.ownCode}checkout.js`;
const WIDGET = 'https://cdn.chat.example/widget.js';
const SKIM = 'https://cdn.evil.example/collect.js';
/** The card script's approved version (pinned in the program) and the version that replaces it. */
const [APPROVED, REPLACED] = [PAYMENT_PAGES.cardHash, 'b2'.repeat(32)];

let emu: TestEmulator;
let engine: EngineStack;
let original: string;

beforeAll(async () => {
  emu = await startTestEmulator({ tokens: [TOKEN] });
  await emu.seed({
    scripts: [
      {
        zone_id: ZONE_ID,
        url: CARD,
        hash: APPROVED,
        js_integrity_score: 70,
        first_seen_at: '2026-10-01T00:00:00.000Z',
        page_urls: [PAY, `${PAY}/confirm`],
      },
      { zone_id: ZONE_ID, url: OWN_SCRIPT, js_integrity_score: 90, page_urls: [PAY] },
      // Another host's script: not on the payment pages, nothing to the inventory.
      { zone_id: ZONE_ID, url: 'https://www.example.com/app.js', page_urls: ['https://www.example.com/'] },
    ],
  });
  engine = await paymentPagesStack(emu, TOKEN);
  original = fs.readFileSync(path.join(engine.workDir, 'index.ts'), 'utf8');
  await engine.up();
}, 120_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
});

/** The program of the pull request: the card script pinned at `hash`, and `entries` added to the inventory. */
function propose(hash: string, entries: Array<{ url: string; justification: string }> = []): void {
  const end = '\n  ],\n});\n\n// The browser enforces';
  if (!original.includes(APPROVED) || !original.includes(end))
    throw new Error('the program is not as the test knows it');
  const added = entries
    .map((entry) => `\n    { url: '${entry.url}', justification: '${entry.justification}' },`)
    .join('');
  fs.writeFileSync(
    path.join(engine.workDir, 'index.ts'),
    original.replace(APPROVED, hash).replace(end, `${added}${end}`),
  );
}

test('deployed and unchanged: the nightly review passes, every script authorized and the pinned one unchanged', async () => {
  const run = await runReview(engine, '--refresh', '--fail-on-drift');
  expect([run.code, run.stderr.split('\n').filter((line) => line.startsWith('edgeguard-review:'))]).toEqual([
    0,
    ['edgeguard-review: no mandatory policy violation'],
  ]);
  expect(run.json.drift).toEqual([]);
  expect(run.json.violations).toEqual([]);
  const [inventory] = run.json.inventories;
  expect(inventory.integrity).toEqual({ unchanged: 1, unpinned: 1, changed: 0, unauthorized: 0 });
  expect(inventory.csp).toEqual([
    {
      host: HOST,
      policies: [{ name: 'checkout-enforce', governedBy: 'script-src', missing: [], extra: [] }],
    },
  ]);
  const section = paymentSection(run.markdown);
  expect(section).toContain(
    '2 scripts detected on its pages (`checkout.example.com/pay`): 1 unchanged, 1 unpinned, 0 changed, 0 unauthorized.',
  );
  expect(section).toContain('No script is unauthorized, changed or malicious.');
  expect(section).toContain(
    '- CspPolicy `checkout-enforce` (allow on `checkout.example.com`) allows exactly what the inventory authorizes (`script-src`).',
  );
  // The program declared the zone's policy as it was: the pack judged the zone while the engine ran
  // the program's resources, and the review took that judgement (provider/impact/read-ahead.ts).
  expect(run.json.requests.plan).toContain('active scripts, read ahead and judged ahead)');
  expect(run.json.requests.made).toBeLessThanOrEqual(run.json.requests.bound);
}, 120_000);

test('the enforcing policy switched to report-only outside the stack fails the review (payment-headers-changed), naming the header before and after', async () => {
  const live = (await emu.api('GET', `zones/${ZONE_ID}/page_security/policies`)).body.result as Array<
    Record<string, string>
  >;
  const enforcing = live.find((policy) => policy.expression === `http.host eq "${HOST}"`)!;
  const { id, ...body } = enforcing;
  await emu.api('PUT', `zones/${ZONE_ID}/page_security/policies/${id}`, { body: { ...body, action: 'log' } });
  try {
    const run = await runReview(engine);
    expect(run.code).toBe(1);
    const found = violationsOf(run.json);
    // The preview also says what the stack's policy does when it is made to enforce again (advisory).
    expect(Object.keys(found).filter((key) => key.startsWith('mandatory '))).toEqual([
      'mandatory payment-headers-changed',
    ]);
    expect(found['mandatory payment-headers-changed']).toContain(
      `CSP header changed outside the stack on ${HOST}: policy ${id} (CspPolicy "checkout-enforce") (action); before: Content-Security-Policy: ${body.value}, after: Content-Security-Policy-Report-Only: ${body.value}.`,
    );
    expect(paymentSection(run.markdown)).toContain(
      "**ScriptInventory `checkout-scripts`: 1 CSP header of its pages' hosts is not as the stack manages it**",
    );
  } finally {
    await emu.api('PUT', `zones/${ZONE_ID}/page_security/policies/${id}`, { body });
  }
}, 120_000);

test('a new version of the pinned script fails the nightly review (payment-script-changed), naming the script and both hashes', async () => {
  await emu.newScriptVersion(ZONE_ID, CARD, {
    hash: REPLACED,
    js_integrity_score: 35,
    fetched_at: '2026-11-24T03:10:00.000Z',
  });
  const run = await runReview(engine, '--refresh', '--fail-on-drift');
  expect(run.code).toBe(1);
  const found = violationsOf(run.json);
  expect(Object.keys(found)).toEqual(['mandatory payment-script-changed']);
  expect(run.json.inventories[0].integrity).toEqual({ unchanged: 0, unpinned: 1, changed: 1, unauthorized: 0 });
  const message = found['mandatory payment-script-changed']!;
  expect(message).toContain('ScriptInventory "checkout-scripts": 1 pinned script is no longer the version approved:');
  // On the page the listing places it (its first), whatever the entries: the pages do not move
  // with a pin, so the refresh shows no drift of them.
  expect(message).toContain(
    `  - ${CARD} on ${PAY} (entry ${CARD}; pinned hash ${APPROVED}; live hash ${REPLACED}; new version fetched 2026-11-24T03:10:00.000Z; scores: js_integrity_score 35`,
  );
  const section = paymentSection(run.markdown);
  expect(section).toContain(
    '**ScriptInventory `checkout-scripts`: 1 pinned script is no longer the version approved**',
  );
  expect(section).toContain(`pinned hash \`${APPROVED}\`; live hash \`${REPLACED}\``);
  // The refresh found the change outside the stack: the inventory's detected script, by integrity.
  expect(run.json.drift).toEqual([
    expect.objectContaining({
      name: 'checkout-scripts',
      changes: [`integrity changed: ${CARD}: unchanged -> changed (hash ${APPROVED} -> ${REPLACED})`],
    }),
  ]);
  // In the table, the URL's `://` escaped: GitHub makes no link of it.
  expect(run.markdown).toContain(`integrity changed: ${CARD.replace('://', '\\://')}: unchanged -> changed`);
}, 120_000);

test('the new version fails the weekly audit too, naming the script with both hashes', async () => {
  const audit = await runAudit(engine);
  expect(audit.code).toBe(1);
  expect(audit.stderr).toContain(`${CARD}: changed, pinned ${APPROVED}, live ${REPLACED} since `);
  const evidence = evidenceOf(audit);
  expect(evidence.passed).toBe(false);
  expect(evidence.counts).toMatchObject({ unchanged: 0, unpinned: 1, changed: 1, unauthorized: 0 });
  const scripts = evidence.inventories.flatMap((inventory) => inventory.pages.flatMap((page) => page.scripts));
  expect(scripts.find((script) => script.url === CARD)).toMatchObject({
    integrity: 'changed',
    entry: { url: CARD, hash: APPROVED },
    hash: REPLACED,
  });
}, 120_000);

test('a change that re-pins the script to its new version passes, and the report lists it as re-pinned', async () => {
  propose(REPLACED);
  const run = await runReview(engine);
  expect(run.code).toBe(0);
  // The policy's value, made from the inventory's sources, is the same: judged ahead.
  expect(run.json.requests.plan).toContain('active scripts, read ahead and judged ahead)');
  expect(run.json.violations.filter((v: { level: string }) => v.level === 'mandatory')).toEqual([]);
  // Nor an advisory one: a re-pin to the live version leaves nothing to say.
  expect(run.json.violations).toEqual([]);
  const [inventory] = run.json.inventories;
  expect(inventory.changes.repinned).toEqual([
    {
      entry: expect.objectContaining({ kind: 'url', text: CARD, hash: REPLACED }),
      from: APPROVED,
      to: REPLACED,
    },
  ]);
  expect(inventory.integrity).toEqual({ unchanged: 1, unpinned: 1, changed: 0, unauthorized: 0 });
  const section = paymentSection(run.markdown);
  expect(section).toContain(
    `**Entries re-pinned (1)**\n\n- url \`${CARD}\`: hash \`${APPROVED}\` -> \`${REPLACED}\`; Card form: the payment processor collects the card number in its own frame (owner: payments team)`,
  );
  expect(run.json.changes).toEqual([
    expect.objectContaining({ name: 'checkout-scripts', changes: [`re-pinned: ${CARD} (${APPROVED} -> ${REPLACED})`] }),
  ]);
}, 120_000);

test('the re-pin deployed: up updates the inventory alone, and the weekly audit passes again', async () => {
  const up = await engine.up();
  expect(up.summary.resourceChanges).toEqual({ update: 1, same: 2 });
  const audit = await runAudit(engine);
  expect(audit.code).toBe(0);
  expect(evidenceOf(audit).counts).toMatchObject({
    scripts: 2,
    unchanged: 1,
    unpinned: 1,
    changed: 0,
    unauthorized: 0,
  });
}, 120_000);

test('a new script on the payment page fails the review (payment-script-unauthorized), naming it', async () => {
  await emu.seed({ scripts: [{ zone_id: ZONE_ID, url: WIDGET, js_integrity_score: 55, page_urls: [PAY] }] });
  const run = await runReview(engine);
  expect(run.code).toBe(1);
  const found = violationsOf(run.json);
  expect(Object.keys(found)).toEqual(['mandatory payment-script-unauthorized']);
  const message = found['mandatory payment-script-unauthorized']!;
  expect(message).toContain(
    'ScriptInventory "checkout-scripts": 1 script detected on its payment pages is authorized by no entry:',
  );
  expect(message).toContain(`  - ${WIDGET} on ${PAY} (scores: js_integrity_score 55`);
  expect(paymentSection(run.markdown)).toContain(`- \`${WIDGET}\` on \`${PAY}\`; scores: js\\_integrity\\_score 55`);
}, 120_000);

test('an entry for a malicious script fails the review (payment-script-malicious), naming the entry and its score', async () => {
  await emu.seed({ scripts: [{ zone_id: ZONE_ID, url: SKIM, js_integrity_score: 5, page_urls: [PAY] }] });
  propose(REPLACED, [
    { url: WIDGET, justification: 'Support chat on the payment page' },
    { url: SKIM, justification: 'Conversion analytics' },
  ]);
  const run = await runReview(engine);
  expect(run.code).toBe(1);
  const found = violationsOf(run.json);
  expect(found['mandatory payment-script-unauthorized']).toBeUndefined();
  const message = found['mandatory payment-script-malicious']!;
  expect(message).toContain(
    `  - ${SKIM} on ${PAY} (entry ${SKIM} (justification: Conversion analytics); scores: js_integrity_score 5`,
  );
  expect(message).toContain('malicious (js_integrity_score 5)');
  // The reviewer sees the facts of what the change authorizes.
  expect(paymentSection(run.markdown)).toContain('**Detected scripts this change newly authorizes (2)**');
}, 120_000);

test('an entry without a justification fails the preview, naming the entry', async () => {
  propose(REPLACED, [{ url: WIDGET, justification: JUSTIFICATION_PLACEHOLDER }]);
  const run = await runReview(engine);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(
    `edgeguard-review: the review could not be done: the policy pack reported nothing; the preview failed: pulumi-nodejs:dynamic/edgeguard:ScriptInventory resource 'checkout-scripts': property scripts[2].justification value {<nil>} has a problem: scripts[2] (url "${WIDGET}"): invalid justification "${JUSTIFICATION_PLACEHOLDER}" at position 0: it holds the blank edgeguard-inventory writes`,
  );
  expect(run.markdown).toContain('**The EdgeGuard review could not be done**');
}, 120_000);
