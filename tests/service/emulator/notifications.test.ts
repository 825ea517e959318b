import { randomBytes } from 'node:crypto';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

/**
 * Account-level notification policies (spec 2.8, 6; contract "Account-level notifications"):
 * create answers `{id}` only, the record is read back, PUT replaces it whole, DELETE removes it,
 * and every field of the body is validated before anything is stored. Every test seeds its own
 * account and pools.
 */

const EMAIL = 'e-mail@example.com';
const KEY = 'legacy-api-key-0123456789';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const WEBHOOK = 'f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ email: EMAIL, key: KEY });
});
afterAll(async () => emu.close());

const hexId = () => randomBytes(16).toString('hex');
const policiesPath = (accountId: string) => `accounts/${accountId}/alerting/v3/policies`;

/** A fresh account with two pools; returns the account id and the pool ids. */
async function accountWithPools(): Promise<{ accountId: string; poolA: string; poolB: string }> {
  const [accountId, poolA, poolB] = [hexId(), hexId(), hexId()];
  const seeded = await emu.control('POST', 'seed', {
    accounts: [{ id: accountId, name: `account ${accountId.slice(0, 6)}` }],
    pools: [
      { account_id: accountId, id: poolA, name: 'eu-west', notification_email: 'ops@example.com' },
      { account_id: accountId, id: poolB, name: 'us-east' },
    ],
  });
  expect(seeded.status).toBe(200);
  return { accountId, poolA, poolB };
}

function validBody(poolIds: string[]): Record<string, any> {
  return {
    name: 'Pool health',
    description: 'Tell ops when a pool or origin changes health',
    enabled: true,
    alert_type: 'load_balancing_health_alert',
    mechanisms: { email: [{ id: 'ops@example.com' }], webhooks: [{ id: WEBHOOK }] },
    filters: { pool_id: poolIds, new_health: ['Unhealthy', 'Healthy'], event_source: ['pool', 'origin'] },
  };
}

async function listPolicies(accountId: string): Promise<any[]> {
  const reply = await emu.api('GET', policiesPath(accountId));
  expect(reply.status).toBe(200);
  return reply.body.result;
}

async function create(accountId: string, body: unknown): Promise<string> {
  const reply = await emu.api('POST', policiesPath(accountId), { body });
  expect(reply.status).toBe(200);
  return reply.body.result.id;
}

