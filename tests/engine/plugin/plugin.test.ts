import * as fs from 'node:fs';
import * as path from 'node:path';
import { countFaults, read, WRITE_METHODS } from '../faults/support';
import { copyProject, engineStack, failureOf, type EngineStack } from '../../helpers/engine';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { PLUGIN_BUILD, usePluginBuild } from '../../helpers/languages';
import { SECRET_SIG, SIG_KEY } from '../../helpers/plugin';
import { runToEnd, type Finished } from '../../helpers/process';

/**
 * The provider plugin through the real engine, one stack taken through every step: two explicit
 * providers with two tokens limited to their accounts' zones, each policy in its zone; `preview
 * --diff` with a replacing `zoneId` and a reordered value; a token used on the other zone, refused
 * with the service's reason; every resource that has an identity imported (`pulumi import` or the
 * `import` option) with no write, then no change, and PoolNotificationMigration's import refused;
 * a resource under the default provider, configured by the stack's `edgeguard:*` configuration
 * alone; 503s and lost answers with no duplicate; destroy.
 */

// The plugin as users run it: the single executable `npm run build` writes.
const EXECUTABLE = path.join(PLUGIN_BUILD, 'pulumi-resource-edgeguard');
const ADMIN = 'e2e-plugin-admin-token-2f7a91c3';
const TOKEN_A = 'e2e-plugin-token-a-8d41e07b';
const TOKEN_B = 'e2e-plugin-token-b-51c9f2a6';
/** The default provider's (the stack's `edgeguard:apiToken`), reaching ZONE_A2 only. */
const TOKEN_DEFAULT = 'e2e-plugin-token-default-63b0d4e8';
const ACCOUNT_A = 'a00000000000000000000000000000a1';
const ACCOUNT_B = 'a00000000000000000000000000000b1';
const ZONE_A = 'c00000000000000000000000000000a1';
const ZONE_A2 = 'c00000000000000000000000000000a2';
const ZONE_B = 'c00000000000000000000000000000b1';
/** A zone on hold: a custom hostname under it cannot become active. */
const HELD_ZONE = 'c00000000000000000000000000000a9';
const HELD_HOSTNAME = 'shop.held-customer.example';
const POOL = 'b00000000000000000000000000000a1';
const IMPORTED_HOSTNAME = 'shop.imported-customer.example';
const CSP_TYPE = 'edgeguard:index:CspPolicy';

let emu: TestEmulator;
let engine: EngineStack;
let projectDir: string;
/** The id of the hostname the failed update kept in the state; the next update, the imports', deletes it. */
let heldHostnameId: string;

/** The state's CspPolicy resources: name, id and properties. */
function statePolicies(): Array<{
  name: string;
  id: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}> {
  const resources = JSON.parse(engine.stateText()).checkpoint.latest.resources as Array<any>;
  return resources
    .filter((r) => r.type === CSP_TYPE)
    .map((r) => ({ name: r.urn.split('::').pop(), id: r.id, inputs: r.inputs, outputs: r.outputs }));
}

async function policiesOf(zone: string): Promise<Array<{ id: string; description: string; value: string }>> {
  return read(emu, ADMIN, `zones/${zone}/page_security/policies`);
}

async function createDirectly(zone: string, description: string, host: string, value: string): Promise<string> {
  const reply = await emu.api('POST', `zones/${zone}/page_security/policies`, {
    headers: { authorization: `Bearer ${ADMIN}` },
    body: { description, action: 'log', expression: `http.host eq "${host}"`, value, enabled: 'true' },
  });
  expect(reply.status).toBe(200);
  return reply.body.result.id as string;
}

/**
 * Sets the program's configuration `values` (plain text) with one `pulumi config set-all`, or removes
 * `keys` with one `pulumi config rm-all`: a `pulumi` command costs about half a second of CPU, so
 * the keys of a step go in one.
 */
