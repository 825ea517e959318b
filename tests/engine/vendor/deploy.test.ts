import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LoggedRequest } from '../../../emulator/core/request-log';
import { DEMO } from '../../../emulator/seed/demo';
import { engineStack, type EngineStack } from '../../helpers/engine';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { FLAGSHIP_RESOURCES, STOREFRONT_VALUE } from '../../helpers/flagship';
import { runToEnd, type Finished } from '../../helpers/process';
import { REPO } from '../../helpers/repo';
import { runAudit, runReview } from '../../helpers/stack-commands';
import { loadVendorShapes, type VendorShapes } from '../../helpers/vendor-shapes';

/**
 * Issue 42, "Done when", over a whole deployment: in the `vendor` dialect, 0 requests that the
 * vendor's schema refuses, from the engine and every tool that talks to the service. One emulator
 * in the vendor's dialect holding the demo world; one stack of the flagship program (a copy of the
 * root project, so the review has a change to review) with `edgeguard:dialect: vendor` in its
 * configuration, the way a user selects it (and the way the stack commands, which read only the
 * stack's configuration, get it); in order: `pulumi up`, a preview that changes nothing,
 * `edgeguard-csp`, `edgeguard-inventory`, `edgeguard-import` (each with `--dialect vendor`),
 * `edgeguard-audit`, `edgeguard-review` of a changed CSP policy, `pulumi up` of that change and of
 * a new alert address (the updates), then `pulumi destroy`.
 *
 * Each step must succeed, and afterwards every request the emulator logged for it must be answered
 * below 400 and pass the vendor-shape checker (`tests/helpers/vendor-shapes.ts`: the vendor SDK's
 * declared parameters, the schema's page bounds and wildcard rule); the last test checks the whole
 * log again and that the run exercised each kind of write. The tests run in order and share the
 * stack; each checks only its own requests, so a failure names the step that sent the request.
 */

const TOKEN = 'e2e-vendor-deploy-token-6b2e90d4';
const ADMIN_TOKEN = 'e2e-vendor-deploy-admin-token-c17a5e38';
const ZONE = DEMO.zoneId;
const ACCOUNT = DEMO.accountId;
const CLI = (name: string) => path.join(REPO, 'dist', 'provider', 'cli', `${name}.js`);

/** The vendor's operations (`VENDOR_OPERATIONS`) that the run must have sent at least once. */
const EXERCISED = [
  'pageShield.get',
  'pageShield.update',
  'pageShield.scripts.list',
  'pageShield.policies.create',
  'pageShield.policies.list',
  'pageShield.policies.update',
  'pageShield.policies.delete',
  'customHostnames.create',
  'customHostnames.list',
  'customHostnames.get',
  'customHostnames.delete',
  'loadBalancers.pools.list',
  'loadBalancers.pools.bulkEdit',
  'alerting.policies.create',
  'alerting.policies.get',
  'alerting.policies.update',
  'alerting.policies.delete',
];

let emu: TestEmulator;
let shapes: VendorShapes;
let engine: EngineStack;

/** `METHOD path?query status` of a logged request, the path below `/client/v4/`. */
function line(entry: LoggedRequest): string {
  const query = new URLSearchParams(
    Object.entries(entry.query).flatMap(([key, value]) =>
      (Array.isArray(value) ? value : [value]).map((item): [string, string] => [key, item]),
    ),
  ).toString();
  return `${entry.method} ${entry.path.replace(/^\/client\/v4\//, '')}${query ? `?${query}` : ''} ${entry.status}`;
}

/**
 * What the requests after `mark` did wrong: those answered 400 or more (or reset), and every
 * problem the vendor-shape checker finds; throws when the step sent nothing (an empty log would
 * pass every check).
 */
async function requestsSince(mark: number): Promise<{ count: number; refused: string[]; problems: string[] }> {
  const logged = await emu.requests(mark);
  if (logged.length === 0) throw new Error(`no request logged after position ${mark}`);
  return {
    count: logged.length,
    refused: logged.filter((entry) => entry.status === null || entry.status >= 400).map(line),
    problems: logged.flatMap((entry) => shapes.requestProblems(entry).map((problem) => `${line(entry)}: ${problem}`)),
  };
}

/** Expects the requests after `mark` to be all answered below 400 and all valid against the vendor's shapes. */
async function expectVendorValid(mark: number): Promise<void> {
  const { refused, problems } = await requestsSince(mark);
  expect({ refused, problems }).toEqual({ refused: [], problems: [] });
}

/** A tool that talks to the service, built, with the service's settings in its environment and `--dialect vendor`. */
function tool(name: string, args: string[]): Promise<Finished> {
  return runToEnd(process.execPath, [CLI(name), ...args, '--dialect', 'vendor'], {
    env: { EDGEGUARD_BASE_URL: emu.baseUrl, EDGEGUARD_API_TOKEN: TOKEN },
  });
}

beforeAll(async () => {
  shapes = loadVendorShapes();
  emu = await startTestEmulator({
    dialect: 'vendor',
    seed: 'demo',
    fixture: false,
    tokens: [TOKEN],
    adminToken: ADMIN_TOKEN,
  });
  engine = await engineStack({
    projectDir: REPO,
    emu,
    token: TOKEN,
    config: {
      'edgeguard:dialect': { value: 'vendor' },
      'edgeguard:baseUrl': { value: emu.baseUrl },
      'edgeguard:apiToken': { value: TOKEN, secret: true },
    },
  });
}, 240_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
});

