import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { providerModule } from '../../../provider/resources/registration';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { engineStack, type EngineStack } from '../../helpers/engine';
import { REPO } from '../../helpers/repo';
import { RUNTIME_OF } from '../../helpers/runtimes';

/**
 * A stack written by version 0.1.0, whose resources carry the provider the SDK's closure
 * serializer wrote (tests/fixtures/state-v0.1, made by that version's code; its README says how),
 * taken over by the current code through the real engine: `pulumi stack import` into a new stack,
 * with an emulator holding the same objects (the fixture's data directory), then refresh, an
 * update and destroy. A resource keeps the provider it was stored with until a step rewrites it,
 * and refresh and delete run that stored provider, so the old text must keep working as long as
 * such states exist.
 */

const FIXTURE = path.join(REPO, 'tests', 'fixtures', 'state-v0.1');
const STACK = 'state-v0-1';
const PROJECT = 'edgeguard-state-v0-1';
const TOKEN = 'e2e-state-compatibility-token-61d0a3f8';
const ZONE = 'c0000000000000000000000000000012';
const ACCOUNT = 'a0000000000000000000000000000012';

const fixtureDeployment = () => JSON.parse(fs.readFileSync(path.join(FIXTURE, 'stack.json'), 'utf8'));
/** The fixture's stored provider of each resource, by name. */
const OLD_PROVIDERS: Record<string, string> = Object.fromEntries(
  (fixtureDeployment().deployment.resources as any[])
    .filter((resource) => resource.type in RUNTIME_OF)
    .map((resource) => [String(resource.urn).split('::').pop(), resource.outputs.__provider]),
);

interface Taken {
  emu: TestEmulator;
  engine: EngineStack;
  dataDir: string;
}
const opened: Taken[] = [];

/** An emulator on a copy of the fixture's data, and a new stack into which the fixture's export is imported. */
async function takeOver(): Promise<Taken> {
  const dataDir = path.join(REPO, '.edgeguard', 'e2e', `state-v0.1-${randomUUID().slice(0, 8)}`);
  fs.mkdirSync(dataDir, { recursive: true });
  fs.copyFileSync(path.join(FIXTURE, 'emulator', 'snapshot.json'), path.join(dataDir, 'snapshot.json'));
  const emu = await startTestEmulator({ dataDir, fixture: false, tokens: [TOKEN] });
  const engine = await engineStack({ projectDir: path.join(FIXTURE, 'program'), emu, token: TOKEN, stackName: STACK });
  const taken = { emu, engine, dataDir };
  opened.push(taken);
  await engine.stack.importStack(fixtureDeployment());
  return taken;
}

/** The EdgeGuard resources of the stack's state, by name. */
function ours(engine: EngineStack): Record<string, any> {
  const state = JSON.parse(engine.stateText());
  return Object.fromEntries(
    (state.checkpoint.latest.resources as any[])
      .filter((resource) => resource.type in RUNTIME_OF)
      .map((resource) => [String(resource.urn).split('::').pop(), resource]),
  );
}

/** Each resource's stored provider: `old` (the fixture's own text), `new` (the current one), or what else it is. */
function providers(engine: EngineStack): Record<string, { inputs: string; outputs: string }> {
  const kind = (name: string, resource: any, text: string) =>
    text === OLD_PROVIDERS[name] ? 'old' : text === providerModule(RUNTIME_OF[resource.type]!) ? 'new' : text;
  return Object.fromEntries(
    Object.entries(ours(engine)).map(([name, resource]) => [
      name,
      {
        inputs: kind(name, resource, resource.inputs.__provider),
        outputs: kind(name, resource, resource.outputs.__provider),
      },
    ]),
  );
}

const every = (value: { inputs: string; outputs: string }) =>
  Object.fromEntries(Object.keys(OLD_PROVIDERS).map((name) => [name, value]));

