import { randomBytes } from 'node:crypto';
import * as pulumi from '@pulumi/pulumi';
import { BadRequestError } from '../../../provider/client/errors';
import { sameFilters } from '../../../provider/client/notifications';
import { HealthNotification } from '../../../provider/resources/health-notification';
import { UNKNOWN } from '../../../provider/runtime/check';
import { provider } from '../../../provider/runtime/health-notification';
import { startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';
import { configureProvider } from '../../helpers/provider';

/**
 * `HealthNotification`: check and diff as pure tables, then every provider method against the
 * emulator, with the requests each one makes taken from the emulator's request log.
 */

const hexId = () => randomBytes(16).toString('hex');
const ACCOUNT = 'a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1';
const POOL_A = '0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const POOL_B = '0bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const POOL_C = '0ccccccccccccccccccccccccccccccc';
const WEBHOOK = 'f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0';

const check = (news: Record<string, unknown>) => provider.check({}, news);
const diff = (olds: Record<string, unknown>, news: Record<string, unknown>) => provider.diff('id', olds, news);

describe('check', () => {
  test('applies the defaults and stores the lists as sorted sets, ids in lower case', async () => {
    const result = await check({
      accountId: ACCOUNT.toUpperCase(),
      name: 'Pool health',
      poolIds: [POOL_B, POOL_A.toUpperCase(), POOL_B],
    });
    expect(result).toEqual({
      inputs: {
        accountId: ACCOUNT,
        name: 'Pool health',
        description: '',
        enabled: true,
        poolIds: [POOL_A, POOL_B],
        newHealth: ['Healthy', 'Unhealthy'],
        eventSource: ['origin', 'pool'],
        emails: [],
        webhookIds: [],
      },
    });
  });

  test('keeps every field given, and ignores keys that are not inputs (the engine adds __provider)', async () => {
    const result = await check({
      __provider: 'serialized',
      accountId: ACCOUNT,
      name: 'n',
      description: 'd',
      enabled: false,
      poolIds: [POOL_A],
      newHealth: ['Unhealthy'],
      eventSource: ['origin'],
      emails: ['b@example.com', 'a@example.com', 'b@example.com'],
      webhookIds: [WEBHOOK],
    });
    expect(result).toEqual({
      inputs: {
        accountId: ACCOUNT,
        name: 'n',
        description: 'd',
        enabled: false,
        poolIds: [POOL_A],
        newHealth: ['Unhealthy'],
        eventSource: ['origin'],
        emails: ['a@example.com', 'b@example.com'],
        webhookIds: [WEBHOOK],
      },
    });
  });

  const valid = { accountId: ACCOUNT, name: 'n', poolIds: [POOL_A] };
  test.each<[string, Record<string, unknown>, Array<{ property: string; reason: RegExp }>]>([
    [
      'accountId too short',
      { ...valid, accountId: 'abc' },
      [{ property: 'accountId', reason: /^must be the account's id: 32 hexadecimal characters \(got "abc"\)$/ }],
    ],
    [
      'accountId missing',
      { name: 'n', poolIds: [POOL_A] },
      [{ property: 'accountId', reason: /^is required: the account's id: 32 hexadecimal characters$/ }],
    ],
    ['name empty', { ...valid, name: '' }, [{ property: 'name', reason: /^must not be empty/ }]],
    ['name blank', { ...valid, name: '   ' }, [{ property: 'name', reason: /^must not be empty/ }]],
    ['name missing', { accountId: ACCOUNT, poolIds: [POOL_A] }, [{ property: 'name', reason: /^is required: a name/ }]],
    [
      'name too long',
      { ...valid, name: 'x'.repeat(257) },
      [{ property: 'name', reason: /^must be at most 256 characters$/ }],
    ],
    ['poolIds empty', { ...valid, poolIds: [] }, [{ property: 'poolIds', reason: /^must name at least one pool/ }]],
    [
      'poolIds missing',
      { accountId: ACCOUNT, name: 'n' },
      [{ property: 'poolIds', reason: /^is required: a list of pool ids$/ }],
    ],
    [
      'poolIds not a list',
      { ...valid, poolIds: POOL_A },
      [{ property: 'poolIds', reason: /^must be a list of pool ids \(got "0a+"\)$/ }],
    ],
    [
      'a bad pool id, named by its index',
      { ...valid, poolIds: [POOL_A, 'pool-b', POOL_C] },
      [{ property: 'poolIds[1]', reason: /^must be a pool id: 32 hexadecimal characters \(got "pool-b"\)$/ }],
    ],
    [
      'newHealth value',
      { ...valid, newHealth: ['Healthy', 'Sick'] },
      [{ property: 'newHealth[1]', reason: /^must be "Unhealthy" or "Healthy" \(got "Sick"\)$/ }],
    ],
    [
      'newHealth empty',
      { ...valid, newHealth: [] },
      [{ property: 'newHealth', reason: /^must not be empty: leave newHealth out/ }],
    ],
    [
      'eventSource value',
      { ...valid, eventSource: ['zone'] },
      [{ property: 'eventSource[0]', reason: /^must be "pool" or "origin" \(got "zone"\)$/ }],
    ],
    [
      'eventSource empty',
      { ...valid, eventSource: [] },
      [{ property: 'eventSource', reason: /^must not be empty: leave eventSource out/ }],
    ],
    [
      'an e-mail that is not an address',
      { ...valid, emails: ['ops@example.com', 'ops at example'] },
      [{ property: 'emails[1]', reason: /^must be an e-mail address like ops@example.com \(got "ops at example"\)$/ }],
    ],
    [
      'a bad webhook id',
      { ...valid, webhookIds: ['hook'] },
      [{ property: 'webhookIds[0]', reason: /^must be a webhook id: 32 hexadecimal characters \(got "hook"\)$/ }],
    ],
    [
      'enabled not a boolean',
      { ...valid, enabled: 'yes' },
      [{ property: 'enabled', reason: /^must be true or false \(got "yes"\)$/ }],
    ],
    [
      'several problems at once, each named',
      { accountId: 'x', name: '', poolIds: ['y'], emails: ['z'] },
      [
        { property: 'accountId', reason: /32 hexadecimal/ },
        { property: 'name', reason: /must not be empty/ },
        { property: 'poolIds[0]', reason: /pool id/ },
        { property: 'emails[0]', reason: /e-mail address/ },
      ],
    ],
  ])('%s', async (_title, news, expected) => {
    const result = await check(news);
    expect(result.failures).toEqual(
      expected.map((failure) => ({ property: failure.property, reason: expect.stringMatching(failure.reason) })),
    );
    expect(result.inputs).toBe(news);
  });

  test('values unknown during preview are let through, known ones still checked', async () => {
    expect(await check({ accountId: UNKNOWN, name: 'n', poolIds: [UNKNOWN, POOL_A] })).toEqual({
      inputs: { accountId: UNKNOWN, name: 'n', poolIds: [UNKNOWN, POOL_A] },
    });
    expect((await check({ accountId: UNKNOWN, name: '', poolIds: UNKNOWN })).failures).toEqual([
      { property: 'name', reason: expect.stringMatching(/must not be empty/) },
    ]);
  });
});

describe('diff', () => {
  const olds = {
    accountId: ACCOUNT,
    name: 'n',
    description: '',
    enabled: true,
    poolIds: [POOL_A, POOL_B],
    newHealth: ['Healthy', 'Unhealthy'],
    eventSource: ['origin', 'pool'],
    emails: ['a@example.com', 'b@example.com'],
    webhookIds: [],
    notificationId: 'id',
    created: '2025-01-01T00:00:00.000Z',
    modified: '2025-01-01T00:00:00.000Z',
  };
  test.each<[string, Record<string, unknown>, { changes: boolean; replaces: string[] }]>([
    ['the same inputs', {}, { changes: false, replaces: [] }],
    [
      'pools, states, sources and e-mails reordered or repeated',
      {
        poolIds: [POOL_B, POOL_A, POOL_B],
        newHealth: ['Unhealthy', 'Healthy'],
        eventSource: ['pool', 'origin'],
        emails: ['b@example.com', 'a@example.com'],
      },
      { changes: false, replaces: [] },
    ],
    ['a pool added', { poolIds: [POOL_A, POOL_B, POOL_C] }, { changes: true, replaces: [] }],
    ['a pool removed', { poolIds: [POOL_A] }, { changes: true, replaces: [] }],
    ['newHealth narrowed', { newHealth: ['Unhealthy'] }, { changes: true, replaces: [] }],
    ['an e-mail replaced', { emails: ['a@example.com', 'c@example.com'] }, { changes: true, replaces: [] }],
    ['a webhook added', { webhookIds: [WEBHOOK] }, { changes: true, replaces: [] }],
    ['renamed', { name: 'm' }, { changes: true, replaces: [] }],
    ['disabled', { enabled: false }, { changes: true, replaces: [] }],
    ['description', { description: 'x' }, { changes: true, replaces: [] }],
    ['another account', { accountId: 'b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2' }, { changes: true, replaces: ['accountId'] }],
    ['account unknown during preview', { accountId: UNKNOWN }, { changes: true, replaces: ['accountId'] }],
    ['pools unknown during preview', { poolIds: UNKNOWN }, { changes: true, replaces: [] }],
  ])('%s', async (_title, change, expected) => {
    const { notificationId: _id, created: _c, modified: _m, ...inputs } = olds;
    expect(await diff(olds, { ...inputs, ...change })).toEqual(expected);
  });
});

describe('sameFilters (the create recovery match)', () => {
  test.each<[Record<string, string[]>, Record<string, string[]>, boolean]>([
    [{ pool_id: ['a', 'b'] }, { pool_id: ['b', 'a', 'a'] }, true],
    [{ pool_id: ['a'], new_health: ['Healthy'] }, { pool_id: ['a'], new_health: ['Healthy'] }, true],
    [{ pool_id: ['a'] }, { pool_id: ['a', 'b'] }, false],
    [{ pool_id: ['a'] }, { pool_id: ['a'], event_source: ['pool'] }, false],
  ])('%j vs %j: %s', (a, b, same) => {
    expect(sameFilters(a, b)).toBe(same);
  });
});

describe('the resource class', () => {
  test('serializes a tiny provider that loads the runtime by name and captures no setting', async () => {
    let registered: Record<string, unknown> | undefined;
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          registered = args.inputs;
          return { id: 'policy-id', state: args.inputs };
        },
        call: () => ({}),
      },
      'project',
      'stack',
      true,
    );
    process.env.EDGEGUARD_API_TOKEN = TEST_TOKEN;
    try {
      const resource = new HealthNotification('alerts', { accountId: ACCOUNT, name: 'Pool health', poolIds: [POOL_A] });
      await new Promise<void>((resolve) => resource.urn.apply(() => resolve()));
    } finally {
      delete process.env.EDGEGUARD_API_TOKEN;
    }
    const serialized = registered?.__provider;
    expect(typeof serialized).toBe('string');
    const text = serialized as string;
    console.log(`serialized HealthNotification provider: ${text.length} characters`);
    expect(text).toContain('pulumi-edgeguard/runtime/');
    expect(text).toContain('health-notification');
    expect(text).not.toContain(TEST_TOKEN);
    expect(text.length).toBeLessThan(8_000);
    expect(registered).toMatchObject({ accountId: ACCOUNT, name: 'Pool health', poolIds: [POOL_A] });
  });
});

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
