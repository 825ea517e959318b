import * as fs from 'node:fs';
import * as path from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from '../../../provider';
import { EdgeGuardResource } from '../../../provider/resources/registration';
import { ACCOUNT_ID, startTestEmulator, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { engineStack, type EngineStack } from '../../helpers/engine';
import { REPO } from '../../helpers/repo';
import { RUNTIME_OF } from '../../helpers/runtimes';

/**
 * What the engine stores as the provider of every resource (`__provider`, in its inputs and again
 * in its outputs) and runs on refresh and delete: the one-line module written by hand in
 * provider/resources/registration.ts. Read from a real state after `pulumi up` of one resource of
 * each kind (tests/engine/provider/projects/registration), with the registration behaviours a resource class
 * must keep: an input unknown at preview, a secret input, an output made secret, a read-only get.
 */

const TOKEN = 'serialization-test-token-9b41d7e2';
const POOL_ID = 'b0000000000000000000000000000077';
const SECRET_DESCRIPTION = 'a secret description 5d1c';
const METHODS = ['configure', 'check', 'diff', 'create', 'read', 'update', 'delete'];
/** The secret marker of the state's JSON (sdk/go/common/resource/properties.go, SecretSig). */
const SECRET_SIG = '4dabf18193072939515e22adb298388d';

/** The exact module text, as the dynamic-provider host evaluates it: `handler()` returns the runtime's provider. */
const providerText = (runtime: string) =>
  `exports.handler = () => require('node:module').createRequire(process.cwd() + '/program.js')('pulumi-edgeguard/runtime/${runtime}').provider;`;

let emu: TestEmulator;
let engine: EngineStack;

/** The state's resources by name (the last part of the URN). */
function stateResources(): Record<string, any> {
  const state = JSON.parse(engine.stateText());
  return Object.fromEntries(
    (state.checkpoint.latest.resources as any[]).map((resource) => [String(resource.urn).split('::').pop(), resource]),
  );
}

beforeAll(async () => {
  if (!fs.existsSync(path.join(REPO, 'dist', 'provider', 'runtime', 'csp-policy.js'))) {
    throw new Error('dist/ is missing: run "npm run build" first (npm test does)');
  }
  emu = await startTestEmulator({ tokens: [TOKEN] });
  const seeded = await emu.control('POST', 'seed', {
    pools: [{ id: POOL_ID, account_id: ACCOUNT_ID, name: 'eu-west', notification_email: 'ops@example.com' }],
  });
  expect(seeded.status).toBe(200);
  engine = await engineStack({
    projectDir: path.join(__dirname, 'projects', 'registration'),
    emu,
    token: TOKEN,
    config: {
      'edgeguard-e2e-registration:zoneId': { value: ZONE_ID },
      'edgeguard-e2e-registration:accountId': { value: ACCOUNT_ID },
      'edgeguard-e2e-registration:poolId': { value: POOL_ID },
    },
  });
}, 60_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
});

test.each(Object.values(RUNTIME_OF))(
  'pulumi-edgeguard/runtime/%s, which the stored module requires, is the compiled runtime with every method',
  (runtime) => {
    const resolved = require.resolve(`pulumi-edgeguard/runtime/${runtime}`);
    expect(path.relative(REPO, resolved)).toBe(path.join('dist', 'provider', 'dynamic', 'runtime', `${runtime}.js`));
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the compiled file the engine would load
    const { provider } = require(resolved) as { provider: Record<string, unknown> };
    for (const method of METHODS) expect(typeof provider[method]).toBe('function');
  },
);

test('every resource class the package exports registers its own type token with the module of its runtime', async () => {
  const registered: pulumi.runtime.MockResourceArgs[] = [];
  await pulumi.runtime.setMocks({
    newResource: (args) => {
      registered.push(args);
      return { id: 'f'.repeat(32), state: args.inputs };
    },
    call: () => ({}),
  });
  const classes = Object.entries(edgeguard).filter(
    ([, value]) => typeof value === 'function' && value.prototype instanceof EdgeGuardResource,
  ) as Array<[string, new (name: string, args: object) => EdgeGuardResource]>;
  const resources = classes.map(([name, Class]) => new Class(`a-${name}`, {}));
  await Promise.all(resources.map((resource) => new Promise((resolve) => resource.urn.apply(resolve))));
  expect(
    registered
      .map((args) => [args.name.slice(2), args.type, args.inputs.__provider])
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  ).toEqual(
    Object.entries(RUNTIME_OF)
      .map(([type, runtime]) => [type.split(':').pop(), type, providerText(runtime)])
      .sort(([a], [b]) => (a! < b! ? -1 : 1)),
  );
});

test('preview passes check with inputs unknown until another resource exists', async () => {
  // `second` takes its zone and description from `first`, which does not exist yet.
  const preview = await engine.preview();
  expect(preview.changeSummary).toEqual({ create: 8 });
}, 120_000);

