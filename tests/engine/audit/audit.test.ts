import * as fs from 'node:fs';
import * as path from 'node:path';
import { auditEvidenceSchema, type AuditEvidence } from '../../../provider/audit/schema';
import { engineStack, type EngineStack } from '../../helpers/engine';
import { startTestEmulator, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { runToEnd } from '../../helpers/process';
import { REPO } from '../../helpers/repo';

/**
 * `edgeguard-audit` through the real engine (issue 25, item 4): a checkout's ScriptInventory and
 * the CspPolicy enforcing it, deployed against the emulator with the service's settings in the
 * stack's configuration alone (the token a secret); the built command run as a weekly job runs
 * it, from the project's folder and the stack's name. It passes while the scripts are as the
 * inventory says, fails when the pinned script's content changes, and cannot be done without an
 * inventory or with a token the service refuses; no output ever holds the token.
 */

const PULUMI_BIN = path.join(REPO, '.tools', 'pulumi', 'bin');
const CLI = path.join(REPO, 'dist', 'provider', 'audit', 'cli.js');
const TOKEN = 'e2e-audit-token-3f9a61c2';
const REFUSED = 'e2e-audit-token-the-emulator-refuses-77b1';
const CARD = 'https://js.pay.example/v3/card.js';
const OWN = 'https://shop.example.com/js/checkout.js';
const [V1, V2] = ['a1', 'b2'].map((two) => two.repeat(32)) as [string, string];
const VERSION = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

let emu: TestEmulator;
let engine: EngineStack;
/** Another team's report-only policy on the checkout's host, which the stack does not manage. */
let othersPolicy: string;

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
        page_urls: ['https://shop.example.com/checkout/pay'],
      },
      { zone_id: ZONE_ID, url: OWN, page_urls: ['https://shop.example.com/checkout'] },
      { zone_id: ZONE_ID, url: 'https://cdn.other.example/blog.js', page_urls: ['https://shop.example.com/blog'] },
    ],
  });
  const created = await emu.api('POST', `zones/${ZONE_ID}/page_security/policies`, {
    body: {
      description: 'Security team: report everything',
      action: 'log',
      expression: 'http.host eq "shop.example.com"',
      enabled: true,
      value: "script-src 'none'",
    },
  });
  othersPolicy = created.body.result.id as string;
  engine = await engineStack({
    projectDir: path.join(__dirname, 'projects', 'checkout'),
    emu,
    token: TOKEN,
    providerEnv: false,
    config: {
      zoneId: { value: ZONE_ID },
      cardHash: { value: V1 },
      'edgeguard:baseUrl': { value: emu.baseUrl },
      'edgeguard:apiToken': { value: TOKEN, secret: true },
    },
  });
  await engine.up();
}, 180_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
});

interface AuditRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The files written, by flag. */
  files: { json?: string; html?: string };
}

/**
 * `edgeguard-audit --cwd <project> --stack <stack> --markdown - --json <file> --html <file>` as a
 * scheduled job runs it: the engine on PATH, the backend in the environment, no EDGEGUARD_*
 * variable (runToEnd drops them), so the settings come from the stack's configuration alone.
 */
async function audit(stack = engine.stack.name): Promise<AuditRun> {
  const json = path.join(engine.workDir, 'audit.json');
  const html = path.join(engine.workDir, 'audit.html');
  for (const file of [json, html]) fs.rmSync(file, { force: true });
  const env = Object.fromEntries(
    Object.entries(engine.stack.workspace.envVars).filter(([name]) => !name.startsWith('EDGEGUARD_')),
  );
  const { status, stdout, stderr } = await runToEnd(
    process.execPath,
    [CLI, '--cwd', engine.workDir, '--stack', stack, '--markdown', '-', '--json', json, '--html', html],
    { env: { ...env, PATH: `${PULUMI_BIN}:${process.env.PATH ?? ''}` } },
  );
  const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined);
  const files = { json: read(json), html: read(html) };
  // Whatever the outcome, the credential never shows.
  for (const text of [stdout, stderr, files.json ?? '', files.html ?? '']) {
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(REFUSED);
  }
  return {
    code: status,
    stdout,
    stderr,
    files: Object.fromEntries(Object.entries(files).filter(([, text]) => text !== undefined)),
  };
}

