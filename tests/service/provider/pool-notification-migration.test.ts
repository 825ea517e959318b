import { randomBytes } from 'node:crypto';
import { InternalServerError } from '../../../provider/client/errors';
import { MigrationIncompleteError } from '../../../provider/runtime/pool-notification-migration';
import { provider } from '../../../provider/dynamic/runtime/pool-notification-migration';
import { PartialFailure } from '../../../provider/runtime/partial';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { ACCOUNT } from '../../helpers/inputs';
import { configureProvider } from '../../helpers/provider';
import { until } from '../../helpers/until';

/**
 * `PoolNotificationMigration`: every provider method against the emulator, counting the requests
 * of each from the emulator's request log, including the 10,000-pool scale test and pools that
 * appear while the migration runs. (Check, diff and the page plan alone:
 * tests/unit/provider/pool-notification-migration.test.ts.)
 */

const hexId = () => randomBytes(16).toString('hex');
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const check = (news: Record<string, unknown>) => provider.check({}, news);
const diff = (olds: Record<string, unknown>, news: Record<string, unknown>) => provider.diff(ACCOUNT, olds, news);

describe('against the emulator', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({ fixture: false });
    await configureProvider(emu);
  });
  afterAll(async () => emu.close());
  afterEach(async () => {
    await emu.control('POST', 'faults', {});
  });

  const poolsPath = (accountId: string) => `accounts/${accountId}/load_balancers/pools`;
  const name = (i: number) => `pool-${String(i).padStart(5, '0')}`;
  const email = (i: number) => `ops-${i}@example.com`;

  /** A fresh account with `count` pools `pool-00000`..., those for which `hasEmail(i)` with `ops-<i>@example.com`. */
  async function accountWithPools(count: number, hasEmail: (i: number) => boolean = () => true): Promise<string> {
    const accountId = hexId();
    const seeded = await emu.control('POST', 'seed', {
      accounts: [{ id: accountId, name: 'Acme' }],
      pools: Array.from({ length: count }, (_, i) => ({
        account_id: accountId,
        name: name(i),
        notification_email: hasEmail(i) ? email(i) : '',
      })),
    });
    expect(seeded.status).toBe(200);
    return accountId;
  }

  async function listed(accountId: string): Promise<Array<{ id: string; name: string; notification_email: string }>> {
    const reply = await emu.api('GET', poolsPath(accountId));
    expect(reply.status).toBe(200);
    return reply.body.result;
  }

  const namesWithEmail = async (accountId: string) =>
    (await listed(accountId)).filter((pool) => pool.notification_email !== '').map((pool) => pool.name);

  /** The request log after `mark`, one line per request: method, page for bulk edits, status. */
  async function requestLines(mark: number): Promise<string[]> {
    return (await emu.requests(mark)).map(
      (r) =>
        `${r.method}${r.method === 'PATCH' ? ` per_page=${String(r.query.per_page)} page=${String(r.query.page)}` : ''} ${r.status}`,
    );
  }

  async function inputs(accountId: string, extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const result = await check({ accountId, ...extra });
    expect(result.failures).toBeUndefined();
    return result.inputs as Record<string, unknown>;
  }

  const expectedEmails = (indexes: number[]) => Object.fromEntries(indexes.map((i) => [name(i), email(i)]));
  const range = (count: number) => Array.from({ length: count }, (_, i) => i);

  test('create clears all 60 pools with one list, one bulk edit and one verifying list', async () => {
    const accountId = await accountWithPools(60);
    const mark = emu.mark();
    const { id, outs } = await provider.create(await inputs(accountId));
    expect(await requestLines(mark)).toEqual(['GET 200', 'PATCH per_page=1000 page=1 200', 'GET 200']);
    expect((await emu.requests(mark)).every((r) => r.path === `/client/v4/${poolsPath(accountId)}`)).toBe(true);
    expect(id).toBe(accountId);
    expect(outs).toEqual({
      accountId,
      perPage: 1000,
      maxRounds: 3,
      poolsSeen: 60,
      poolsCleared: 60,
      removedEmails: expectedEmails(range(60)),
      poolsWithEmail: 0,
    });
    expect(await namesWithEmail(accountId)).toEqual([]);
  });

  test('read counts pools with an e-mail again; diff wants an update; update clears it and keeps the record', async () => {
    const accountId = await accountWithPools(60);
    const { outs } = await provider.create(await inputs(accountId));

    let mark = emu.mark();
    expect(await provider.read(accountId, outs)).toEqual({
      id: accountId,
      props: outs,
      inputs: { accountId, perPage: 1000, maxRounds: 3 },
    });
    expect(await requestLines(mark)).toEqual(['GET 200']);

    const pool = (await listed(accountId)).find((p) => p.name === name(7))!;
    const putBack = await emu.api('PATCH', `${poolsPath(accountId)}/${pool.id}`, {
      body: { notification_email: 'x@example.com' },
    });
    expect(putBack.status).toBe(200);
    const read = await provider.read(accountId, outs);
    expect(read.props).toEqual({ ...outs, poolsWithEmail: 1 });
    expect(await diff(read.props, await inputs(accountId))).toEqual({ changes: true, replaces: [] });

    mark = emu.mark();
    const { outs: updated } = await provider.update(accountId, read.props, await inputs(accountId));
    expect(await requestLines(mark)).toEqual(['GET 200', 'PATCH per_page=1000 page=1 200', 'GET 200']);
    expect(updated).toEqual({
      accountId,
      perPage: 1000,
      maxRounds: 3,
      poolsSeen: 60,
      poolsCleared: 1,
      removedEmails: { ...expectedEmails(range(60)), [name(7)]: 'x@example.com' },
      poolsWithEmail: 0,
    });
    expect(await namesWithEmail(accountId)).toEqual([]);
    expect(await diff(updated, await inputs(accountId))).toEqual({ changes: false, replaces: [] });
  });

  test('an account already migrated costs one list and no edit', async () => {
    const accountId = await accountWithPools(60, () => false);
    const mark = emu.mark();
    const { outs } = await provider.create(await inputs(accountId));
    expect(await requestLines(mark)).toEqual(['GET 200']);
    expect(outs).toMatchObject({ poolsSeen: 60, poolsCleared: 0, removedEmails: {}, poolsWithEmail: 0 });
  });

  test('only the pages that hold an e-mail are edited', async () => {
    // perPage 25 over 60 pools: pages 1 (0-24), 2 (25-49), 3 (50-59); e-mails on 3 and 55 only.
    const accountId = await accountWithPools(60, (i) => i === 3 || i === 55);
    const mark = emu.mark();
    const { outs } = await provider.create(await inputs(accountId, { perPage: 25 }));
    expect(await requestLines(mark)).toEqual([
      'GET 200',
      'PATCH per_page=25 page=1 200',
      'PATCH per_page=25 page=3 200',
      'GET 200',
    ]);
    expect(outs).toMatchObject({ poolsSeen: 60, poolsCleared: 2, removedEmails: expectedEmails([3, 55]) });
    expect(await namesWithEmail(accountId)).toEqual([]);
  });

  test('a pool that appears after the first list, on a page not edited, is caught by the verifying list and cleared in round 2', async () => {
    // 30 pools, e-mails on the first five: with perPage 25 only page 1 is edited. The bulk edit is
    // refused (503, not applied, retried by the client) until a pool that sorts last (page 2) has
    // arrived with an e-mail: the pool lands between the first list and the verifying one by
    // construction, however slow the machine (the client gives up only after 8 attempts, ~20 s).
    const accountId = await accountWithPools(30, (i) => i < 5);
    await emu.control('POST', 'faults', {
      error_rate: 1,
      status: 503,
      methods: ['PATCH'],
      paths: ['accounts/*/load_balancers/pools'],
    });
    const mark = emu.mark();
    const running = provider.create(await inputs(accountId, { perPage: 25 }));
    await until(
      async () => (await requestLines(mark)).includes('PATCH per_page=25 page=1 503'),
      20_000,
      async () => `no refused bulk edit within 20 s: ${JSON.stringify(await requestLines(mark))}`,
      5,
    );
    const late = await emu.control('POST', 'seed', {
      pools: [{ account_id: accountId, name: 'zzz-late', notification_email: 'late@example.com' }],
    });
    expect(late.status).toBe(200);
    await emu.control('POST', 'faults', {});
    const { outs } = await running;
    const lines = await requestLines(mark);
    const refused = lines.filter((line) => line === 'PATCH per_page=25 page=1 503').length;
    expect(lines).toEqual([
      'GET 200',
      ...Array<string>(refused).fill('PATCH per_page=25 page=1 503'),
      'PATCH per_page=25 page=1 200',
      'GET 200',
      'PATCH per_page=25 page=2 200',
      'GET 200',
    ]);
    expect(outs).toMatchObject({
      poolsSeen: 31,
      poolsCleared: 6,
      removedEmails: { ...expectedEmails(range(5)), 'zzz-late': 'late@example.com' },
      poolsWithEmail: 0,
    });
    expect(await namesWithEmail(accountId)).toEqual([]);
  });

  test('pools that keep arriving with e-mails: after maxRounds rounds the create fails naming the pools left', async () => {
    // Pools with e-mails are added every few ms while each list is held back 100 ms, so every list
    // finds new ones: the migration must stop after 3 rounds (4 lists) instead of chasing them.
    const accountId = await accountWithPools(10);
    await emu.control('POST', 'faults', {
      latency_ms: 100,
      methods: ['GET'],
      paths: ['accounts/*/load_balancers/pools'],
    });
    let adding = true;
    let added = 0;
    const adder = (async () => {
      while (adding) {
        await emu.control('POST', 'seed', {
          pools: [
            {
              account_id: accountId,
              name: `new-${String(added).padStart(4, '0')}`,
              notification_email: `new-${added}@example.com`,
            },
          ],
        });
        added++;
        await sleep(5);
      }
    })();
    const mark = emu.mark();
    const error = await provider.create(await inputs(accountId)).catch((e: unknown) => e);
    adding = false;
    await adder;
    await emu.control('POST', 'faults', {});

    // Some pools were cleared before the rounds ran out: the failure records them (a partial
    // failure the engine keeps in the state) and carries why it stopped.
    expect(error).toBeInstanceOf(PartialFailure);
    expect((error as PartialFailure).cause).toBeInstanceOf(MigrationIncompleteError);
    const incomplete = (error as PartialFailure).cause as MigrationIncompleteError;
    expect(incomplete.poolsLeft.length).toBeGreaterThan(0);
    expect(incomplete.message).toContain(
      `the pools of account ${accountId} still have a notification_email after 3 round(s)`,
    );
    for (const left of incomplete.poolsLeft) expect(incomplete.message).toContain(JSON.stringify(left));
    const lines = await requestLines(mark);
    expect(lines.filter((line) => line.startsWith('GET'))).toHaveLength(4);
    expect(lines.filter((line) => line.startsWith('PATCH')).length).toBeGreaterThanOrEqual(3);
    const stillWithEmail = await namesWithEmail(accountId);
    for (const left of incomplete.poolsLeft) expect(stillWithEmail).toContain(left);
  });

  test('maxRounds 1: one round of edits, then the verifying list decides', async () => {
    const accountId = await accountWithPools(10);
    await emu.control('POST', 'faults', {
      latency_ms: 100,
      methods: ['GET'],
      paths: ['accounts/*/load_balancers/pools'],
    });
    let adding = true;
    const adder = (async () => {
      for (let n = 0; adding; n++) {
        await emu.control('POST', 'seed', {
          pools: [{ account_id: accountId, name: `new-${n}`, notification_email: 'new@example.com' }],
        });
        await sleep(5);
      }
    })();
    const mark = emu.mark();
    const error = await provider.create(await inputs(accountId, { maxRounds: 1 })).catch((e: unknown) => e);
    adding = false;
    await adder;
    expect((error as PartialFailure).cause).toBeInstanceOf(MigrationIncompleteError);
    expect((error as Error).message).toContain('after 1 round(s)');
    expect((await requestLines(mark)).filter((line) => line.startsWith('GET'))).toHaveLength(2);
  });

  test('a bulk edit the API keeps failing fails the create with the API error, after the retries', async () => {
    const accountId = await accountWithPools(5);
    await emu.control('POST', 'faults', { error_rate: 1, status: 503, methods: ['PATCH'] });
    const mark = emu.mark();
    const error = await provider.create(await inputs(accountId)).catch((e: unknown) => e);
    const lines = await requestLines(mark);
    // The page in flight may have been applied before its answer was lost, so its addresses are
    // kept: the create fails as a partial failure recording them, caused by the API's error.
    expect(error).toBeInstanceOf(PartialFailure);
    expect((error as PartialFailure).cause).toBeInstanceOf(InternalServerError);
    expect((error as PartialFailure).properties.removedEmails).toEqual(
      Object.fromEntries((await listed(accountId)).map((pool) => [pool.name, pool.notification_email])),
    );
    expect((error as Error).message).toMatch(
      /^bulk edit load-balancing pools \(PATCH accounts\/[0-9a-f]{32}\/load_balancers\/pools\?per_page=1000&page=1\) failed: HTTP 503/,
    );
    expect((error as Error).message).toMatch(
      /stopped part-way: 0 pool\(s\) cleared so far, their addresses kept in removedEmails; run pulumi up again/,
    );
    expect(lines).toEqual(['GET 200', ...Array(8).fill('PATCH per_page=1000 page=1 503')]);
  }, 60_000);

  test('delete changes nothing and makes no request', async () => {
    const accountId = await accountWithPools(3);
    const { outs } = await provider.create(await inputs(accountId));
    const pool = (await listed(accountId))[0]!;
    await emu.api('PATCH', `${poolsPath(accountId)}/${pool.id}`, { body: { notification_email: 'back@example.com' } });
    const mark = emu.mark();
    await provider.delete(accountId, outs);
    await provider.delete(accountId, outs);
    expect(await emu.requests(mark)).toEqual([]);
    expect(await namesWithEmail(accountId)).toEqual([pool.name]);
  });

  test('read of an account that does not exist says gone', async () => {
    const missing = hexId();
    expect(await provider.read(missing, { accountId: missing, perPage: 1000, maxRounds: 3 })).toEqual({});
  });

  test('scale: 10,000 pools migrate in ceil(10000/1000) + 2 = 12 requests', async () => {
    const accountId = await accountWithPools(10_000);
    const mark = emu.mark();
    const started = performance.now();
    const { outs } = await provider.create(await inputs(accountId, { perPage: 1000 }));
    const wallMs = performance.now() - started;
    const requests = await emu.requests(mark);
    console.log(`scale test: 10,000 pools migrated in ${wallMs.toFixed(0)} ms with ${requests.length} requests`);
    expect(requests.length).toBeLessThanOrEqual(12);
    expect(await requestLines(mark)).toEqual([
      'GET 200',
      ...range(10).map((p) => `PATCH per_page=1000 page=${p + 1} 200`),
      'GET 200',
    ]);
    expect(outs).toMatchObject({ poolsSeen: 10_000, poolsCleared: 10_000, poolsWithEmail: 0 });
    expect(Object.keys(outs!.removedEmails)).toHaveLength(10_000);
    expect(await namesWithEmail(accountId)).toEqual([]);
  }, 120_000);
});
