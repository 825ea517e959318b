import { randomBytes } from 'node:crypto';
import { ACCOUNT_ID, startTestEmulator, type TestEmulator } from '../../helpers/emulator';

/**
 * Load-balancing pools (spec 2.7, 4, 8; contract "Load balancing pools"): the ordered list, the
 * paged bulk PATCH of `notification_email`, one pool's GET/PATCH, and account access rules. Every
 * test seeds its own account, so tests share no pools.
 */

const EMAIL = 'e-mail@example.com';
const KEY = 'legacy-api-key-0123456789';
const OLD = 'ops@example.com';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ email: EMAIL, key: KEY });
});
afterAll(async () => emu.close());

const hexId = () => randomBytes(16).toString('hex');
const poolsPath = (accountId: string) => `accounts/${accountId}/load_balancers/pools`;

interface SeedPool {
  name: string;
  notification_email?: string;
  id?: string;
  created_on?: string;
  modified_on?: string;
}

/** A fresh account holding `pools` (seeded in the order given). */
async function accountWith(pools: SeedPool[]): Promise<string> {
  const accountId = hexId();
  const seeded = await emu.control('POST', 'seed', {
    accounts: [{ id: accountId, name: `account ${accountId.slice(0, 6)}` }],
    pools: pools.map((pool) => ({ account_id: accountId, ...pool })),
  });
  expect(seeded.status).toBe(200);
  return accountId;
}

/** `count` pools `p-00`... each with the legacy e-mail, seeded in reverse order. */
function numberedPools(count: number, email = OLD): SeedPool[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `p-${String(i).padStart(2, '0')}`,
    notification_email: email,
  })).reverse();
}

async function listPools(
  accountId: string,
): Promise<Array<{ id: string; name: string; notification_email: string; created_on: string; modified_on: string }>> {
  const reply = await emu.api('GET', poolsPath(accountId));
  expect(reply.status).toBe(200);
  return reply.body.result;
}

/** Names of the pools that still carry a legacy e-mail. */
async function namesWithEmail(accountId: string): Promise<string[]> {
  return (await listPools(accountId)).filter((pool) => pool.notification_email !== '').map((pool) => pool.name);
}

const names = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `p-${String(from + i).padStart(2, '0')}`);
const allNames = (count: number) => names(0, count - 1);
const without = (all: string[], removed: string[]) => all.filter((name) => !removed.includes(name));

describe('list pools', () => {
  test('lists every pool of the account by name ascending, ties by id, with the wire fields only', async () => {
    const [low, high] = ['00000000000000000000000000000aaa', '00000000000000000000000000000bbb'];
    const accountId = await accountWith([
      { name: 'us-east' },
      { name: 'eu-west', notification_email: OLD },
      { name: 'ap-south', id: high },
      { name: 'ap-south', id: low },
      { name: 'Zeta' },
    ]);
    await accountWith([{ name: 'aaa-other-account' }]);

    const reply = await emu.api('GET', poolsPath(accountId));
    expect(reply.status).toBe(200);
    expect(reply.body.result.map((p: { name: string }) => p.name)).toEqual([
      'Zeta',
      'ap-south',
      'ap-south',
      'eu-west',
      'us-east',
    ]);
    expect(reply.body.result[1].id).toBe(low);
    expect(reply.body.result[2].id).toBe(high);
    expect(reply.body.result_info).toEqual({ page: 1, per_page: 5, count: 5, total_count: 5, total_pages: 1 });
    const euWest = reply.body.result[3];
    expect(Object.keys(euWest).sort()).toEqual(['created_on', 'id', 'modified_on', 'name', 'notification_email']);
    expect(euWest).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      name: 'eu-west',
      notification_email: OLD,
      created_on: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      modified_on: euWest.created_on,
    });
    expect(reply.body.result[4].notification_email).toBe('');
  });

  test('an account without pools lists none', async () => {
    const reply = await emu.api('GET', poolsPath(await accountWith([])));
    expect(reply.status).toBe(200);
    expect(reply.body.result).toEqual([]);
    expect(reply.body.result_info).toEqual({ page: 1, per_page: 1, count: 0, total_count: 0, total_pages: 0 });
  });

  test('seeding a pool again by account and name replaces it instead of adding a copy', async () => {
    const accountId = await accountWith([{ name: 'eu-west', notification_email: OLD }]);
    const [before] = await listPools(accountId);
    await emu.control('POST', 'seed', {
      pools: [{ account_id: accountId, name: 'eu-west', notification_email: 'new@example.com' }],
    });
    const after = await listPools(accountId);
    expect(after).toHaveLength(1);
    expect(after[0]!.id).toBe(before!.id);
    expect(after[0]!.notification_email).toBe('new@example.com');
  });

  test('a seed pool with an invalid notification_email is refused', async () => {
    const reply = await emu.control('POST', 'seed', {
      pools: [{ account_id: ACCOUNT_ID, name: 'x', notification_email: 'nope' }],
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0]?.message).toMatch(/^pools\[0\]\.notification_email: /);
  });
});

