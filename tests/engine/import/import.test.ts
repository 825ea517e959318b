import * as fs from 'node:fs';
import * as path from 'node:path';
import { copyProject, engineStack, type EngineStack } from '../../helpers/engine';
import { REPO } from '../../helpers/repo';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { runToEnd, type Finished } from '../../helpers/process';

/**
 * `edgeguard-import` and the real engine: a zone with 3 CSP policies, 2 custom hostnames (one
 * active) and an account with an alert policy and pools, made outside any stack; the compiled bin
 * writes the program; its first `pulumi up` adopts everything without a single write to the
 * service (the same ids, the active hostname's ownership token and status kept), `pulumi preview
 * --expect-no-changes` passes after it, and a value then changed in the program updates that one
 * object in place.
 */

const BIN = path.join(REPO, 'dist', 'provider', 'cli', 'import.js');
const TOKEN = 'e2e-import-token-4c1d9a7e';
const ACCOUNT = 'a00000000000000000000000000000f1';
const ZONE = 'c00000000000000000000000000000f1';
const ZONE_NAME = 'saas.example';

let emu: TestEmulator;
let projectDir: string;
let engine: EngineStack;
/** What the service held before the import, read through the API. */
let before: Record<string, any>;

async function ok(method: string, route: string, body?: unknown): Promise<any> {
  const reply = await emu.api(method, route, body === undefined ? {} : { body });
  if (reply.status !== 200) throw new Error(`${method} ${route}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.result;
}

/** Everything of the zone and account that the program declares, as the API shows it. */
async function live(): Promise<Record<string, any>> {
  return {
    pageSecurity: await ok('GET', `zones/${ZONE}/page_security`),
    policies: await ok('GET', `zones/${ZONE}/page_security/policies`),
    hostnames: await ok('GET', `zones/${ZONE}/custom_hostnames`),
    alerts: await ok('GET', `accounts/${ACCOUNT}/alerting/v3/policies`),
    pools: await ok('GET', `accounts/${ACCOUNT}/load_balancers/pools`),
  };
}

/** Runs the compiled bin (asynchronously: the emulator answers from this process). */
function runImport(args: string[], env: Record<string, string>): Promise<Finished> {
  return runToEnd(process.execPath, [BIN, ...args], { env });
}

/** `METHOD path status` of the requests after `mark` that can change state. */
async function writes(mark: number): Promise<string[]> {
  return (await emu.writesSince(mark)).map((r) => `${r.method} ${r.path.replace('/client/v4/', '')} ${r.status}`);
}

beforeAll(async () => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first (npm test does)`);
  emu = await startTestEmulator({ fixture: false, tokens: [TOKEN] });
  const seeded = await emu.control('POST', 'seed', {
    accounts: [{ id: ACCOUNT, name: 'Acme' }],
    zones: [{ id: ZONE, name: ZONE_NAME, account_id: ACCOUNT }],
    pools: [
      { account_id: ACCOUNT, name: 'eu-west', notification_email: 'ops@example.com' },
      { account_id: ACCOUNT, name: 'us-east' },
    ],
  });
  expect(seeded.status).toBe(200);
  await ok('PUT', `zones/${ZONE}/page_security`, { enabled: true });
  for (const [description, host, value] of [
    ['Scripts allowed on the shop', 'shop.example.com', "script-src 'self' js.stripe.com"],
    ['Checkout "strict"', 'checkout.example.com', "script-src 'self' https://js.example.net/pay.js"],
    ['', 'blog.example.com', "script-src 'self' cdn.example.com *.analytics.example.org"],
  ]) {
    await ok('POST', `zones/${ZONE}/page_security/policies`, {
      description,
      action: description === '' ? 'log' : 'allow',
      expression: `http.host eq "${host}"`,
      enabled: 'true',
      value,
    });
  }
  const active = await ok('POST', `zones/${ZONE}/custom_hostnames`, {
    hostname: 'shop.customer.net',
    ssl: { method: 'txt', type: 'dv', certificate_authority: '' },
  });
  const published = await emu.control('POST', 'dns', {
    hostname: active.hostname,
    records: [{ type: 'TXT', name: active.ownership_verification.name, value: active.ownership_verification.value }],
  });
  expect(published.status).toBe(200);
  await ok('POST', `zones/${ZONE}/custom_hostnames`, {
    hostname: '*.pending-customer.net',
    ssl: { method: 'http', type: 'dv', certificate_authority: 'lets_encrypt' },
  });
  const pools: Array<{ id: string }> = await ok('GET', `accounts/${ACCOUNT}/load_balancers/pools`);
  await ok('POST', `accounts/${ACCOUNT}/alerting/v3/policies`, {
    name: 'Pool health',
    enabled: true,
    alert_type: 'load_balancing_health_alert',
    mechanisms: { email: [{ id: 'noc@example.com' }] },
    filters: { pool_id: pools.map((pool) => pool.id), new_health: ['Unhealthy'] },
  });
  before = await live();
  expect(before.policies).toHaveLength(3);
  expect(before.hostnames.map((h: any) => h.status).sort()).toEqual(['active', 'pending']);
  expect(before.alerts).toHaveLength(1);
  projectDir = copyProject(path.join(__dirname, 'projects', 'imported'));
}, 60_000);

afterAll(async () => {
  await engine?.dispose();
  if (projectDir !== undefined) fs.rmSync(projectDir, { recursive: true, force: true });
  await emu?.close();
});