async function setConfig(values: Record<string, string>): Promise<void> {
  await engine.stack.setAllConfig(Object.fromEntries(Object.entries(values).map(([key, value]) => [key, { value }])));
}
async function removeConfig(...keys: string[]): Promise<void> {
  await engine.stack.removeAllConfig(keys);
}

beforeAll(async () => {
  if (!fs.existsSync(EXECUTABLE))
    throw new Error(`${EXECUTABLE} is missing: run "npm run build" first (npm test does)`);
  emu = await startTestEmulator({ fixture: false, tokens: [ADMIN] });
  await emu.seed({
    accounts: [{ id: ACCOUNT_A }, { id: ACCOUNT_B }],
    zones: [
      { id: ZONE_A, account_id: ACCOUNT_A },
      { id: ZONE_A2, account_id: ACCOUNT_A },
      { id: ZONE_B, account_id: ACCOUNT_B },
      { id: HELD_ZONE, name: 'held-customer.example', account_id: ACCOUNT_A },
    ],
    // Each token reaches its own account's zones only.
    tokens: [
      { value: TOKEN_A, accounts: [ACCOUNT_A] },
      { value: TOKEN_B, zones: [ZONE_B] },
      { value: TOKEN_DEFAULT, zones: [ZONE_A2] },
    ],
    pools: [{ id: POOL, account_id: ACCOUNT_A, name: 'origin-a' }],
  });
  expect((await emu.control('POST', `zones/${HELD_ZONE}/hold`, { include_subdomains: true })).status).toBe(200);
  projectDir = copyProject(path.join(__dirname, 'projects', 'plugin'));
  usePluginBuild(projectDir);
  engine = await engineStack({
    projectDir,
    inPlace: true,
    emu,
    token: ADMIN,
    // No EDGEGUARD_* fallback: the explicit providers take their inputs, the default provider the stack's configuration.
    providerEnv: false,
    config: {
      'edgeguard:baseUrl': { value: emu.baseUrl },
      'edgeguard:apiToken': { value: TOKEN_DEFAULT, secret: true },
      baseUrl: { value: emu.baseUrl },
      accountA: { value: ACCOUNT_A },
      tokenA: { value: TOKEN_A, secret: true },
      tokenB: { value: TOKEN_B, secret: true },
      zoneA: { value: ZONE_A },
      zoneB: { value: ZONE_B },
    },
  });
}, 60_000);

afterAll(async () => {
  await engine?.dispose();
  if (projectDir !== undefined) fs.rmSync(projectDir, { recursive: true, force: true });
  await emu?.close();
});

test('two providers with two tokens: each policy lands in its zone; ids are import ids; no __provider or token in the state', async () => {
  const up = await engine.up();
  expect(up.summary.resourceChanges).toEqual({ create: 5 });
  const [inA, inB] = [await policiesOf(ZONE_A), await policiesOf(ZONE_B)];
  expect(inA.map((p) => p.description)).toEqual(['shop-a']);
  expect(inB.map((p) => p.description)).toEqual(['shop-b']);
  expect(
    statePolicies()
      .map((p) => [p.name, p.id])
      .sort(),
  ).toEqual([
    ['shop-a', `${ZONE_A}/${inA[0]!.id}`],
    ['shop-b', `${ZONE_B}/${inB[0]!.id}`],
  ]);
  const state = engine.stateText();
  expect(state).not.toContain('__provider');
  for (const token of [TOKEN_A, TOKEN_B, ADMIN]) {
    expect(state).not.toContain(token);
    expect(engine.output.join('')).not.toContain(token);
  }
}, 180_000);

test('preview --diff shows the replacing zoneId per property, and a reordered value as no change', async () => {
  await setConfig({ shopAZone: ZONE_A2, shopBValue: "script-src cdn.b.example 'self' CDN.B.example" });
  try {
    const mark = emu.mark();
    const preview = await engine.preview({ diff: true });
    expect(preview.changeSummary).toEqual({ replace: 1, same: 4 });
    expect(preview.stdout).toMatch(/\+-edgeguard:index:CspPolicy: \(replace\)/);
    expect(preview.stdout).toMatch(new RegExp(`~ zoneId\\s*: "${ZONE_A}" => "${ZONE_A2}"`));
    expect(preview.stdout).not.toMatch(/~ value/);
    expect((await emu.requests(mark)).filter((r) => WRITE_METHODS.has(r.method))).toEqual([]);
  } finally {
    await removeConfig('shopAZone', 'shopBValue');
  }
}, 180_000);

