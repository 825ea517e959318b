import { randomBytes } from 'node:crypto';
import { BadRequestError } from '../../../provider/client/errors';
import { provider } from '../../../provider/dynamic/runtime/health-notification';
import { startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';
import { POOL_A, POOL_B, POOL_C, WEBHOOK } from '../../helpers/inputs';
import { configureProvider } from '../../helpers/provider';

/**
 * `HealthNotification`: every provider method against the emulator, with the requests each one
 * makes taken from the emulator's request log. (Check and diff alone:
 * tests/unit/provider/health-notification.test.ts.)
 */

const hexId = () => randomBytes(16).toString('hex');

const check = (news: Record<string, unknown>) => provider.check({}, news);
const diff = (olds: Record<string, unknown>, news: Record<string, unknown>) => provider.diff('id', olds, news);

describe('against the emulator', () => {
  let emu: TestEmulator;
  let accountId: string;
  const policiesPath = () => `accounts/${accountId}/alerting/v3/policies`;
  const apiPath = (path: string) => `/client/v4/${path}`;

  beforeAll(async () => {
    emu = await startTestEmulator({ fixture: false });
    await configureProvider(emu);
  });
  afterAll(async () => emu.close());

  beforeEach(async () => {
    accountId = hexId();
    const seeded = await emu.control('POST', 'seed', {
      accounts: [{ id: accountId, name: 'Acme' }],
      pools: [POOL_A, POOL_B, POOL_C].map((id, i) => ({
        account_id: accountId,
        id,
        name: `pool-${i}`,
        notification_email: 'ops@example.com',
      })),
    });
    expect(seeded.status).toBe(200);
  });

  /** Checked inputs, as the engine would pass them to create/update. */
  async function inputs(extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const result = await check({
      accountId,
      name: 'Pool health',
      poolIds: [POOL_B, POOL_A],
      emails: ['ops@example.com'],
      webhookIds: [WEBHOOK],
      ...extra,
    });
    expect(result.failures).toBeUndefined();
    return result.inputs as Record<string, unknown>;
  }

  async function policies(): Promise<any[]> {
    const reply = await emu.api('GET', policiesPath());
    expect(reply.status).toBe(200);
    return reply.body.result;
  }

  const requestLines = async (mark: number) =>
    (await emu.requests(mark)).map((r) => `${r.method} ${r.path} ${r.status}`);

  test('create: one POST and one GET; outputs are the policy as read back', async () => {
    const news = await inputs();
    const mark = emu.mark();
    const { id, outs } = await provider.create(news);
    expect(await requestLines(mark)).toEqual([
      `POST ${apiPath(policiesPath())} 200`,
      `GET ${apiPath(`${policiesPath()}/${id}`)} 200`,
    ]);
    const [stored] = await policies();
    expect(id).toBe(stored.id);
    expect(outs).toEqual({ ...news, notificationId: id, created: stored.created, modified: stored.modified });
    expect(stored).toMatchObject({
      name: 'Pool health',
      description: '',
      enabled: true,
      alert_type: 'load_balancing_health_alert',
      mechanisms: { email: [{ id: 'ops@example.com' }], webhooks: [{ id: WEBHOOK }] },
      filters: { pool_id: [POOL_A, POOL_B], new_health: ['Healthy', 'Unhealthy'], event_source: ['origin', 'pool'] },
    });
  });

  test('read returns the live policy as props and inputs; one GET', async () => {
    const { id, outs } = await provider.create(await inputs());
    const mark = emu.mark();
    const read = await provider.read(id, outs);
    expect(read).toEqual({ id, props: outs, inputs: await inputs() });
    expect(await requestLines(mark)).toEqual([`GET ${apiPath(`${policiesPath()}/${id}`)} 200`]);
  });

  test('a filter changed through the API shows as drift, and update puts it back with one PUT and one GET', async () => {
    const news = await inputs();
    const { id, outs } = await provider.create(news);
    const live = (await emu.api('GET', `${policiesPath()}/${id}`)).body.result;
    const changed = await emu.api('PUT', `${policiesPath()}/${id}`, {
      body: {
        name: live.name,
        description: live.description,
        enabled: live.enabled,
        alert_type: live.alert_type,
        mechanisms: live.mechanisms,
        filters: { ...live.filters, new_health: ['Unhealthy'] },
      },
    });
    expect(changed.status).toBe(200);

    const read = await provider.read(id, outs);
    expect(read.inputs).toEqual({ ...news, newHealth: ['Unhealthy'] });
    expect(read.props).toMatchObject({ newHealth: ['Unhealthy'] });
    expect(await diff(read.props, news)).toEqual({ changes: true, replaces: [] });

    const mark = emu.mark();
    const { outs: updated } = await provider.update(id, read.props, news);
    expect(await requestLines(mark)).toEqual([
      `PUT ${apiPath(`${policiesPath()}/${id}`)} 200`,
      `GET ${apiPath(`${policiesPath()}/${id}`)} 200`,
    ]);
    expect(updated).toMatchObject({ newHealth: ['Healthy', 'Unhealthy'], notificationId: id });
    expect((await emu.api('GET', `${policiesPath()}/${id}`)).body.result.filters.new_health).toEqual([
      'Healthy',
      'Unhealthy',
    ]);
    expect(await diff(updated, news)).toEqual({ changes: false, replaces: [] });
  });

  test('update changes every other field in place (same id); the outputs follow', async () => {
    const { id, outs } = await provider.create(await inputs());
    const news = await inputs({
      name: 'Renamed',
      description: 'd',
      enabled: false,
      poolIds: [POOL_C],
      newHealth: ['Unhealthy'],
      eventSource: ['pool'],
      emails: [],
      webhookIds: [],
    });
    expect(await diff(outs, news)).toEqual({ changes: true, replaces: [] });
    const { outs: updated } = await provider.update(id, outs, news);
    expect(updated).toEqual({ ...news, notificationId: id, created: outs.created, modified: expect.any(String) });
    const [stored, ...others] = await policies();
    expect(others).toEqual([]);
    expect(stored).toMatchObject({
      id,
      name: 'Renamed',
      description: 'd',
      enabled: false,
      mechanisms: {},
      filters: { pool_id: [POOL_C], new_health: ['Unhealthy'], event_source: ['pool'] },
    });
  });

  test('delete removes the policy; a second delete succeeds; read of it then says gone', async () => {
    const { id, outs } = await provider.create(await inputs());
    const mark = emu.mark();
    await provider.delete(id, outs);
    await provider.delete(id, outs);
    expect(await requestLines(mark)).toEqual([
      `DELETE ${apiPath(`${policiesPath()}/${id}`)} 200`,
      `DELETE ${apiPath(`${policiesPath()}/${id}`)} 404`,
    ]);
    expect(await policies()).toEqual([]);
    expect(await provider.read(id, outs)).toEqual({});
  });

  test('a create whose response is lost is recovered from the list, not created twice', async () => {
    const news = await inputs();
    // Every POST to the policies is applied and then its connection reset: only the recovery can
    // succeed, so a second POST would show in the log (and leave a second policy).
    const faults = await emu.control('POST', 'faults', {
      reset_rate: 1,
      methods: ['POST'],
      paths: ['accounts/*/alerting/v3/policies'],
    });
    expect(faults.status).toBe(200);
    const mark = emu.mark();
    let created: { id: string; outs?: Record<string, unknown> };
    try {
      created = await provider.create(news);
    } finally {
      await emu.control('POST', 'faults', {});
    }
    expect(await requestLines(mark)).toEqual([
      `POST ${apiPath(policiesPath())} null`,
      `GET ${apiPath(policiesPath())} 200`,
      `GET ${apiPath(`${policiesPath()}/${created.id}`)} 200`,
    ]);
    expect((await policies()).map((p) => p.id)).toEqual([created.id]);
    expect(created.outs).toMatchObject({ notificationId: created.id, name: 'Pool health' });
  });

  test('the recovery adopts the lost attempt, not a policy of the same name that watches other pools', async () => {
    const other = await provider.create(await inputs({ poolIds: [POOL_C] }));
    await emu.control('POST', 'faults', {
      reset_rate: 1,
      methods: ['POST'],
      paths: ['accounts/*/alerting/v3/policies'],
    });
    let created: { id: string; outs?: Record<string, unknown> };
    try {
      created = await provider.create(await inputs());
    } finally {
      await emu.control('POST', 'faults', {});
    }
    expect(created.id).not.toBe(other.id);
    expect(created.outs).toMatchObject({ poolIds: [POOL_A, POOL_B] });
    expect((await policies()).map((p) => p.id).sort()).toEqual([other.id, created.id].sort());
  });

  test('a pool the account does not have: the API refuses, naming filters.pool_id[i]; nothing is created', async () => {
    const stranger = hexId();
    const news = await inputs({ poolIds: [POOL_A, stranger] });
    const index = (news.poolIds as string[]).indexOf(stranger);
    const error = await provider.create(news).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message).toContain(`filters.pool_id[${index}]: no pool ${stranger}`);
    expect((error as Error).message).not.toContain(TEST_TOKEN);
    expect(await policies()).toEqual([]);
  });

  test('read of a policy deleted elsewhere says gone', async () => {
    const { id, outs } = await provider.create(await inputs());
    expect((await emu.api('DELETE', `${policiesPath()}/${id}`)).status).toBe(200);
    expect(await provider.read(id, outs)).toEqual({});
  });
});