describe('policy lifecycle', () => {
  test('create answers exactly {id}, and GET shows the whole record', async () => {
    const { accountId, poolA, poolB } = await accountWithPools();
    const body = validBody([poolA, poolB]);
    const reply = await emu.api('POST', policiesPath(accountId), { body });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      result: { id: expect.stringMatching(/^[0-9a-f]{32}$/) },
      success: true,
      errors: [],
      messages: [],
    });
    const id = reply.body.result.id;

    const got = await emu.api('GET', `${policiesPath(accountId)}/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.result).toEqual({
      id,
      ...body,
      created: expect.stringMatching(ISO),
      modified: got.body.result.created,
    });
    expect(Object.keys(got.body.result).sort()).toEqual([
      'alert_type',
      'created',
      'description',
      'enabled',
      'filters',
      'id',
      'mechanisms',
      'modified',
      'name',
    ]);
  });

  test('optional parts: description defaults to "", absent filters stay absent, unknown fields are ignored', async () => {
    const { accountId, poolA } = await accountWithPools();
    const id = await create(accountId, {
      name: 'Minimal',
      enabled: false,
      alert_type: 'load_balancing_health_alert',
      mechanisms: {},
      filters: { pool_id: [poolA] },
      colour: 'blue',
    });
    const got = await emu.api('GET', `${policiesPath(accountId)}/${id}`);
    expect(got.body.result).toEqual({
      id,
      name: 'Minimal',
      description: '',
      enabled: false,
      alert_type: 'load_balancing_health_alert',
      mechanisms: {},
      filters: { pool_id: [poolA] },
      created: expect.stringMatching(ISO),
      modified: expect.stringMatching(ISO),
    });
  });

  test("the list holds the account's policies by name, on one page", async () => {
    const { accountId, poolA } = await accountWithPools();
    const other = await accountWithPools();
    await create(other.accountId, validBody([other.poolA]));
    const idB = await create(accountId, { ...validBody([poolA]), name: 'beta' });
    const idA = await create(accountId, { ...validBody([poolA]), name: 'alpha' });
    const reply = await emu.api('GET', policiesPath(accountId));
    expect(reply.status).toBe(200);
    expect(reply.body.result.map((p: { id: string }) => p.id)).toEqual([idA, idB]);
    expect(reply.body.result[0]).toEqual({
      ...validBody([poolA]),
      name: 'alpha',
      id: idA,
      created: expect.stringMatching(ISO),
      modified: expect.stringMatching(ISO),
    });
    expect(reply.body.result_info).toEqual({ page: 1, per_page: 2, count: 2, total_count: 2, total_pages: 1 });
  });

  test('PUT replaces the policy whole, answers {id}, keeps created and moves modified', async () => {
    const { accountId, poolA, poolB } = await accountWithPools();
    const id = await create(accountId, validBody([poolA]));
    const before = (await emu.api('GET', `${policiesPath(accountId)}/${id}`)).body.result;
    await emu.control('POST', 'clock', { advance_seconds: 3 });

    const replacement = {
      name: 'Renamed',
      enabled: false,
      alert_type: 'load_balancing_health_alert',
      mechanisms: { webhooks: [{ id: WEBHOOK }] },
      filters: { pool_id: [poolB, poolA], new_health: ['Unhealthy'] },
    };
    const reply = await emu.api('PUT', `${policiesPath(accountId)}/${id}`, { body: replacement });
    expect(reply.status).toBe(200);
    expect(reply.body.result).toEqual({ id });

    const after = (await emu.api('GET', `${policiesPath(accountId)}/${id}`)).body.result;
    expect(after).toEqual({
      id,
      ...replacement,
      description: '',
      created: before.created,
      modified: expect.stringMatching(ISO),
    });
    expect(after.modified > before.modified).toBe(true);
    expect(await listPolicies(accountId)).toEqual([after]);
  });

  test('DELETE answers {id}; the policy is gone afterwards', async () => {
    const { accountId, poolA } = await accountWithPools();
    const keep = await create(accountId, { ...validBody([poolA]), name: 'keep' });
    const id = await create(accountId, validBody([poolA]));
    const reply = await emu.api('DELETE', `${policiesPath(accountId)}/${id}`);
    expect(reply.status).toBe(200);
    expect(reply.body.result).toEqual({ id });
    for (const [method, options] of [
      ['GET', {}],
      ['PUT', { body: validBody([poolA]) }],
      ['DELETE', {}],
    ] as const) {
      const gone = await emu.api(method, `${policiesPath(accountId)}/${id}`, options);
      expect(gone.status).toBe(404);
      expect(gone.body.errors).toEqual([{ code: 1009, message: `alert policy ${id} not found` }]);
    }
    expect((await listPolicies(accountId)).map((p) => p.id)).toEqual([keep]);
  });

  test('a policy of another account is a 404; a malformed policy id a 400 with 7003', async () => {
    const mine = await accountWithPools();
    const theirs = await accountWithPools();
    const theirId = await create(theirs.accountId, validBody([theirs.poolA]));
    for (const [method, options] of [
      ['GET', {}],
      ['PUT', { body: validBody([mine.poolA]) }],
      ['DELETE', {}],
    ] as const) {
      const reply = await emu.api(method, `${policiesPath(mine.accountId)}/${theirId}`, options);
      expect(reply.status).toBe(404);
      expect(reply.body.errors[0]?.code).toBe(1009);
    }
    expect((await listPolicies(theirs.accountId)).map((p) => p.id)).toEqual([theirId]);
    const malformed = await emu.api('GET', `${policiesPath(mine.accountId)}/xyz`);
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors).toEqual([{ code: 7003, message: expect.stringMatching(/^policy_id: /) }]);
  });
});

type Mutation = (
  body: Record<string, any>,
  pools: { poolA: string; poolB: string; foreignPool: string; unknownPool: string },
) => unknown;

/** [what, change to a valid body, field path named, text the message must hold]. */
const invalidBodies: Array<[string, Mutation, string, string?]> = [
  ['name missing', (b) => ({ ...b, name: undefined }), 'name', 'required'],
  ['name empty', (b) => ({ ...b, name: '' }), 'name', 'must not be empty'],
  ['name blank', (b) => ({ ...b, name: '   ' }), 'name', 'must not be empty'],
  ['name over 256 characters', (b) => ({ ...b, name: 'n'.repeat(257) }), 'name', '256'],
  ['name not a string', (b) => ({ ...b, name: 42 }), 'name', 'must be a string'],
  ['description not a string', (b) => ({ ...b, description: false }), 'description', 'must be a string'],
  ['enabled missing', (b) => ({ ...b, enabled: undefined }), 'enabled', 'required'],
  ['enabled a string', (b) => ({ ...b, enabled: 'true' }), 'enabled', 'true or false'],
  ['alert_type missing', (b) => ({ ...b, alert_type: undefined }), 'alert_type', 'load_balancing_health_alert'],
  [
    'alert_type unknown',
    (b) => ({ ...b, alert_type: 'billing_usage_alert' }),
    'alert_type',
    '"load_balancing_health_alert" (got "billing_usage_alert")',
  ],
  ['mechanisms missing', (b) => ({ ...b, mechanisms: undefined }), 'mechanisms', 'required'],
  ['mechanisms an array', (b) => ({ ...b, mechanisms: [] }), 'mechanisms', 'must be an object'],
  [
    'mechanisms.email not an array',
    (b) => ({ ...b, mechanisms: { email: 'ops@example.com' } }),
    'mechanisms.email',
    'must be an array',
  ],
  [
    'mechanisms.email[0].id not an address',
    (b) => ({ ...b, mechanisms: { email: [{ id: 'ops@example.com' }, { id: 'not-an-address' }] } }),
    'mechanisms.email[1].id',
    'e-mail address',
  ],
  [
    'mechanisms.webhooks[0].id not an id',
    (b) => ({ ...b, mechanisms: { webhooks: [{ id: 'hook-1' }] } }),
    'mechanisms.webhooks[0].id',
    '32 lowercase hexadecimal',
  ],
  ['filters missing', (b) => ({ ...b, filters: undefined }), 'filters', 'required'],
  ['filters.pool_id missing', (b) => ({ ...b, filters: { new_health: ['Healthy'] } }), 'filters.pool_id', 'required'],
  ['filters.pool_id empty', (b) => ({ ...b, filters: { pool_id: [] } }), 'filters.pool_id', 'at least one pool'],
  [
    'filters.pool_id not an array',
    (b, p) => ({ ...b, filters: { pool_id: p.poolA } }),
    'filters.pool_id',
    'must be an array',
  ],
  [
    'filters.pool_id[0] malformed',
    (b) => ({ ...b, filters: { pool_id: ['pool-1'] } }),
    'filters.pool_id[0]',
    '32 lowercase hexadecimal',
  ],
  [
    'filters.pool_id[1] unknown',
    (b, p) => ({ ...b, filters: { pool_id: [p.poolA, p.unknownPool] } }),
    'filters.pool_id[1]',
    'no pool',
  ],
  [
    'filters.pool_id[0] of another account',
    (b, p) => ({ ...b, filters: { pool_id: [p.foreignPool, p.poolB] } }),
    'filters.pool_id[0]',
    'no pool',
  ],
  [
    'filters.pool_id duplicated',
    (b, p) => ({ ...b, filters: { pool_id: [p.poolA, p.poolB, p.poolA] } }),
    'filters.pool_id[2]',
    'duplicate of [0]',
  ],
  [
    'filters.new_health bad value',
    (b, p) => ({ ...b, filters: { pool_id: [p.poolA], new_health: ['Healthy', 'Degraded'] } }),
    'filters.new_health[1]',
    '"Unhealthy" or "Healthy"',
  ],
  [
    'filters.new_health empty',
    (b, p) => ({ ...b, filters: { pool_id: [p.poolA], new_health: [] } }),
    'filters.new_health',
    'must not be empty',
  ],
  [
    'filters.new_health duplicated',
    (b, p) => ({ ...b, filters: { pool_id: [p.poolA], new_health: ['Healthy', 'Healthy'] } }),
    'filters.new_health[1]',
    'duplicate',
  ],
  [
    'filters.event_source bad value',
    (b, p) => ({ ...b, filters: { pool_id: [p.poolA], event_source: ['zone'] } }),
    'filters.event_source[0]',
    '"pool" or "origin"',
  ],
  [
    'filters.event_source empty',
    (b, p) => ({ ...b, filters: { pool_id: [p.poolA], event_source: [] } }),
    'filters.event_source',
    'must not be empty',
  ],
  [
    'filters.event_source duplicated',
    (b, p) => ({ ...b, filters: { pool_id: [p.poolA], event_source: ['origin', 'origin'] } }),
    'filters.event_source[1]',
    'duplicate',
  ],
  [
    'an unknown filter key',
    (b, p) => ({ ...b, filters: { pool_id: [p.poolA], foo: ['x'] } }),
    'filters.foo',
    'not a filter of load_balancing_health_alert',
  ],
  ['a body that is an array', () => [], 'body', 'JSON object'],
];

describe('validation', () => {
  let fixture: {
    accountId: string;
    poolA: string;
    poolB: string;
    foreignPool: string;
    unknownPool: string;
    existing: string;
  };
  beforeAll(async () => {
    const { accountId, poolA, poolB } = await accountWithPools();
    const foreign = await accountWithPools();
    const existing = await create(accountId, validBody([poolA]));
    fixture = { accountId, poolA, poolB, foreignPool: foreign.poolA, unknownPool: hexId(), existing };
  });

  test.each(invalidBodies)(
    'create with %s is a 400 naming the field; nothing is created',
    async (_what, mutate, field, text) => {
      const before = await listPolicies(fixture.accountId);
      const reply = await emu.api('POST', policiesPath(fixture.accountId), {
        body: mutate(validBody([fixture.poolA]), fixture),
      });
      expect(reply.status).toBe(400);
      expect(reply.body.success).toBe(false);
      expect(reply.body.result).toBeNull();
      expect(reply.body.errors).toEqual([
        { code: 1004, message: expect.stringMatching(new RegExp(`^${field.replace(/[.[\]]/g, '\\$&')}: `)) },
      ]);
      if (text) expect(reply.body.errors[0]?.message).toContain(text);
      expect(await listPolicies(fixture.accountId)).toEqual(before);
    },
  );

  test.each(invalidBodies)(
    'update with %s is a 400 naming the field; the policy is unchanged',
    async (_what, mutate, field) => {
      const path = `${policiesPath(fixture.accountId)}/${fixture.existing}`;
      const before = (await emu.api('GET', path)).body.result;
      const reply = await emu.api('PUT', path, {
        body: mutate({ ...validBody([fixture.poolB]), name: 'changed' }, fixture),
      });
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0]?.message.startsWith(`${field}: `)).toBe(true);
      expect((await emu.api('GET', path)).body.result).toEqual(before);
    },
  );

  test('an unknown alert type is reported alone, without lecturing about its filters', async () => {
    const reply = await emu.api('POST', policiesPath(fixture.accountId), {
      body: { ...validBody([fixture.poolA]), alert_type: 'dos_attack_l7', filters: { zones: ['x'] } },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([
      { code: 1004, message: expect.stringMatching(/^alert_type: .*load_balancing_health_alert/) },
    ]);
  });

  test('an unknown filter key is named beside a bad value of a known one', async () => {
    const reply = await emu.api('POST', policiesPath(fixture.accountId), {
      body: {
        ...validBody([fixture.poolA]),
        filters: { pool_id: [fixture.poolA], new_health: 'Healthy', zone_id: ['x'] },
      },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors.map((e: { message: string }) => e.message.split(':')[0])).toEqual([
      'filters.new_health',
      'filters.zone_id',
    ]);
  });

  test('several unknown pools are each named', async () => {
    const [x, y] = [hexId(), hexId()];
    const reply = await emu.api('POST', policiesPath(fixture.accountId), {
      body: { ...validBody([x, fixture.poolA, y]) },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors.map((e: { message: string }) => e.message.split(':')[0])).toEqual([
      'filters.pool_id[0]',
      'filters.pool_id[2]',
    ]);
  });

  test('a body that is not JSON is refused', async () => {
    const reply = await emu.api('POST', policiesPath(fixture.accountId), {
      rawBody: '{"name":',
      headers: { authorization: 'Bearer test-token-0123456789', 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.success).toBe(false);
  });
});

describe('account access', () => {
  test('a malformed account id is a 400 with code 7003', async () => {
    for (const [method, options] of [
      ['GET', {}],
      ['POST', { body: {} }],
    ] as const) {
      const reply = await emu.api(method, policiesPath('not-an-account'), options);
      expect(reply.status).toBe(400);
      expect(reply.body.errors).toEqual([{ code: 7003, message: expect.stringMatching(/^account_id: /) }]);
    }
  });

  test('an unknown account is a 404 with code 7003', async () => {
    const unknown = hexId();
    for (const [method, path] of [
      ['GET', policiesPath(unknown)],
      ['POST', policiesPath(unknown)],
      ['GET', `${policiesPath(unknown)}/${hexId()}`],
    ] as const) {
      const reply = await emu.api(method, path, method === 'POST' ? { body: validBody([hexId()]) } : {});
      expect(reply.status).toBe(404);
      expect(reply.body.errors).toEqual([{ code: 7003, message: `account ${unknown} not found` }]);
    }
  });

  test('a token scoped to another account gets 403 and creates nothing', async () => {
    const { accountId, poolA } = await accountWithPools();
    const other = await accountWithPools();
    await emu.control('POST', 'seed', { tokens: [{ value: 'alerting-elsewhere-token', accounts: [other.accountId] }] });
    const reply = await emu.api('POST', policiesPath(accountId), {
      body: validBody([poolA]),
      headers: { authorization: 'Bearer alerting-elsewhere-token' },
    });
    expect(reply.status).toBe(403);
    expect(reply.body.errors[0]?.code).toBe(9109);
    const list = await emu.api('GET', policiesPath(accountId), {
      headers: { authorization: 'Bearer alerting-elsewhere-token' },
    });
    expect(list.status).toBe(403);
    expect(await listPolicies(accountId)).toEqual([]);
  });

  test('e-mail + key credentials may manage policies', async () => {
    const { accountId, poolA } = await accountWithPools();
    const reply = await emu.api('POST', policiesPath(accountId), {
      body: validBody([poolA]),
      headers: { 'x-auth-email': EMAIL, 'x-auth-key': KEY },
    });
    expect(reply.status).toBe(200);
    expect((await listPolicies(accountId)).map((p) => p.id)).toEqual([reply.body.result.id]);
  });

  test('PATCH is not a method of a policy (405)', async () => {
    const { accountId, poolA } = await accountWithPools();
    const id = await create(accountId, validBody([poolA]));
    const reply = await emu.api('PATCH', `${policiesPath(accountId)}/${id}`, { body: {} });
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('GET, PUT, DELETE');
  });
});
