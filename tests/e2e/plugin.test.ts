import * as fs from 'node:fs';
import * as path from 'node:path';
import { countFaults, read, WRITE_METHODS } from '../faults/support';
import { copyProject, engineStack, failureOf, REPO, type EngineStack } from '../helpers/engine';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { pluginLauncher } from '../helpers/plugin';
import { runToEnd } from '../helpers/process';

/**
 * The provider plugin through the real engine, one stack taken through every step: two explicit
 * providers with two tokens limited to their accounts' zones, each policy in its zone; `preview
 * --diff` with a replacing `zoneId` and a reordered value; a token used on the other zone, refused
 * with the service's reason; `pulumi import` and the `import` option with no write, then no
 * change; 503s and lost answers with no duplicate; destroy.
 */

const MAIN = path.join(REPO, 'dist', 'provider', 'plugin', 'main.js');
const ADMIN = 'e2e-plugin-admin-token-2f7a91c3';
const TOKEN_A = 'e2e-plugin-token-a-8d41e07b';
const TOKEN_B = 'e2e-plugin-token-b-51c9f2a6';
const ACCOUNT_A = 'a00000000000000000000000000000a1';
const ACCOUNT_B = 'a00000000000000000000000000000b1';
const ZONE_A = 'c00000000000000000000000000000a1';
const ZONE_A2 = 'c00000000000000000000000000000a2';
const ZONE_B = 'c00000000000000000000000000000b1';
/** A zone on hold: a custom hostname under it cannot become active. */
const HELD_ZONE = 'c00000000000000000000000000000a9';
const HELD_HOSTNAME = 'shop.held-customer.example';
const CSP_TYPE = 'edgeguard:index:CspPolicy';

let emu: TestEmulator;
let engine: EngineStack;
let projectDir: string;

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

async function setConfig(key: string, value: string | undefined): Promise<void> {
  if (value === undefined) await engine.stack.removeConfig(key);
  else await engine.stack.setConfig(key, { value });
}

beforeAll(async () => {
  if (!fs.existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first (npm test does)`);
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
    ],
  });
  expect((await emu.control('POST', `zones/${HELD_ZONE}/hold`, { include_subdomains: true })).status).toBe(200);
  projectDir = copyProject(path.join(__dirname, 'projects', 'plugin'));
  const plugins = pluginLauncher(path.join(projectDir, 'plugins'));
  fs.appendFileSync(
    path.join(projectDir, 'Pulumi.yaml'),
    `plugins:\n  providers:\n    - name: edgeguard\n      path: ${plugins}\n`,
  );
  engine = await engineStack({
    projectDir,
    inPlace: true,
    emu,
    token: ADMIN,
    config: {
      baseUrl: { value: emu.baseUrl },
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
  await setConfig('shopAZone', ZONE_A2);
  await setConfig('shopBValue', "script-src cdn.b.example 'self' CDN.B.example");
  try {
    const mark = emu.mark();
    const preview = await engine.preview({ diff: true });
    expect(preview.changeSummary).toEqual({ replace: 1, same: 4 });
    expect(preview.stdout).toMatch(/\+-edgeguard:index:CspPolicy: \(replace\)/);
    expect(preview.stdout).toMatch(new RegExp(`~ zoneId\\s*: "${ZONE_A}" => "${ZONE_A2}"`));
    expect(preview.stdout).not.toMatch(/~ value/);
    expect((await emu.requests(mark)).filter((r) => WRITE_METHODS.has(r.method))).toEqual([]);
  } finally {
    await setConfig('shopAZone', undefined);
    await setConfig('shopBValue', undefined);
  }
}, 180_000);

test("a token used on the other account's zone is refused with the service's reason; a hostname that cannot work yet is kept in the state", async () => {
  await setConfig('crossZone', 'true');
  await setConfig('heldHostname', HELD_HOSTNAME);
  try {
    const error = await failureOf(engine.up());
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
  } finally {
    await setConfig('crossZone', undefined);
    await setConfig('heldHostname', undefined);
  }
  const up = await engine.up();
  expect(up.summary.resourceChanges).toMatchObject({ delete: 1 });
  expect(await read(emu, ADMIN, `zones/${ZONE_A}/custom_hostnames`)).toEqual([]);
}, 180_000);

test('pulumi import and the import option write nothing to the service, and the preview after them shows no change', async () => {
  const importedId = await createDirectly(
    ZONE_A,
    'imported-a',
    'imported.a.example',
    "script-src 'self' imported.example",
  );
  const adoptedId = await createDirectly(ZONE_B, 'adopted-b', 'adopted.b.example', "script-src 'self' adopted.example");
  const byId = await createDirectly(ZONE_A, 'adopted-by-id', 'by-id.a.example', "script-src 'self'");
  const resources = JSON.parse(engine.stateText()).checkpoint.latest.resources as Array<{ urn: string; type: string }>;
  const providerA = resources.find(
    (r) => r.type === 'pulumi:providers:edgeguard' && r.urn.endsWith('::account-a'),
  )!.urn;

  const mark = emu.mark();
  // The command as a user types it, under the explicit provider of account A.
  const workspace = engine.stack.workspace;
  const imported = await runToEnd(
    workspace.pulumiCommand.command,
    [
      'import',
      CSP_TYPE,
      'imported-a',
      `${ZONE_A}/${importedId}`,
      '--provider',
      `account-a=${providerA}`,
      '--generate-code=false',
      '--protect=false',
      '--yes',
      '--non-interactive',
      '--stack',
      engine.stack.name,
    ],
    { cwd: engine.workDir, env: workspace.envVars },
  );
  expect({ status: imported.status, stderr: imported.stderr }).toEqual({ status: 0, stderr: '' });
  expect(imported.stdout).toMatch(/= +1 imported/);

  await setConfig('importedId', importedId);
  await setConfig('adoptId', `${ZONE_B}/${adoptedId}`);
  await setConfig('adoptById', byId);
  const up = await engine.up();
  expect(up.summary.resourceChanges).toMatchObject({ import: 1, create: 1 });
  // The runtime's line reaches the engine's output through the plugin, tied to its resource.
  expect(up.stdout).toMatch(
    new RegExp(`edgeguard:index:CspPolicy \\(adopted-by-id\\):\\s+CspPolicy: adopted CSP policy ${byId}`),
  );
  expect(await emu.writesSince(mark)).toEqual([]);

  const preview = await engine.preview({ expectNoChanges: true });
  expect(preview.changeSummary).toEqual({ same: 8 });
  expect(await emu.writesSince(mark)).toEqual([]);
  expect(
    statePolicies()
      .map((p) => [p.name, p.id])
      .sort(),
  ).toEqual(
    expect.arrayContaining([
      ['adopted-b', `${ZONE_B}/${adoptedId}`],
      ['imported-a', `${ZONE_A}/${importedId}`],
    ]),
  );
}, 240_000);

test('503s and lost answers leave no duplicate; destroy removes everything', async () => {
  await setConfig('extra', '6');
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
  const ids = new Set([...inA, ...(await policiesOf(ZONE_B))].map((p) => p.id));
  expect(new Set(statePolicies().map((p) => p.id.split('/')[1]))).toEqual(ids);

  const destroyed = await engine.destroy();
  // Eleven policies, two providers and the stack.
  expect(destroyed.summary.resourceChanges).toEqual({ delete: 14 });
  expect([...(await policiesOf(ZONE_A)), ...(await policiesOf(ZONE_B)), ...(await policiesOf(ZONE_A2))]).toEqual([]);
}, 300_000);