function evidenceOf(run: AuditRun): AuditEvidence {
  return auditEvidenceSchema.parse(JSON.parse(run.files.json!));
}

test('the deployed inventory as deployed: exit 0, with the headers in force and each script’s entry and integrity', async () => {
  const run = await audit();
  expect({ code: run.code, stderr: run.stderr }).toEqual({
    code: 0,
    stderr: expect.stringMatching(/^edgeguard-audit: pass: /),
  });
  const evidence = evidenceOf(run);
  expect(evidence).toMatchObject({
    tool: { name: 'edgeguard-audit', version: VERSION },
    project: 'edgeguard-e2e-audit',
    stack: engine.stack.name,
    passed: true,
    counts: { scripts: 2, unchanged: 1, unpinned: 1, changed: 0, unauthorized: 0, malicious: 0 },
  });
  expect(Date.now() - Date.parse(evidence.evaluatedAt)).toBeLessThan(120_000);
  const [inventory] = evidence.inventories;
  expect(inventory).toMatchObject({ name: 'checkout-scripts', zoneId: ZONE_ID, staleEntries: [] });
  const [page] = inventory!.pages;
  expect(page!.page).toBe('shop.example.com/checkout');
  expect(page!.headers.map((header) => [header.mode, header.value, header.managedBy?.name])).toEqual([
    ['enforced', `script-src ${CARD} https://shop.example.com/js/`, 'checkout-enforce'],
    ['report-only', "script-src 'none'", undefined],
  ]);
  expect(page!.headers[1]!.policyId).toBe(othersPolicy);
  expect(
    page!.scripts.map((script) => [script.url, script.integrity, script.hash ?? null, script.entry?.owner]),
  ).toEqual([
    [CARD, 'unchanged', V1, 'payments team'],
    [OWN, 'unpinned', expect.any(String), 'web team'],
  ]);

  expect(run.stdout.startsWith('# Payment-page scripts of edgeguard-e2e-audit / ')).toBe(true);
  expect(run.stdout).toContain(
    '**Pass**: every script seen on the payment pages is authorized, none changed and none malicious.',
  );
  expect(run.stdout).toContain(`| \`${CARD}\` (active`);
  expect(run.stdout).toContain(`**pinned, unchanged**: hash \`${V1}\``);
  expect(run.files.html).toContain('<title>Payment-page scripts of edgeguard-e2e-audit / ');
});

test('a new version of the pinned script: exit 1, the JSON says changed with both hashes and when, stderr names it', async () => {
  const listed = await emu.api('GET', `zones/${ZONE_ID}/page_security/scripts`);
  const card = (listed.body.result as Array<{ id: string; url: string }>).find((script) => script.url === CARD)!;
  const posted = await emu.control('POST', `zones/${ZONE_ID}/page_security/scripts/${card.id}/versions`, {
    hash: V2,
    fetched_at: '2026-11-24T10:00:00.000Z',
  });
  expect(posted.status).toBe(200);

  const run = await audit();
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(
    `${CARD}: changed, pinned ${V1}, live ${V2} since 2026-11-24T10:00:00.000Z, on shop.example.com/checkout (inventory checkout-scripts)`,
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

test('cannot be done: a stack without an inventory, a stack that does not exist, a token the service refuses: exit 2 with the reason', async () => {
  await engine.stack.workspace.createStack('empty');
  try {
    const empty = await audit('empty');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain(
      'edgeguard-audit: the audit could not be done: stack empty of project edgeguard-e2e-audit holds no ScriptInventory',
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
