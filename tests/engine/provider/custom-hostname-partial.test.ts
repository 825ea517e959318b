import * as path from 'node:path';
import { engineStack, type EngineStack } from '../../helpers/engine';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

/**
 * A custom hostname whose create lands but cannot become active (here: under a held zone) fails
 * the step with what the owner must do, and is kept in the state rather than orphaned; once the
 * hold is released, the next `up` revalidates the same hostname instead of creating another.
 */

const TOKEN = 'e2e-partial-token-77c1e0a4';
const ACCOUNT = 'a00000000000000000000000000000e1';
const SAAS_ZONE = 'c00000000000000000000000000000e1';
const HELD_ZONE = 'c00000000000000000000000000000e2';
const HOSTNAME = 'shop.held-customer.example';

let emu: TestEmulator;
let engine: EngineStack;

beforeAll(async () => {
  emu = await startTestEmulator({ fixture: false, tokens: [TOKEN] });
  const seeded = await emu.control('POST', 'seed', {
    accounts: [{ id: ACCOUNT, name: 'Acme' }],
    zones: [
      { id: SAAS_ZONE, name: 'saas.example', account_id: ACCOUNT },
      { id: HELD_ZONE, name: 'held-customer.example', account_id: ACCOUNT },
    ],
  });
  expect(seeded.status).toBe(200);
  expect((await emu.control('POST', `zones/${HELD_ZONE}/hold`, { include_subdomains: true })).status).toBe(200);
  engine = await engineStack({
    projectDir: path.join(__dirname, 'projects', 'one-hostname'),
    emu,
    token: TOKEN,
    config: {
      'edgeguard-e2e-one-hostname:zoneId': { value: SAAS_ZONE },
      'edgeguard-e2e-one-hostname:hostname': { value: HOSTNAME },
    },
  });
}, 60_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
});

async function hostnames(): Promise<Array<{ id: string; status: string }>> {
  return (await emu.api('GET', `zones/${SAAS_ZONE}/custom_hostnames`)).body.result;
}

test('a blocked hostname fails the up saying to release the hold, and stays in the state', async () => {
  await expect(engine.up()).rejects.toThrow(/held zone[\s\S]*release/i);
  const live = await hostnames();
  expect(live.map((h) => h.status)).toEqual(['blocked']);
  // The backend's state file, as `pulumi stack export` would print it (without a command's half-second of CPU).
  const recorded = JSON.parse(engine.stateText()).checkpoint.latest.resources.filter(
    (r: { type: string }) => r.type === 'pulumi-nodejs:dynamic/edgeguard:CustomHostname',
  );
  expect(recorded).toHaveLength(1);
  expect(recorded[0].id).toBe(live[0]!.id);
  expect(recorded[0].outputs.status).toBe('blocked');
}, 180_000);

test('after the hold is released, the next up revalidates that same hostname: no second one', async () => {
  expect((await emu.control('DELETE', `zones/${HELD_ZONE}/hold`)).status).toBe(200);
  const [before] = await hostnames();
  await emu.control('POST', 'dns', { hostname: HOSTNAME, records: [{ type: 'CNAME', value: 'saas.example' }] });
  const mark = emu.mark();
  const up = await engine.up();
  expect(up.summary.result).toBe('succeeded');
  expect(up.outputs.status?.value).toBe('active');
  const writes = (await emu.requests(mark)).filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
  expect(writes).toEqual([`PATCH /client/v4/zones/${SAAS_ZONE}/custom_hostnames/${before!.id}`]);
  const after = await hostnames();
  expect(after).toEqual([expect.objectContaining({ id: before!.id, status: 'active' })]);
  const again = await engine.preview({ expectNoChanges: true });
  expect(again.changeSummary).toEqual({ same: 2 });
  expect(engine.output.join('') + engine.stateText()).not.toContain(TOKEN);
}, 180_000);