test('pulumi up deploys the flagship (its seven kinds of resource) with requests the vendor accepts', async () => {
  const mark = emu.mark();
  const up = await engine.up();
  expect(up.summary.result).toBe('succeeded');
  expect(up.summary.resourceChanges).toEqual({ create: FLAGSHIP_RESOURCES });
  for (const kind of [
    'PageSecuritySetting',
    'CspPolicy',
    'ScriptInventory',
    'CustomHostname',
    'CustomHostnameValidation',
    'HealthNotification',
    'PoolNotificationMigration',
  ])
    expect(up.stdout).toMatch(new RegExp(`edgeguard:${kind} \\S+ created`));
  // The outputs as the update reported them (none of these is a secret), not `pulumi stack output`
  // run twice more.
  const out = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.value]));
  expect(out.customHostname.status).toBe('active');
  expect(out.legacyEmailMigration.poolsCleared).toBe(60);
  expect(out.cspPolicies.storefront.value).toBe(STOREFRONT_VALUE);
  // The vendor's paths were the ones served: page security below page_shield.
  const served = (await emu.requests(mark)).map(line);
  expect(served.some((entry) => entry.includes(`zones/${ZONE}/page_shield/policies`))).toBe(true);
  expect(served.filter((entry) => entry.includes('/page_security'))).toEqual([]);
  await expectVendorValid(mark);
}, 300_000);

test('a second preview changes nothing, with requests the vendor accepts', async () => {
  const mark = emu.mark();
  const again = await engine.preview({ expectNoChanges: true });
  expect(again.changeSummary).toEqual({ same: FLAGSHIP_RESOURCES });
  await expectVendorValid(mark);
}, 180_000);

test('edgeguard-csp writes the checkout policy from what page security detected', async () => {
  const mark = emu.mark();
  const run = await tool('csp', ['--zone', ZONE, '--host', 'checkout.example.com']);
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  expect(run.stdout).toContain('new edgeguard.CspPolicy');
  await expectVendorValid(mark);
}, 120_000);

test('edgeguard-inventory writes the payment pages’ inventory', async () => {
  const mark = emu.mark();
  const run = await tool('inventory', ['--zone', ZONE, '--page', 'checkout.example.com/pay']);
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  expect(run.stdout).toContain('https://js.stripe.com/v3/fingerprinted/js/elements.js');
  await expectVendorValid(mark);
}, 120_000);

test('edgeguard-import declares the deployed zone and account', async () => {
  const mark = emu.mark();
  const run = await tool('import', ['--zone', ZONE, '--account', ACCOUNT]);
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  expect(run.stdout).toContain('new edgeguard.CustomHostname');
  expect(run.stdout).toContain('new edgeguard.HealthNotification');
  await expectVendorValid(mark);
}, 120_000);

test('edgeguard-audit gives the evidence of the checkout’s payment pages', async () => {
  const mark = emu.mark();
  const run = await runAudit(engine);
  // The demo world's payment pages load exactly the three pinned scripts, unchanged: the audit passes.
  expect({ code: run.code, stderr: run.stderr }).toEqual({
    code: 0,
    stderr: expect.stringMatching(/^edgeguard-audit: pass: /),
  });
  expect(run.files.json).toBeDefined();
  await expectVendorValid(mark);
}, 180_000);

/** The storefront policy's value with one source added: the change the review and the update work on. */
const CHANGED_STOREFRONT = `${STOREFRONT_VALUE} cdn.newly-added.example.net`;

/** Runs `step` with the stack's copy of the program changing the storefront policy, put back afterwards. */
async function withChangedProgram(step: () => Promise<void>): Promise<void> {
  const program = path.join(engine.workDir, 'flagship.ts');
  const original = fs.readFileSync(program, 'utf8');
  const changed = original.replace(STOREFRONT_VALUE, CHANGED_STOREFRONT);
  expect(changed).not.toBe(original);
  fs.writeFileSync(program, changed);
  try {
    await step();
  } finally {
    fs.writeFileSync(program, original);
  }
}

test('edgeguard-review reviews a change of the storefront policy', async () => {
  await withChangedProgram(async () => {
    const mark = emu.mark();
    const run = await runReview(engine);
    // Reviewed, with no mandatory violation (the storefront's weaknesses are advisory).
    expect({ code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.markdown).toContain('cdn.newly-added.example.net');
    await expectVendorValid(mark);
  });
}, 240_000);

test('pulumi up of that change and of a new alert address updates the policy and the notification in place', async () => {
  await engine.stack.setConfig('edgeguard-flagship:alertEmail', { value: 'oncall@example.com' });
  await withChangedProgram(async () => {
    const mark = emu.mark();
    const up = await engine.up();
    expect(up.summary.result).toBe('succeeded');
    expect(up.summary.resourceChanges).toEqual({ same: FLAGSHIP_RESOURCES - 2, update: 2 });
    expect(up.stdout).toMatch(/CspPolicy storefront-scripts-report updated/);
    expect(up.stdout).toMatch(/HealthNotification pool-health updated/);
    await expectVendorValid(mark);
  });
}, 240_000);

test('pulumi destroy removes the stack with requests the vendor accepts', async () => {
  const mark = emu.mark();
  const destroyed = await engine.destroy();
  expect(destroyed.summary.result).toBe('succeeded');
  expect(destroyed.summary.resourceChanges).toEqual({ delete: FLAGSHIP_RESOURCES });
  await expectVendorValid(mark);
}, 180_000);

test('over the whole run, not one request was refused or invalid against the vendor’s shapes', async () => {
  const { count, refused, problems } = await requestsSince(0);
  expect({ refused, problems }).toEqual({ refused: [], problems: [] });
  // What the run exercised, by the vendor's operation: a run that skipped a kind of write would
  // check nothing of it.
  const operations = new Set(
    (await emu.requests(0)).map((entry) => shapes.match(entry.method, entry.path)?.operation.id),
  );
  expect(count).toBeGreaterThan(40);
  expect([...operations].sort()).toEqual(expect.arrayContaining(EXERCISED));
});
