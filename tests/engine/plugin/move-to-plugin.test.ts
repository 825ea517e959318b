import * as path from 'node:path';
import { DEMO } from '../../../emulator/seed/demo';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { engineStack, type EngineStack } from '../../helpers/engine';
import { usePluginBuild } from '../../helpers/languages';

/**
 * The move of a stack (docs/guides/moving-to-the-plugin.md) from the dynamic resources to the provider plugin, through the
 * real engine against a demo emulator (tests/engine/plugin/projects/move): deployed as dynamic resources, the
 * declarations retained, then declared under a `Provider` with the `import` option. The objects keep
 * their ids and the service gets no write from the move (the emulator's request log); afterwards
 * the plugin owns them (no change at preview, destroy removes them).
 */

const TOKEN = 'e2e-move-token-5a9e4c17';
const POLICIES = `zones/${DEMO.zoneId}/page_security/policies`;
const NOTIFICATIONS = `accounts/${DEMO.accountId}/alerting/v3/policies`;

let emu: TestEmulator;
let engine: EngineStack;

beforeAll(async () => {
  emu = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [TOKEN] });
  const pools = await emu.api('GET', `accounts/${DEMO.accountId}/load_balancers/pools`);
  engine = await engineStack({
    projectDir: path.join(__dirname, 'projects', 'move'),
    emu,
    token: TOKEN,
    config: {
      step: { value: 'dynamic' },
      zoneId: { value: DEMO.zoneId },
      accountId: { value: DEMO.accountId },
      poolIds: { value: JSON.stringify(pools.body.result.slice(0, 2).map((pool: { id: string }) => pool.id)) },
    },
  });
  usePluginBuild(engine.workDir);
}, 60_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
});

/** The types of the resources in the stack's state, sorted, the stack's own left out. */
function stateTypes(): string[] {
  const { resources } = JSON.parse(engine.stateText()).checkpoint.latest;
  return resources
    .map((resource: { type: string }) => resource.type)
    .filter((type: string) => type !== 'pulumi:pulumi:Stack')
    .sort();
}

test('the objects move to the plugin with their ids and no write to the service, and the plugin owns them after', async () => {
  const deployed = await engine.up();
  expect(deployed.summary.resourceChanges).toEqual({ create: 4 });
  const { policy: policyId, notification: notificationId } = deployed.outputs.objectIds!.value;
  expect(stateTypes()).toEqual([
    'pulumi-nodejs:dynamic/edgeguard:CspPolicy',
    'pulumi-nodejs:dynamic/edgeguard:HealthNotification',
    'pulumi-nodejs:dynamic/edgeguard:PageSecuritySetting',
    'pulumi:providers:pulumi-nodejs',
  ]);

  const before = emu.mark();
  await engine.stack.setConfig('step', { value: 'retain' });
  expect((await engine.up()).summary.result).toBe('succeeded');

  // Both keys in one `pulumi config set-all` (a command costs about half a second of CPU).
  await engine.stack.setAllConfig({
    step: { value: 'plugin' },
    importIds: {
      value: JSON.stringify({
        pageSecurity: DEMO.zoneId,
        policy: `${DEMO.zoneId}/${policyId}`,
        notification: `${DEMO.accountId}/${notificationId}`,
      }),
    },
  });
  const moved = await engine.up();
  // The three objects imported, the three dynamic declarations dropped from the state alone.
  expect(moved.summary.resourceChanges).toMatchObject({ import: 3, delete: 3 });
  expect(await emu.writesSince(before)).toEqual([]);
  expect(moved.outputs.objectIds!.value).toEqual({ policy: policyId, notification: notificationId });
  expect(moved.outputs.ids!.value).toEqual({
    pageSecurity: DEMO.zoneId,
    policy: `${DEMO.zoneId}/${policyId}`,
    notification: `${DEMO.accountId}/${notificationId}`,
  });
  expect(stateTypes()).toEqual([
    'edgeguard:index:CspPolicy',
    'edgeguard:index:HealthNotification',
    'edgeguard:index:PageSecuritySetting',
    'pulumi:providers:edgeguard',
  ]);
  expect((await emu.api('GET', POLICIES)).body.result.map((policy: { id: string }) => policy.id)).toEqual([policyId]);
  expect((await emu.api('GET', `${NOTIFICATIONS}/${notificationId}`)).status).toBe(200);
  expect((await emu.api('GET', `zones/${DEMO.zoneId}/page_security`)).body.result.enabled).toBe(true);

  const preview = await engine.preview({ expectNoChanges: true });
  expect(Object.keys(preview.changeSummary)).toEqual(['same']);

  await engine.destroy();
  expect((await emu.api('GET', POLICIES)).body.result).toEqual([]);
  expect((await emu.api('GET', `${NOTIFICATIONS}/${notificationId}`)).status).toBe(404);
}, 300_000);