test('up stores the exact one-line provider in the inputs and outputs of every resource, a few hundred bytes, no credential, no library', async () => {
  const up = await engine.up();
  expect(up.summary.resourceChanges).toEqual({ create: 8 });
  const resources = stateResources();
  const ours = Object.entries(resources).filter(([, resource]) => String(resource.type).includes(':dynamic/'));
  expect(ours.map(([name, resource]) => `${name} ${resource.type}`).sort()).toEqual([
    'customer pulumi-nodejs:dynamic/edgeguard:CustomHostname',
    'drop-legacy-emails pulumi-nodejs:dynamic/edgeguard:PoolNotificationMigration',
    'first pulumi-nodejs:dynamic/edgeguard:CspPolicy',
    'lb-health pulumi-nodejs:dynamic/edgeguard:HealthNotification',
    'looked-up pulumi-nodejs:dynamic/edgeguard:CustomHostname',
    'page-security pulumi-nodejs:dynamic/edgeguard:PageSecuritySetting',
    'second pulumi-nodejs:dynamic/edgeguard:CspPolicy',
    'secret pulumi-nodejs:dynamic/edgeguard:CspPolicy',
  ]);
  const stored = new Set<string>();
  for (const [name, resource] of ours) {
    const expected = providerText(RUNTIME_OF[resource.type]!);
    expect({ name, inputs: resource.inputs.__provider, outputs: resource.outputs.__provider }).toEqual({
      name,
      inputs: expected,
      outputs: expected,
    });
    stored.add(resource.outputs.__provider);
  }
  expect(stored.size).toBe(5);
  const sizes = [...stored].map((text) => Buffer.byteLength(text));
  console.log(`stored provider: ${Math.min(...sizes)} to ${Math.max(...sizes)} bytes`);
  expect(Math.max(...sizes)).toBeLessThanOrEqual(200);
  for (const text of stored) {
    // The only modules it names are Node's `node:module` and the package's own runtime.
    expect(text.match(/'[^']*'/g)).toEqual([
      "'node:module'",
      "'/program.js'",
      expect.stringMatching(/^'pulumi-edgeguard\/runtime\/[a-z-]+'$/),
    ]);
  }
  expect(engine.stateText()).not.toContain(TOKEN);
}, 120_000);

test('outputs of other resources, secrets, additionalSecretOutputs and get behave as for any custom resource', async () => {
  const resources = stateResources();
  // The stack's outputs where `pulumi stack output` reads them, the stack's resource in the state
  // (none of these is secret), without two commands' second of CPU.
  const outputs = Object.values(resources).find((resource) => resource.type === 'pulumi:pulumi:Stack').outputs;
  const first = resources.first.outputs;
  expect(outputs.secondDescription).toBe(`after ${first.policyId}`);
  expect(resources.second.outputs.zoneId).toBe(ZONE_ID);
  // get: read without managing it (external), by the id of the hostname the stack created.
  expect(outputs.lookedUpHostname).toBe('shop.customer-registration.example');
  expect(resources['looked-up'].external).toBe(true);
  expect(resources['looked-up'].id).toBe(outputs.hostnameId);

  // The secret input is secret in the inputs and outputs; additionalSecretOutputs makes `expression` secret in the outputs only.
  const secret = resources.secret;
  const isSecret = (value: any) => value?.[SECRET_SIG] === '1b47061264138c4ac30d75fd1eb44270';
  expect([isSecret(secret.inputs.description), isSecret(secret.outputs.description)]).toEqual([true, true]);
  expect([isSecret(secret.inputs.expression), isSecret(secret.outputs.expression)]).toEqual([false, true]);
  expect(secret.inputs.expression).toBe('http.host eq "secret.example.com"');
  expect(isSecret(secret.outputs.value)).toBe(false);
  expect(engine.stateText()).not.toContain(SECRET_DESCRIPTION);
  // The provider was given the plain value.
  const live = await emu.api('GET', `zones/${ZONE_ID}/page_security/policies/${secret.id}`);
  expect(live.body.result.description).toBe(SECRET_DESCRIPTION);
}, 60_000);

test('destroy deletes every managed resource through the stored provider', async () => {
  const destroy = await engine.destroy();
  // The hostname read with get is only forgotten (discarded), not deleted.
  expect(destroy.summary.resourceChanges).toEqual({ delete: 8, discard: 1 });
  expect((await emu.api('GET', `zones/${ZONE_ID}/page_security/policies`)).body.result).toEqual([]);
  expect((await emu.api('GET', `zones/${ZONE_ID}/custom_hostnames`)).body.result).toEqual([]);
  expect((await emu.api('GET', `accounts/${ACCOUNT_ID}/alerting/v3/policies`)).body.result).toEqual([]);
}, 120_000);