test('edgeguard-import writes the program, reading only, and says what it declared', async () => {
  const mark = emu.mark();
  const run = await runImport(
    ['--zone', ZONE.toUpperCase(), '--account', ACCOUNT, '--out', path.join(projectDir, 'index.ts')],
    { EDGEGUARD_BASE_URL: emu.baseUrl, EDGEGUARD_API_TOKEN: TOKEN },
  );
  expect(run.stderr).toBe(
    `edgeguard-import: wrote ${path.join(projectDir, 'index.ts')}: 1 PageSecuritySetting, 3 CspPolicy, 2 CustomHostname, ` +
      '1 HealthNotification to adopt; 1 pool with a legacy e-mail noted in a comment\n',
  );
  expect(run.status).toBe(0);
  expect(run.stdout).toBe('');
  expect(await writes(mark)).toEqual([]);
  const program = fs.readFileSync(path.join(projectDir, 'index.ts'), 'utf8');
  for (const object of [...before.policies, ...before.hostnames, ...before.alerts]) {
    expect(program).toContain(`adoptId: "${object.id}"`);
  }
  expect(program).toContain('"eu-west"');
  expect(program).not.toContain(TOKEN);
});

test('its first pulumi up adopts everything: no write to the service, the same ids, tokens and statuses', async () => {
  // The program edgeguard-import wrote: ts-node type-checks it, as at a user's first run.
  engine = await engineStack({ projectDir, inPlace: true, emu, token: TOKEN, typeCheck: true });
  const mark = emu.mark();
  const up = await engine.up();
  expect(up.summary.result).toBe('succeeded');
  expect(up.summary.resourceChanges).toEqual({ create: 8 });
  expect(await writes(mark)).toEqual([]);
  expect((await emu.requests(mark)).filter((r) => r.method === 'POST')).toEqual([]);
  // Everything as it was, field for field: ids, the active hostname's ownership token and status, timestamps.
  expect(await live()).toEqual(before);
  const activeBefore = before.hostnames.find((h: any) => h.status === 'active');
  const activeAfter = (await live()).hostnames.find((h: any) => h.id === activeBefore.id);
  expect(activeAfter.ownership_verification).toEqual(activeBefore.ownership_verification);
  expect(activeAfter.status).toBe('active');

  // The state records the adopted objects under their own ids (the backend's state file, which `pulumi
  // stack export` would print).
  const resources = JSON.parse(engine.stateText()).checkpoint.latest.resources.filter((r: any) =>
    r.type.startsWith('pulumi-nodejs:dynamic/edgeguard:'),
  );
  expect(resources.map((r: any) => r.id).sort()).toEqual(
    [ZONE, ...[...before.policies, ...before.hostnames, ...before.alerts].map((o: any) => o.id)].sort(),
  );

  // The engine's output says each was adopted, not created: a line of the provider each, shown
  // under the stack's diagnostics (the dynamic-provider host does not say which resource wrote it).
  const diagnostics = up.stdout.slice(up.stdout.indexOf('Diagnostics:'), up.stdout.indexOf('Resources:'));
  const adopted = diagnostics.split('\n').filter((line) => line.includes(' adopted '));
  expect(adopted).toHaveLength(6);
  for (const policy of before.policies) {
    expect(diagnostics).toContain(
      `    CspPolicy: adopted CSP policy ${policy.id} (${policy.description === '' ? policy.expression : JSON.stringify(policy.description)}) ` +
        `in zone ${ZONE}, not created; it was as declared, nothing written\n`,
    );
  }
  for (const hostname of before.hostnames) {
    expect(diagnostics).toContain(
      `    CustomHostname: adopted custom hostname ${hostname.id} ("${hostname.hostname}", ${hostname.status}) in zone ${ZONE}, not created; it was as declared, nothing written\n`,
    );
  }
  expect(diagnostics).toContain(
    `    HealthNotification: adopted notification policy ${before.alerts[0].id} ("Pool health") in account ${ACCOUNT}, not created; it was as declared, nothing written\n`,
  );
}, 240_000);

test('the preview after it shows no change', async () => {
  const mark = emu.mark();
  const preview = await engine.preview({ expectNoChanges: true });
  expect(preview.changeSummary).toEqual({ same: 8 });
  expect(await writes(mark)).toEqual([]);
}, 180_000);

test('a value changed in the program then updates that one object in place', async () => {
  const file = path.join(projectDir, 'index.ts');
  const program = fs.readFileSync(file, 'utf8');
  expect(program).toContain('description: "Scripts allowed on the shop",');
  fs.writeFileSync(
    file,
    program.replace('description: "Scripts allowed on the shop",', 'description: "Scripts allowed on the shop (v2)",'),
  );
  const policy = before.policies.find((p: any) => p.description === 'Scripts allowed on the shop');
  const mark = emu.mark();
  const up = await engine.up();
  expect(up.summary.resourceChanges).toEqual({ update: 1, same: 7 });
  expect(await writes(mark)).toEqual([`PUT zones/${ZONE}/page_security/policies/${policy.id} 200`]);
  const after = await live();
  expect(after.policies.map((p: any) => p.id).sort()).toEqual(before.policies.map((p: any) => p.id).sort());
  expect(after.policies.find((p: any) => p.id === policy.id).description).toBe('Scripts allowed on the shop (v2)');
  expect(engine.output.join('') + engine.stateText()).not.toContain(TOKEN);
}, 240_000);
