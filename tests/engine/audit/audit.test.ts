import type { EngineStack } from '../../helpers/engine';
import { startTestEmulator, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { packageVersion } from '../../helpers/languages';
import { PAYMENT_PAGES, paymentPagesStack } from '../../helpers/payment-pages';
import { evidenceOf, runAudit, type AuditRun } from '../../helpers/stack-commands';

/**
 * `edgeguard-audit` through the real engine (issue 25, item 4): a checkout's ScriptInventory and
 * the CspPolicy enforcing it (tests/engine/projects/payment-pages, the card script pinned),
 * deployed against the emulator with the service's settings in the stack's configuration alone
 * (the token a secret); the built command run as a weekly job runs it, from the project's folder
 * and the stack's name. It passes while the scripts are as the inventory says, fails when the
 * pinned script's content changes, and cannot be done without an inventory or with a token the
 * service refuses; no output ever holds the token.
 */

const TOKEN = 'e2e-audit-token-3f9a61c2';
const REFUSED = 'e2e-audit-token-the-emulator-refuses-77b1';
const { project: PROJECT, host: HOST, page: PAY, card: CARD, ownCode: OWN_CODE } = PAYMENT_PAGES;
const OWN = `${OWN_CODE}checkout.js`;
/** The card script's version the program pins, and the version that replaces it. */
const [V1, V2] = [PAYMENT_PAGES.cardHash, 'b2'.repeat(32)];

let emu: TestEmulator;
let engine: EngineStack;

beforeAll(async () => {
  emu = await startTestEmulator({ tokens: [TOKEN] });
  await emu.seed({
    scripts: [
      {
        zone_id: ZONE_ID,
        url: CARD,
        hash: V1,
        first_seen_at: '2026-10-01T00:00:00.000Z',
        fetched_at: '2026-10-01T00:00:00.000Z',
        page_urls: [`${PAY}/confirm`],
      },
      { zone_id: ZONE_ID, url: OWN, page_urls: [PAY] },
      { zone_id: ZONE_ID, url: 'https://cdn.other.example/blog.js', page_urls: [`https://${HOST}/blog`] },
    ],
  });
  engine = await paymentPagesStack(emu, TOKEN);
  await engine.up();
}, 180_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
});

/**
 * The built `edgeguard-audit` on `stack` of the project as a weekly job runs it, with the service's
 * settings from the stack's configuration alone ({@link runAudit}); whatever the outcome, no output
 * holds the token.
 */
async function audit(stack?: string): Promise<AuditRun> {
  const run = await runAudit(engine, stack);
  for (const text of [run.stdout, run.stderr, run.files.json ?? '', run.files.html ?? '']) {
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(REFUSED);
  }
  return run;
}

test('the deployed inventory as deployed: exit 0, with the headers in force and each script’s entry and integrity', async () => {
  const run = await audit();
  expect({ code: run.code, stderr: run.stderr }).toEqual({
    code: 0,
    stderr: expect.stringMatching(/^edgeguard-audit: pass: /),
  });
  const evidence = evidenceOf(run);
  expect(evidence).toMatchObject({
    tool: { name: 'edgeguard-audit', version: packageVersion() },
    project: PROJECT,
    stack: engine.stack.name,
    passed: true,
    counts: { scripts: 2, unchanged: 1, unpinned: 1, changed: 0, unauthorized: 0, malicious: 0 },
  });
  expect(Date.now() - Date.parse(evidence.evaluatedAt)).toBeLessThan(120_000);
  const [inventory] = evidence.inventories;
  expect(inventory).toMatchObject({ name: 'checkout-scripts', zoneId: ZONE_ID, staleEntries: [] });
  const [page] = inventory!.pages;
  expect(page!.page).toBe(`${HOST}/pay`);
  expect(page!.headers.map((header) => [header.mode, header.value, header.managedBy?.name])).toEqual([
    ['enforced', `script-src ${OWN_CODE} ${CARD}; object-src 'none'; base-uri 'self'`, 'checkout-enforce'],
  ]);
  expect(inventory!.headerChanges).toEqual([]);
  expect(
    page!.scripts.map((script) => [script.url, script.integrity, script.hash ?? null, script.entry?.owner]),
  ).toEqual([
    [OWN, 'unpinned', expect.any(String), 'web team'],
    [CARD, 'unchanged', V1, 'payments team'],
  ]);

  expect(run.stdout.startsWith(`# Payment-page scripts of ${PROJECT} / `)).toBe(true);
  expect(run.stdout).toContain(
    '**Pass**: every script seen on the payment pages is authorized, none changed and none malicious.',
  );
  expect(run.stdout).toContain(`| \`${CARD}\` (active`);
  expect(run.stdout).toContain(`**pinned, unchanged**: hash \`${V1}\``);
  expect(run.files.html).toContain(`<title>Payment-page scripts of ${PROJECT} / `);
});