test("a token used on the other account's zone is refused with the service's reason; a hostname that cannot work yet is kept in the state", async () => {
  await setConfig({ crossZone: 'true', heldHostname: HELD_HOSTNAME });
  try {
    // The engine goes on with the other steps after the refusal, so the hostname's create is not left to a race.
    const error = await failureOf(engine.up({ continueOnError: true }));
    expect(error.message).toContain(
      `create CSP policy (POST zones/${ZONE_B}/page_security/policies) failed: HTTP 403: [9109] the API token has no access to zone ${ZONE_B}`,
    );
    expect(await policiesOf(ZONE_B)).toHaveLength(1);
    // The partial failure: the hostname exists on the service, and the state records it under the plugin's id.
    const hostnames = await read<Array<{ id: string; status: string }>>(emu, ADMIN, `zones/${ZONE_A}/custom_hostnames`);
    expect(hostnames.map((h) => h.status)).toEqual(['blocked']);
    const resources = JSON.parse(engine.stateText()).checkpoint.latest.resources as Array<{ type: string; id: string }>;
    expect(resources.filter((r) => r.type === 'edgeguard:index:CustomHostname').map((r) => r.id)).toEqual([
      `${ZONE_A}/${hostnames[0]!.id}`,
    ]);
    heldHostnameId = hostnames[0]!.id;
  } finally {
    // No update of its own to delete the kept hostname: the next test's update does (an update costs
    // 6 to 9 s of CPU), and asserts it.
    await removeConfig('crossZone', 'heldHostname');
  }
}, 180_000);

/** `pulumi import TYPE NAME ID` as a user types it, under the explicit provider of account A. */
async function pulumiImport(type: string, name: string, id: string): Promise<Finished> {
  const resources = JSON.parse(engine.stateText()).checkpoint.latest.resources as Array<{ urn: string; type: string }>;
  const providerA = resources.find((r) => r.type === 'pulumi:providers:edgeguard' && r.urn.endsWith('::account-a'))!;
  const workspace = engine.stack.workspace;
  return runToEnd(
    workspace.pulumiCommand.command,
    [
      'import',
      type,
      name,
      id,
      '--provider',
      `account-a=${providerA.urn}`,
      '--generate-code=false',
      '--protect=false',
      '--yes',
      '--non-interactive',
      '--stack',
      engine.stack.name,
    ],
    { cwd: engine.workDir, env: workspace.envVars },
  );
}

/** Objects made directly on the service, one of each resource that has an identity besides CspPolicy. */
async function makeDirectly(): Promise<{ hostnameId: string; notificationId: string }> {
  const auth = { authorization: `Bearer ${ADMIN}` };
  expect(
    (await emu.api('PUT', `zones/${ZONE_A2}/page_security`, { headers: auth, body: { enabled: true } })).status,
  ).toBe(200);
  const hostname = await emu.api('POST', `zones/${ZONE_A}/custom_hostnames`, {
    headers: auth,
    body: { hostname: IMPORTED_HOSTNAME, ssl: { method: 'txt', type: 'dv' } },
  });
  expect(hostname.status).toBe(200);
  const { id: hostnameId, ownership_verification: ownership } = hostname.body.result;
  // The ownership record published: the hostname and its certificate become active, so its validation has nothing left to do.
  const dns = { hostname: ownership.name, records: [{ type: 'TXT', value: ownership.value }] };
  expect((await emu.control('POST', 'dns', dns)).status).toBe(200);
  const live = (await emu.api('GET', `zones/${ZONE_A}/custom_hostnames/${hostnameId}`, { headers: auth })).body.result;
  expect([live.status, live.ssl.status]).toEqual(['active', 'active']);
  const notification = await emu.api('POST', `accounts/${ACCOUNT_A}/alerting/v3/policies`, {
    headers: auth,
    body: {
      name: 'origin health',
      description: '',
      enabled: true,
      alert_type: 'load_balancing_health_alert',
      mechanisms: {},
      filters: { pool_id: [POOL], new_health: ['Unhealthy'] },
    },
  });
  expect(notification.status).toBe(200);
  return { hostnameId, notificationId: notification.body.result.id };
}