describe('bulk PATCH of notification_email', () => {
  test('without pagination parameters it updates the first 25 pools of 60', async () => {
    const accountId = await accountWith(numberedPools(60));
    const reply = await emu.api('PATCH', poolsPath(accountId), { body: { notification_email: '' } });
    expect(reply.status).toBe(200);
    expect(reply.body.success).toBe(true);
    expect(reply.body.result.map((p: { name: string }) => p.name)).toEqual(names(0, 24));
    expect(reply.body.result.every((p: { notification_email: string }) => p.notification_email === '')).toBe(true);
    expect(reply.body.result_info).toEqual({ page: 1, per_page: 25, count: 25, total_count: 60, total_pages: 3 });
    expect(await namesWithEmail(accountId)).toEqual(names(25, 59));
  });

  test('per_page + page updates exactly that page', async () => {
    const accountId = await accountWith(numberedPools(60));
    const reply = await emu.api('PATCH', poolsPath(accountId), {
      query: { per_page: 10, page: 3 },
      body: { notification_email: '' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.result.map((p: { name: string }) => p.name)).toEqual(names(20, 29));
    expect(reply.body.result_info).toEqual({ page: 3, per_page: 10, count: 10, total_count: 60, total_pages: 6 });
    expect(await namesWithEmail(accountId)).toEqual(without(allNames(60), names(20, 29)));
  });

  test('page alone uses 25 per page', async () => {
    const accountId = await accountWith(numberedPools(60));
    const reply = await emu.api('PATCH', poolsPath(accountId), {
      query: { page: 2 },
      body: { notification_email: '' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.result_info).toEqual({ page: 2, per_page: 25, count: 25, total_count: 60, total_pages: 3 });
    expect(await namesWithEmail(accountId)).toEqual(without(allNames(60), names(25, 49)));
  });

  test('per_page alone starts at page 1', async () => {
    const accountId = await accountWith(numberedPools(60));
    const reply = await emu.api('PATCH', poolsPath(accountId), {
      query: { per_page: 1000 },
      body: { notification_email: '' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.result_info).toEqual({ page: 1, per_page: 1000, count: 60, total_count: 60, total_pages: 1 });
    expect(await namesWithEmail(accountId)).toEqual([]);
  });

  test('limit + offset updates exactly that window and reports it as page/per_page', async () => {
    const accountId = await accountWith(numberedPools(60));
    const reply = await emu.api('PATCH', poolsPath(accountId), {
      query: { limit: 7, offset: 10 },
      body: { notification_email: 'new@example.com' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.result.map((p: { name: string }) => p.name)).toEqual(names(10, 16));
    expect(
      reply.body.result.every((p: { notification_email: string }) => p.notification_email === 'new@example.com'),
    ).toBe(true);
    expect(reply.body.result_info).toEqual({ page: 2, per_page: 7, count: 7, total_count: 60, total_pages: 9 });
    const list = await listPools(accountId);
    expect(list.filter((p) => p.notification_email === 'new@example.com').map((p) => p.name)).toEqual(names(10, 16));
    expect(list.filter((p) => p.notification_email === OLD).map((p) => p.name)).toEqual(
      without(allNames(60), names(10, 16)),
    );
  });

  test('offset alone uses a limit of 25; limit alone starts at offset 0', async () => {
    const accountId = await accountWith(numberedPools(60));
    const tail = await emu.api('PATCH', poolsPath(accountId), {
      query: { offset: 50 },
      body: { notification_email: '' },
    });
    expect(tail.status).toBe(200);
    expect(tail.body.result.map((p: { name: string }) => p.name)).toEqual(names(50, 59));
    expect(tail.body.result_info).toEqual({ page: 3, per_page: 25, count: 10, total_count: 60, total_pages: 3 });
    const head = await emu.api('PATCH', poolsPath(accountId), {
      query: { limit: 5 },
      body: { notification_email: '' },
    });
    expect(head.body.result.map((p: { name: string }) => p.name)).toEqual(names(0, 4));
    expect(await namesWithEmail(accountId)).toEqual(names(5, 49));
  });

  test.each([
    ['per_page', { per_page: 0 }],
    ['per_page', { per_page: 1001 }],
    ['per_page', { per_page: 'abc' }],
    ['per_page', { per_page: '2.5', page: 1 }],
    ['page', { page: 0 }],
    ['page', { per_page: 10, page: -1 }],
    ['page', { page: 'abc' }],
    ['limit', { limit: 1001 }],
    ['limit', { limit: 0 }],
    ['limit', { limit: 'abc' }],
    ['offset', { offset: -1 }],
    ['offset', { limit: 5, offset: '1e3' }],
  ])('an invalid %s (%j) is a 400 naming it, and no pool changes', async (parameter, query) => {
    const accountId = await accountWith(numberedPools(30));
    const before = await listPools(accountId);
    const reply = await emu.api('PATCH', poolsPath(accountId), {
      query: query,
      body: { notification_email: '' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.success).toBe(false);
    expect(reply.body.result).toBeNull();
    expect(reply.body.errors).toEqual([{ code: 1004, message: expect.stringMatching(new RegExp(`^${parameter}: `)) }]);
    expect(await listPools(accountId)).toEqual(before);
  });

  test.each([
    [{ per_page: 10, offset: 5 }],
    [{ page: 2, limit: 5 }],
    [{ per_page: 10, page: 1, limit: 10, offset: 0 }],
  ])('mixing per_page/page with limit/offset (%j) is a 400 saying to use one style', async (query) => {
    const accountId = await accountWith(numberedPools(30));
    const before = await listPools(accountId);
    const reply = await emu.api('PATCH', poolsPath(accountId), { query, body: { notification_email: '' } });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([{ code: 1004, message: expect.stringContaining('use one pagination style') }]);
    expect(await listPools(accountId)).toEqual(before);
  });

  test.each([
    ['a string that is not an address', { notification_email: 'not-an-email' }],
    ['a number', { notification_email: 42 }],
    ['null', { notification_email: null }],
    ['missing', {}],
  ])('notification_email %s is a 400 naming it, and no pool changes', async (_case, body) => {
    const accountId = await accountWith(numberedPools(30));
    const before = await listPools(accountId);
    const reply = await emu.api('PATCH', poolsPath(accountId), { body });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([{ code: 1004, message: expect.stringMatching(/^notification_email: /) }]);
    expect(await listPools(accountId)).toEqual(before);
  });

  test('a body that is not a JSON object is a 400', async () => {
    const accountId = await accountWith(numberedPools(3));
    const reply = await emu.api('PATCH', poolsPath(accountId), { body: [''] });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0]?.message).toMatch(/^body: /);
    expect(await namesWithEmail(accountId)).toEqual(allNames(3));
  });

  test('paging per_page 25 through pages 1..3 clears all 60 pools', async () => {
    const accountId = await accountWith(numberedPools(60));
    const counts: number[] = [];
    for (const page of [1, 2, 3]) {
      const reply = await emu.api('PATCH', poolsPath(accountId), {
        query: { per_page: 25, page },
        body: { notification_email: '' },
      });
      expect(reply.status).toBe(200);
      counts.push(reply.body.result_info?.count ?? -1);
    }
    expect(counts).toEqual([25, 25, 10]);
    const list = await listPools(accountId);
    expect(list).toHaveLength(60);
    expect(list.filter((pool) => pool.notification_email !== '')).toEqual([]);
  });

  test('a page past the end updates nothing and returns []', async () => {
    const accountId = await accountWith(numberedPools(60));
    const before = await listPools(accountId);
    const pastPage = await emu.api('PATCH', poolsPath(accountId), {
      query: { per_page: 25, page: 4 },
      body: { notification_email: '' },
    });
    expect(pastPage.status).toBe(200);
    expect(pastPage.body.result).toEqual([]);
    expect(pastPage.body.result_info).toEqual({ page: 4, per_page: 25, count: 0, total_count: 60, total_pages: 3 });
    const pastOffset = await emu.api('PATCH', poolsPath(accountId), {
      query: { limit: 10, offset: 60 },
      body: { notification_email: '' },
    });
    expect(pastOffset.status).toBe(200);
    expect(pastOffset.body.result).toEqual([]);
    expect(pastOffset.body.result_info).toEqual({ page: 7, per_page: 10, count: 0, total_count: 60, total_pages: 6 });
    expect(await listPools(accountId)).toEqual(before);
  });

  test('modified_on moves only on pools whose e-mail really changed', async () => {
    const past = '2020-01-01T00:00:00.000Z';
    const accountId = await accountWith([
      { name: 'a', notification_email: 'keep@example.com', created_on: past, modified_on: past },
      { name: 'b', notification_email: OLD, created_on: past, modified_on: past },
      { name: 'c', notification_email: 'keep@example.com', created_on: past, modified_on: past },
      { name: 'd', notification_email: '', created_on: past, modified_on: past },
    ]);
    await emu.control('POST', 'clock', { advance_seconds: 5 });
    const reply = await emu.api('PATCH', poolsPath(accountId), { body: { notification_email: 'keep@example.com' } });
    expect(reply.status).toBe(200);
    const byName = Object.fromEntries(
      (reply.body.result as Array<{ name: string; modified_on: string; created_on: string }>).map((p) => [p.name, p]),
    );
    expect(byName.a!.modified_on).toBe(past);
    expect(byName.c!.modified_on).toBe(past);
    expect(byName.b!.modified_on > past).toBe(true);
    expect(byName.d!.modified_on).toBe(byName.b!.modified_on);
    expect(Object.values(byName).every((p) => p.created_on === past)).toBe(true);
    expect(await listPools(accountId)).toEqual(reply.body.result);
  });

  test('PATCH with the e-mail + key credentials is accepted', async () => {
    const accountId = await accountWith(numberedPools(2));
    const reply = await emu.api('PATCH', poolsPath(accountId), {
      headers: { 'x-auth-email': EMAIL, 'x-auth-key': KEY },
      body: { notification_email: '' },
    });
    expect(reply.status).toBe(200);
    expect(await namesWithEmail(accountId)).toEqual([]);
  });
});

describe('one pool', () => {
  test('GET returns the pool and PATCH sets its e-mail, returning the pool', async () => {
    const accountId = await accountWith([
      { name: 'eu-west', notification_email: OLD },
      { name: 'us-east', notification_email: OLD },
    ]);
    const [euWest] = await listPools(accountId);
    const got = await emu.api('GET', `${poolsPath(accountId)}/${euWest!.id}`);
    expect(got.status).toBe(200);
    expect(got.body.result).toEqual(euWest);
    expect(got.body.result_info).toBeUndefined();

    await emu.control('POST', 'clock', { advance_seconds: 2 });
    const cleared = await emu.api('PATCH', `${poolsPath(accountId)}/${euWest!.id}`, {
      body: { notification_email: '' },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.result).toEqual({ ...euWest, notification_email: '', modified_on: expect.any(String) });
    expect(cleared.body.result.modified_on > euWest!.modified_on).toBe(true);
    expect(await namesWithEmail(accountId)).toEqual(['us-east']);

    const restored = await emu.api('PATCH', `${poolsPath(accountId)}/${euWest!.id}`, {
      body: { notification_email: OLD },
    });
    expect(restored.body.result.notification_email).toBe(OLD);
    const again = await emu.api('PATCH', `${poolsPath(accountId)}/${euWest!.id}`, {
      body: { notification_email: OLD },
    });
    expect(again.body.result.modified_on).toBe(restored.body.result.modified_on);
    expect(await namesWithEmail(accountId)).toEqual(['eu-west', 'us-east']);
  });

  test('PATCH with an invalid e-mail is a 400 and changes nothing', async () => {
    const accountId = await accountWith([{ name: 'eu-west', notification_email: OLD }]);
    const [pool] = await listPools(accountId);
    const reply = await emu.api('PATCH', `${poolsPath(accountId)}/${pool!.id}`, {
      body: { notification_email: 'ops@' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([{ code: 1004, message: expect.stringMatching(/^notification_email: /) }]);
    expect(await listPools(accountId)).toEqual([pool]);
  });

  test('an unknown pool, or one of another account, is a 404; a malformed id a 400 with 7003', async () => {
    const accountId = await accountWith([{ name: 'mine' }]);
    const otherAccount = await accountWith([{ name: 'theirs' }]);
    const [theirs] = await listPools(otherAccount);
    for (const poolId of [hexId(), theirs!.id]) {
      for (const method of ['GET', 'PATCH']) {
        const reply = await emu.api(
          method,
          `${poolsPath(accountId)}/${poolId}`,
          method === 'PATCH' ? { body: { notification_email: '' } } : {},
        );
        expect(reply.status).toBe(404);
        expect(reply.body.errors).toEqual([{ code: 1008, message: `pool ${poolId} not found` }]);
      }
    }
    expect((await listPools(otherAccount))[0]).toEqual(theirs);
    const malformed = await emu.api('GET', `${poolsPath(accountId)}/not-a-pool`);
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors).toEqual([{ code: 7003, message: expect.stringMatching(/^pool_id: /) }]);
  });
});

describe('account access', () => {
  test('a malformed account id is a 400 with code 7003', async () => {
    for (const [method, options] of [
      ['GET', {}],
      ['PATCH', { body: { notification_email: '' } }],
    ] as const) {
      const reply = await emu.api(method, poolsPath('ACME'), options);
      expect(reply.status).toBe(400);
      expect(reply.body.errors).toEqual([{ code: 7003, message: expect.stringMatching(/^account_id: /) }]);
    }
  });

  test('an unknown account is a 404 with code 7003', async () => {
    const unknown = hexId();
    for (const [method, options] of [
      ['GET', {}],
      ['PATCH', { body: { notification_email: '' } }],
    ] as const) {
      const reply = await emu.api(method, poolsPath(unknown), options);
      expect(reply.status).toBe(404);
      expect(reply.body.errors).toEqual([{ code: 7003, message: `account ${unknown} not found` }]);
    }
  });

  test('a token scoped to another account gets 403; one scoped to this account gets through', async () => {
    const accountId = await accountWith(numberedPools(3));
    const otherAccount = await accountWith([]);
    await emu.control('POST', 'seed', {
      tokens: [
        { value: 'scoped-elsewhere-token', accounts: [otherAccount] },
        { value: 'scoped-here-token', accounts: [accountId] },
      ],
    });
    const elsewhere = { authorization: 'Bearer scoped-elsewhere-token' };
    for (const [method, path, options] of [
      ['GET', poolsPath(accountId), {}],
      ['PATCH', poolsPath(accountId), { body: { notification_email: '' } }],
    ] as const) {
      const reply = await emu.api(method, path, { ...options, headers: elsewhere });
      expect(reply.status).toBe(403);
      expect(reply.body.errors[0]?.code).toBe(9109);
    }
    expect(await namesWithEmail(accountId)).toEqual(allNames(3));
    const here = await emu.api('GET', poolsPath(accountId), { headers: { authorization: 'Bearer scoped-here-token' } });
    expect(here.status).toBe(200);
    expect(here.body.result).toHaveLength(3);
  });

  test('no credentials is a 401', async () => {
    const reply = await emu.api('GET', poolsPath(ACCOUNT_ID), { headers: {} });
    expect(reply.status).toBe(401);
    expect(reply.body.errors[0]?.code).toBe(10000);
  });

  test('DELETE on the pool collection is a 405', async () => {
    const reply = await emu.api('DELETE', poolsPath(ACCOUNT_ID));
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('GET, PATCH');
  });
});

describe('scale', () => {
  // How fast this goes is a figure of the bench (`clear pools`), not a rule a test can time.
  test('10,000 pools: listed in name order, and each bulk PATCH page clears exactly its slice of that order', async () => {
    const names = Array.from({ length: 10_000 }, (_, i) => `pool-${String(i).padStart(5, '0')}`);
    // Seeded in reverse, so that the order comes from the names, not from insertion.
    const accountId = await accountWith([...names].reverse().map((name) => ({ name, notification_email: OLD })));
    const list = await emu.api('GET', poolsPath(accountId));
    expect(list.body.result_info?.total_count).toBe(10_000);
    expect(list.body.result.map((pool: { name: string }) => pool.name)).toEqual(names);
    for (let page = 1; page <= 10; page += 1) {
      const reply = await emu.api('PATCH', poolsPath(accountId), {
        query: { per_page: 1000, page },
        body: { notification_email: '' },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.result_info).toEqual({
        page,
        per_page: 1000,
        count: 1000,
        total_count: 10_000,
        total_pages: 10,
      });
      const slice = names.slice((page - 1) * 1000, page * 1000);
      expect(
        reply.body.result.map(
          (pool: { name: string; notification_email: string }) => `${pool.name} ${pool.notification_email}`,
        ),
      ).toEqual(slice.map((name) => `${name} `));
      expect(await namesWithEmail(accountId)).toEqual(names.slice(page * 1000));
    }
  });
});