test('a new version of the pinned script: exit 1, the JSON says changed with both hashes and when, stderr names it', async () => {
  await emu.newScriptVersion(ZONE_ID, CARD, { hash: V2, fetched_at: '2026-11-24T10:00:00.000Z' });

  const run = await audit();
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(
    `${CARD}: changed, pinned ${V1}, live ${V2} since 2026-11-24T10:00:00.000Z, on ${HOST}/pay (inventory checkout-scripts)`,
  );
  const evidence = evidenceOf(run);
  expect(evidence.passed).toBe(false);
  const changed = evidence.inventories[0]!.pages[0]!.scripts.find((script) => script.url === CARD)!;
  expect(changed).toMatchObject({
    integrity: 'changed',
    entry: { hash: V1 },
    hash: V2,
    changedAt: '2026-11-24T10:00:00.000Z',
  });
  expect(changed.versionsSince.map((version) => [version.hash, version.fetchedAt, version.pinned])).toEqual([
    [V2, '2026-11-24T10:00:00.000Z', false],
    [V1, '2026-10-01T00:00:00.000Z', true],
  ]);
  expect(run.stdout).toContain('**Fail**: 1 pinned script changed.');
});

test('another team’s report-only policy on the checkout’s host: exit 1, listed in force without a manager and named as a header the stack does not manage', async () => {
  const created = await emu.api('POST', `zones/${ZONE_ID}/page_security/policies`, {
    body: {
      description: 'Security team: report everything',
      action: 'log',
      expression: `http.host eq "${HOST}"`,
      enabled: true,
      value: "script-src 'none'",
    },
  });
  const othersPolicy = created.body.result.id as string;
  try {
    const run = await audit();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `CSP header the stack does not manage on ${HOST}: policy ${othersPolicy}; before: none (the stack declares no such policy), after: Content-Security-Policy-Report-Only: script-src 'none'. Bring it under the stack`,
    );
    const inventory = evidenceOf(run).inventories[0]!;
    expect(inventory.pages[0]!.headers.map((header) => [header.mode, header.policyId, header.managedBy?.name])).toEqual(
      [
        ['enforced', expect.any(String), 'checkout-enforce'],
        ['report-only', othersPolicy, undefined],
      ],
    );
    expect(inventory.headerChanges).toMatchObject([{ change: 'unmanaged', policyId: othersPolicy, host: HOST }]);
  } finally {
    await emu.api('DELETE', `zones/${ZONE_ID}/page_security/policies/${othersPolicy}`);
  }
});

test('cannot be done: a stack without an inventory, a stack that does not exist, a token the service refuses: exit 2 with the reason; the stack named is not selected', async () => {
  // `pulumi stack init` selects the stack it creates: the stack under test is selected again, and
  // the audit of another stack, named, leaves that selection alone.
  await engine.stack.workspace.createStack('empty');
  await engine.stack.workspace.selectStack(engine.stack.name);
  try {
    const empty = await audit('empty');
    expect((await engine.stack.workspace.stack())?.name).toBe(engine.stack.name);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain(
      `edgeguard-audit: the audit could not be done: stack empty of project ${PROJECT} holds no ScriptInventory`,
    );
    expect(empty.files).toEqual({});
  } finally {
    await engine.stack.workspace.removeStack('empty', { force: true });
  }

  const missing = await audit('no-such-stack');
  expect(missing.code).toBe(2);
  expect(missing.stderr).toBe(
    "edgeguard-audit: the audit could not be done: pulumi: no stack named 'no-such-stack' found\n",
  );

  await engine.stack.setConfig('edgeguard:apiToken', { value: REFUSED, secret: true });
  try {
    const refused = await audit();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^edgeguard-audit: the audit could not be done: .*401/);
    expect(refused.stdout).toBe('');
    expect(refused.files).toEqual({});
  } finally {
    await engine.stack.setConfig('edgeguard:apiToken', { value: TOKEN, secret: true });
  }
});