test('every resource with an identity is imported (pulumi import or the import option) with no write, then no change; PoolNotificationMigration is refused; the default provider takes the stack configuration; the hostname a failed update kept is deleted', async () => {
  const importedId = await createDirectly(
    ZONE_A,
    'imported-a',
    'imported.a.example',
    "script-src 'self' imported.example",
  );
  const adoptedId = await createDirectly(ZONE_B, 'adopted-b', 'adopted.b.example', "script-src 'self' adopted.example");
  const byId = await createDirectly(ZONE_A, 'adopted-by-id', 'by-id.a.example', "script-src 'self'");
  const made = await makeDirectly();

  const mark = emu.mark();
  for (const [type, name, id] of [
    [CSP_TYPE, 'imported-a', `${ZONE_A}/${importedId}`],
    ['edgeguard:index:HealthNotification', 'imported-notification', `${ACCOUNT_A}/${made.notificationId}`],
  ]) {
    const imported = await pulumiImport(type!, name!, id!);
    expect({ status: imported.status, stderr: imported.stderr }).toEqual({ status: 0, stderr: '' });
    expect(imported.stdout).toMatch(/= +1 imported/);
  }
  // An action, not an object: refused with the plugin's message, and nothing recorded.
  const refused = await pulumiImport('edgeguard:index:PoolNotificationMigration', 'migration', ACCOUNT_A);
  expect(refused.status).not.toBe(0);
  expect(refused.stdout + refused.stderr).toContain(
    `PoolNotificationMigration ${ACCOUNT_A} cannot be imported: a PoolNotificationMigration is an action on the pools of an account, not an object the service holds: declare it in the program`,
  );
  expect(engine.stateText()).not.toContain('PoolNotificationMigration');

  await setConfig({
    importedId,
    adoptId: `${ZONE_B}/${adoptedId}`,
    adoptById: byId,
    pageZone: ZONE_A2,
    hostnameId: made.hostnameId,
    hostname: IMPORTED_HOSTNAME,
    poolId: POOL,
    defaultProviderZone: ZONE_A2,
  });
  const up = await engine.up();
  // Imported: adopted-b, the page, the hostname, its validation. Created: adopted-by-id (an adoption) and the
  // default provider's policy (the engine counts no default provider). Deleted: the hostname the previous
  // test's failed update kept in the state, no longer declared.
  expect(up.summary.resourceChanges).toMatchObject({ import: 4, create: 2, delete: 1 });
  // The runtime's line reaches the engine's output through the plugin, tied to its resource.
  expect(up.stdout).toMatch(
    new RegExp(`edgeguard:index:CspPolicy \\(adopted-by-id\\):\\s+CspPolicy: adopted CSP policy ${byId}`),
  );
  // The one write of the imports: the default provider's policy, with the stack's token (the only one that reaches
  // ZONE_A2 and nothing else); and the kept hostname's delete.
  expect((await emu.writesSince(mark)).map((r) => `${r.method} ${r.path} ${r.status}`).sort()).toEqual([
    `DELETE /client/v4/zones/${ZONE_A}/custom_hostnames/${heldHostnameId} 200`,
    `POST /client/v4/zones/${ZONE_A2}/page_security/policies 200`,
  ]);
  expect((await read<Array<{ id: string }>>(emu, ADMIN, `zones/${ZONE_A}/custom_hostnames`)).map((h) => h.id)).toEqual([
    made.hostnameId,
  ]);
  expect((await policiesOf(ZONE_A2)).map((p) => p.description)).toEqual(['default-provider']);

  const afterUp = emu.mark();
  const preview = await engine.preview({ expectNoChanges: true });
  expect(preview.changeSummary).toEqual({ same: 13 });
  expect(await emu.writesSince(afterUp)).toEqual([]);

  const resources = JSON.parse(engine.stateText()).checkpoint.latest.resources as Array<any>;
  const byName = new Map(resources.map((r) => [r.urn.split('::').pop(), r]));
  expect(
    [
      'adopted-b',
      'imported-a',
      'imported-page',
      'imported-hostname',
      'imported-validation',
      'imported-notification',
    ].map((name) => byName.get(name)?.id),
  ).toEqual([
    `${ZONE_B}/${adoptedId}`,
    `${ZONE_A}/${importedId}`,
    ZONE_A2,
    `${ZONE_A}/${made.hostnameId}`,
    `${ZONE_A}/${made.hostnameId}`,
    `${ACCOUNT_A}/${made.notificationId}`,
  ]);
  // The default provider holds the stack's token as a secret only.
  // Named by the engine from the plugin's version and download address (`default_0_1_0_github_/...`).
  const defaultProvider = resources.find(
    (r) => r.type === 'pulumi:providers:edgeguard' && /::default(_[^:]*)?$/.test(r.urn),
  );
  expect(defaultProvider?.inputs.apiToken).toMatchObject({ [SIG_KEY]: SECRET_SIG });
  expect(byName.get('default-provider')?.provider).toContain(`${defaultProvider?.urn}::`);
  expect(engine.stateText()).not.toContain(TOKEN_DEFAULT);
  expect(engine.output.join('')).not.toContain(TOKEN_DEFAULT);
}, 300_000);