async function ok(emu: TestEmulator, apiPath: string): Promise<any> {
  const reply = await emu.api('GET', apiPath);
  if (reply.status !== 200) throw new Error(`GET ${apiPath}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.result;
}

/** `METHOD path status` of the writes after `mark`, the path below `/client/v4/`, sorted. */
async function writes(emu: TestEmulator, mark: number): Promise<string[]> {
  return (await emu.writesSince(mark))
    .map((r) => `${r.method} ${r.path.replace(/^\/client\/v4\//, '')} ${r.status}`)
    .sort();
}

afterAll(async () => {
  for (const { emu, engine, dataDir } of opened) {
    await engine.dispose();
    await emu.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the fixture is a 0.1.0 state: five resources, each with the SDK-serialized provider', () => {
  expect(Object.keys(OLD_PROVIDERS).sort()).toEqual([
    'customer',
    'drop-legacy-emails',
    'lb-health',
    'page-security',
    'shop-scripts',
  ]);
  for (const text of Object.values(OLD_PROVIDERS)) {
    expect(text).toMatch(/^exports\.handler = __f0;/);
    expect(Buffer.byteLength(text)).toBeGreaterThan(2000);
  }
});

test('a stack written by 0.1.0 refreshes, updates (then carrying the new provider) and destroys with the current code', async () => {
  const { emu, engine } = await takeOver();
  expect(providers(engine)).toEqual(every({ inputs: 'old', outputs: 'old' }));
  const policy = ours(engine)['shop-scripts'];
  const hostname = ours(engine).customer;
  const alerts = ours(engine)['lb-health'];

  // Refresh reads every object through the stored (old) provider and finds it as stored.
  const refresh = await engine.refresh();
  expect(refresh.summary.resourceChanges).toEqual({ same: 6 });
  expect(providers(engine)).toEqual(every({ inputs: 'old', outputs: 'old' }));

  // The new code's provider alone is no change.
  const preview = await engine.preview({ expectNoChanges: true });
  expect(preview.changeSummary).toEqual({ same: 6 });

  // An update of one value of each resource, in place.
  await engine.stack.setConfig(`${PROJECT}:changed`, { value: 'true' });
  const mark = emu.mark();
  const up = await engine.up();
  expect(up.summary.resourceChanges).toEqual({ update: 5, same: 1 });
  expect(providers(engine)).toEqual(every({ inputs: 'new', outputs: 'new' }));
  expect(await writes(emu, mark)).toEqual([
    `PATCH zones/${ZONE}/custom_hostnames/${hostname.id} 200`,
    `PUT accounts/${ACCOUNT}/alerting/v3/policies/${alerts.id} 200`,
    `PUT zones/${ZONE}/page_security 200`,
    `PUT zones/${ZONE}/page_security/policies/${policy.id} 200`,
  ]);
  const state = ours(engine);
  expect(state['shop-scripts'].outputs.description).toBe('Scripts allowed on the shop (revised)');
  expect(state.customer.outputs.ssl.method).toBe('http');
  expect(state['lb-health'].outputs.name).toBe('Pool health (revised)');
  expect(state['page-security'].outputs.enabled).toBe(false);
  expect(state['drop-legacy-emails'].outputs.perPage).toBe(50);
  expect((await ok(emu, `zones/${ZONE}/page_security/policies/${policy.id}`)).description).toBe(
    'Scripts allowed on the shop (revised)',
  );
  expect((await ok(emu, `accounts/${ACCOUNT}/alerting/v3/policies/${alerts.id}`)).name).toBe('Pool health (revised)');
  expect((await ok(emu, `zones/${ZONE}/custom_hostnames/${hostname.id}`)).ssl.method).toBe('http');
  expect((await ok(emu, `zones/${ZONE}/page_security`)).enabled).toBe(false);

  const destroy = await engine.destroy();
  expect(destroy.summary.resourceChanges).toEqual({ delete: 6 });
  expect(await ok(emu, `zones/${ZONE}/page_security/policies`)).toEqual([]);
  expect(await ok(emu, `zones/${ZONE}/custom_hostnames`)).toEqual([]);
  expect(await ok(emu, `accounts/${ACCOUNT}/alerting/v3/policies`)).toEqual([]);
  expect(engine.stateText()).not.toContain(TOKEN);
}, 240_000);

test('a stack written by 0.1.0 and never updated is destroyed by the provider it was stored with', async () => {
  const { emu, engine } = await takeOver();
  const policy = ours(engine)['shop-scripts'];
  const hostname = ours(engine).customer;
  const alerts = ours(engine)['lb-health'];
  expect(providers(engine)).toEqual(every({ inputs: 'old', outputs: 'old' }));
  const mark = emu.mark();
  const destroy = await engine.destroy();
  expect(destroy.summary.resourceChanges).toEqual({ delete: 6 });
  expect(await writes(emu, mark)).toEqual([
    `DELETE accounts/${ACCOUNT}/alerting/v3/policies/${alerts.id} 200`,
    `DELETE zones/${ZONE}/custom_hostnames/${hostname.id} 200`,
    `DELETE zones/${ZONE}/page_security/policies/${policy.id} 200`,
    `PUT zones/${ZONE}/page_security 200`,
  ]);
  expect(await ok(emu, `zones/${ZONE}/page_security/policies`)).toEqual([]);
  expect(await ok(emu, `zones/${ZONE}/custom_hostnames`)).toEqual([]);
  // The setting, on since the stack's up, goes back to what the zone had before (enabledBeforeCreate).
  expect((await ok(emu, `zones/${ZONE}/page_security`)).enabled).toBe(false);
}, 180_000);
