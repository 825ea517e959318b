import * as path from 'node:path';
import { DEMO } from '../../../emulator/seed/demo';
import { engineStack, type EngineStack } from '../../helpers/engine';
import { REPO } from '../../helpers/repo';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

/**
 * examples/notification-migration through the real engine, against a fresh demo emulator (60 pools
 * with legacy e-mails). The tests share one stack and run in order: deploy, drift made through the
 * API, destroy.
 */

const TOKEN = 'e2e-example-migration-token-41e7b0c3';
const PROJECT = path.join(REPO, 'examples', 'notification-migration');
const POOLS = `accounts/${DEMO.accountId}/load_balancers/pools`;
const ALERT_POLICIES = `accounts/${DEMO.accountId}/alerting/v3/policies`;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface Pool {
  id: string;
  name: string;
  notification_email: string;
}

let emu: TestEmulator;
let engine: EngineStack;
let notificationId: string;

async function listPools(): Promise<Pool[]> {
  const listed = await emu.api('GET', POOLS);
  expect(listed.status).toBe(200);
  return listed.body.result;
}

async function listAlertPolicies(): Promise<Array<Record<string, any>>> {
  const listed = await emu.api('GET', ALERT_POLICIES);
  expect(listed.status).toBe(200);
  return listed.body.result;
}

async function writesSince(mark: number): Promise<string[]> {
  return (await emu.requests(mark))
    .filter((entry) => WRITES.has(entry.method))
    .map((entry) => `${entry.method} ${entry.path} ${entry.status}`);
}

beforeAll(async () => {
  emu = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [TOKEN] });
  engine = await engineStack({ projectDir: PROJECT, emu, token: TOKEN });
}, 60_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
});

test('preview shows the creates, up adds the notification over every pool before clearing the e-mails, a second preview shows no changes', async () => {
  const before = await listPools();
  expect(before).toHaveLength(60);
  expect(before.filter((pool) => pool.notification_email === '')).toEqual([]);
  expect(await listAlertPolicies()).toEqual([]);

  const preview = await engine.preview();
  expect(preview.changeSummary).toEqual({ create: 3 });
  const mark = emu.mark();
  const up = await engine.up();
  expect(up.summary.result).toBe('succeeded');
  expect(up.summary.resourceChanges).toEqual({ create: 3 });

  const [policy, ...others] = await listAlertPolicies();
  expect(others).toEqual([]);
  notificationId = policy!.id;
  expect(policy!.alert_type).toBe('load_balancing_health_alert');
  expect(policy!.filters).toEqual({
    pool_id: before.map((pool) => pool.id).sort(),
    new_health: ['Healthy', 'Unhealthy'],
    event_source: ['origin', 'pool'],
  });
  expect(policy!.mechanisms).toEqual({ email: [{ id: 'noc@example.com' }] });
  expect((await listPools()).filter((pool) => pool.notification_email !== '')).toEqual([]);
  // dependsOn: the notification exists before any pool loses its e-mail; one bulk edit covers all 60.
  expect(await writesSince(mark)).toEqual([`POST /client/v4/${ALERT_POLICIES} 200`, `PATCH /client/v4/${POOLS} 200`]);

  expect(up.outputs.healthNotification!.value).toEqual({
    id: notificationId,
    name: 'Load balancer pool health',
    pools: 60,
    newHealth: ['Healthy', 'Unhealthy'],
    eventSource: ['origin', 'pool'],
    emails: ['noc@example.com'],
  });
  expect(up.outputs.legacyEmailMigration!.value).toEqual({
    poolsSeen: 60,
    poolsCleared: 60,
    poolsWithEmail: 0,
    removedEmails: Object.fromEntries(before.map((pool) => [pool.name, pool.notification_email])),
  });

  const again = await engine.preview({ expectNoChanges: true });
  expect(again.changeSummary).toEqual({ same: 3 });
  expect(engine.stateText()).toContain(notificationId);
  expect(engine.stateText()).not.toContain(TOKEN);
}, 180_000);

test('an e-mail put back on a pool and a filter changed through the API show at refresh, and the next up clears and restores them', async () => {
  const pool = (await listPools())[17]!;
  const putBack = await emu.api('PATCH', `${POOLS}/${pool.id}`, {
    body: { notification_email: 'legacy-ops@example.com' },
  });
  expect(putBack.status).toBe(200);
  const { name, description, enabled, alert_type, mechanisms, filters } = (
    await emu.api('GET', `${ALERT_POLICIES}/${notificationId}`)
  ).body.result;
  const narrowed = await emu.api('PUT', `${ALERT_POLICIES}/${notificationId}`, {
    body: { name, description, enabled, alert_type, mechanisms, filters: { ...filters, new_health: ['Unhealthy'] } },
  });
  expect(narrowed.status).toBe(200);

  const refresh = await engine.refresh();
  expect(refresh.summary.resourceChanges).toEqual({ update: 2, same: 1 });
  const mark = emu.mark();
  const up = await engine.up();
  expect(up.summary.resourceChanges).toEqual({ update: 2, same: 1 });

  expect(await writesSince(mark)).toEqual([
    `PUT /client/v4/${ALERT_POLICIES}/${notificationId} 200`,
    `PATCH /client/v4/${POOLS} 200`,
  ]);
  expect((await emu.api('GET', `${ALERT_POLICIES}/${notificationId}`)).body.result.filters.new_health).toEqual([
    'Healthy',
    'Unhealthy',
  ]);
  expect((await listPools()).filter((p) => p.notification_email !== '')).toEqual([]);
  const migration = up.outputs.legacyEmailMigration!.value;
  expect({ poolsCleared: migration.poolsCleared, poolsWithEmail: migration.poolsWithEmail }).toEqual({
    poolsCleared: 1,
    poolsWithEmail: 0,
  });
  // The record of removed addresses keeps the first run's and adds this one.
  expect(Object.keys(migration.removedEmails)).toHaveLength(60);
  expect(migration.removedEmails[pool.name]).toBe('legacy-ops@example.com');
}, 180_000);

test('destroy deletes the notification and leaves the pools cleared; no output or state holds the token', async () => {
  const mark = emu.mark();
  const destroy = await engine.destroy();
  expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });

  expect(await writesSince(mark)).toEqual([`DELETE /client/v4/${ALERT_POLICIES}/${notificationId} 200`]);
  expect(await listAlertPolicies()).toEqual([]);
  const pools = await listPools();
  expect(pools).toHaveLength(60);
  expect(pools.filter((pool) => pool.notification_email !== '')).toEqual([]);

  expect(engine.output.join('\n')).not.toContain(TOKEN);
  expect(engine.stateText()).not.toContain(TOKEN);
}, 180_000);