test('503s and lost answers leave no duplicate; destroy removes everything', async () => {
  await setConfig({ extra: '6' });
  // On the creates (the one write that is not idempotent): 503s, and resets after the service applied the create.
  const faultsOn = {
    error_rate: 0.2,
    status: 503,
    reset_rate: 0.3,
    methods: ['POST'],
    paths: ['zones/*/page_security/policies'],
    seed: 7,
  };
  expect((await emu.control('POST', 'faults', faultsOn)).status).toBe(200);
  const mark = emu.mark();
  try {
    const up = await engine.up();
    expect(up.summary.resourceChanges).toMatchObject({ create: 6 });
  } finally {
    expect((await emu.control('POST', 'faults', {})).status).toBe(200);
  }
  const faults = countFaults(await emu.requests(mark));
  process.stdout.write(`plugin under faults: ${JSON.stringify(faults)}\n`);
  expect(faults.errors).toBeGreaterThan(0);
  expect(faults.lostWrites).toBeGreaterThan(0);

  const inA = await policiesOf(ZONE_A);
  expect(inA.map((p) => p.description).sort()).toEqual([
    'adopted-by-id',
    'extra-0',
    'extra-1',
    'extra-2',
    'extra-3',
    'extra-4',
    'extra-5',
    'imported-a',
    'shop-a',
  ]);
  const ids = new Set([...inA, ...(await policiesOf(ZONE_B)), ...(await policiesOf(ZONE_A2))].map((p) => p.id));
  expect(new Set(statePolicies().map((p) => p.id.split('/')[1]))).toEqual(ids);

  const destroyed = await engine.destroy();
  // Twelve policies, the page, the hostname, its validation, the notification, the two explicit providers and the stack.
  expect(destroyed.summary.resourceChanges).toEqual({ delete: 19 });
  expect([...(await policiesOf(ZONE_A)), ...(await policiesOf(ZONE_B)), ...(await policiesOf(ZONE_A2))]).toEqual([]);
  expect(await read(emu, ADMIN, `zones/${ZONE_A}/custom_hostnames`)).toEqual([]);
  expect(await read(emu, ADMIN, `accounts/${ACCOUNT_A}/alerting/v3/policies`)).toEqual([]);
}, 300_000);
