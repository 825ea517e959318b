import { inspect } from 'node:util';
import { z } from 'zod';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIResponseError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  RateLimitError,
} from '../../../provider/client/errors';
import { HttpClient, type HttpOptions } from '../../../provider/client/http';
import { Pacer, type PaceLimit } from '../../../provider/client/pacing';
import { retryAfterMs } from '../../../provider/client/retry';
import { resolveSettings } from '../../../provider/settings';
import { startTestEmulator, TEST_TOKEN, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { until } from '../../helpers/until';

/**
 * The one retry policy, against a real emulator: what is retried, what is not, how a create
 * avoids a duplicate after a lost response, how 429 waits, and what the errors say.
 */

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => emu.close());
afterEach(async () => {
  await emu.control('POST', 'faults', {});
});

const policySchema = z.object({ id: z.string(), description: z.string() });
const POLICIES = `zones/${ZONE_ID}/page_security/policies`;
const body = (description: string) => ({
  description,
  action: 'log',
  expression: 'http.host eq "www.example.com"',
  value: "script-src 'self'",
});

/** A client whose sleeps are recorded (and may act, e.g. clear a fault) instead of waiting. */
function client(options: HttpOptions & { onSleep?: (ms: number) => Promise<void> } = {}, token = TEST_TOKEN) {
  const sleeps: number[] = [];
  const { onSleep, ...rest } = options;
  const http = new HttpClient(resolveSettings({ explicit: { baseUrl: emu.baseUrl, apiToken: token }, env: {} }), {
    sleep: async (ms) => {
      sleeps.push(ms);
      await onSleep?.(ms);
    },
    ...rest,
  });
  return { http, sleeps };
}

async function policiesNamed(description: string): Promise<number> {
  const list = await emu.api('GET', POLICIES);
  return list.body.result.filter((p: { description: string }) => p.description === description).length;
}

test('a 503 is retried with back-off and the request then succeeds', async () => {
  await emu.control('POST', 'faults', { error_rate: 1, paths: ['zones/*/page_security'] });
  const { http, sleeps } = client({ onSleep: async () => void (await emu.control('POST', 'faults', {})) });
  const mark = emu.mark();
  const answer = await http.send({
    operation: 'get settings',
    method: 'GET',
    path: `zones/${ZONE_ID}/page_security`,
    result: z.object({ enabled: z.boolean() }),
  });
  expect(answer.result.enabled).toBe(false);
  expect((await emu.requests(mark)).map((r) => r.status)).toEqual([503, 200]);
  expect(sleeps).toHaveLength(1);
  expect(sleeps[0]).toBeGreaterThanOrEqual(125);
  expect(sleeps[0]).toBeLessThanOrEqual(250);
});

test('attempts are bounded: a lasting 503 fails after maxAttempts with an InternalServerError', async () => {
  await emu.control('POST', 'faults', { error_rate: 1, paths: ['zones/*/page_security'] });
  const { http, sleeps } = client({ maxAttempts: 4 });
  const mark = emu.mark();
  const failure = http.send({
    operation: 'get settings',
    method: 'GET',
    path: `zones/${ZONE_ID}/page_security`,
    result: z.unknown(),
  });
  await expect(failure).rejects.toBeInstanceOf(InternalServerError);
  await expect(failure).rejects.toThrow(
    /^get settings \(GET zones\/c0+1\/page_security\) failed: HTTP 503: \[1000\] injected fault/,
  );
  expect(await emu.requests(mark)).toHaveLength(4);
  // Exponential back-off with jitter, capped: each wait lies in [ceiling/2, ceiling].
  sleeps.forEach((ms, i) => {
    const ceiling = Math.min(8000, 250 * 2 ** i);
    expect(ms).toBeGreaterThanOrEqual(ceiling / 2);
    expect(ms).toBeLessThanOrEqual(ceiling);
  });
});

test('a create whose response was lost finds what it created instead of creating it twice', async () => {
  await emu.control('POST', 'faults', { reset_rate: 1, methods: ['POST'], paths: ['zones/*/page_security/policies'] });
  let recovered = 0;
  const { http } = client({ onSleep: async () => void (await emu.control('POST', 'faults', {})) });
  const answer = await http.send({
    operation: 'create CSP policy',
    method: 'POST',
    path: POLICIES,
    body: body('lost-response'),
    result: policySchema,
    recover: async () => {
      recovered++;
      const list = await http.send({
        operation: 'list CSP policies',
        method: 'GET',
        path: POLICIES,
        result: z.array(policySchema),
      });
      return list.result.find((p) => p.description === 'lost-response');
    },
  });
  expect(answer.result.description).toBe('lost-response');
  expect(recovered).toBe(1);
  expect(await policiesNamed('lost-response')).toBe(1);
});

test('without a recover, the same lost response would have made a duplicate (the test above can fail)', async () => {
  await emu.control('POST', 'faults', { reset_rate: 1, methods: ['POST'], paths: ['zones/*/page_security/policies'] });
  const { http } = client({ onSleep: async () => void (await emu.control('POST', 'faults', {})) });
  await http.send({
    operation: 'create CSP policy',
    method: 'POST',
    path: POLICIES,
    body: body('no-recover'),
    result: policySchema,
  });
  expect(await policiesNamed('no-recover')).toBe(2);
});

test('a create whose first answer is 409 is a real conflict: no retry, no adoption', async () => {
  const create = { hostname: 'taken.customer.example', ssl: { method: 'txt', type: 'dv', certificate_authority: '' } };
  expect((await emu.api('POST', `zones/${ZONE_ID}/custom_hostnames`, { body: create })).status).toBe(200);
  const { http } = client();
  let recovered = 0;
  const mark = emu.mark();
  const failure = http.send({
    operation: 'create custom hostname',
    method: 'POST',
    path: `zones/${ZONE_ID}/custom_hostnames`,
    body: create,
    result: z.unknown(),
    recover: async () => {
      recovered++;
      return undefined;
    },
  });
  await expect(failure).rejects.toBeInstanceOf(ConflictError);
  await expect(failure).rejects.toThrow(/HTTP 409: \[1406\]/);
  expect(recovered).toBe(0);
  expect(await emu.requests(mark)).toHaveLength(1);
});

test('a 429 waits the Retry-After (without spending an attempt) and then succeeds', async () => {
  const zone = 'c00000000000000000000000000000aa';
  await emu.control('POST', 'seed', {
    zones: [{ id: zone, name: 'quota.example', account_id: 'a0000000000000000000000000000001' }],
  });
  for (let i = 0; i < 15; i++) {
    const made = await emu.api('POST', `zones/${zone}/custom_hostnames`, {
      body: { hostname: `h${i}.quota.example`, ssl: { method: 'txt', type: 'dv' } },
    });
    expect(made.status).toBe(200);
  }
  const { http, sleeps } = client({
    maxAttempts: 1,
    onSleep: async (ms) => void (await emu.control('POST', 'clock', { advance_seconds: ms / 1000 })),
  });
  const mark = emu.mark();
  const answer = await http.send({
    operation: 'create custom hostname',
    method: 'POST',
    path: `zones/${zone}/custom_hostnames`,
    body: { hostname: 'late.quota.example', ssl: { method: 'txt', type: 'dv' } },
    result: z.object({ hostname: z.string() }),
  });
  expect(answer.result.hostname).toBe('late.quota.example');
  expect(sleeps[0]).toBe(30_000);
  const statuses = (await emu.requests(mark)).map((r) => r.status);
  expect(statuses[0]).toBe(429);
  expect(statuses[statuses.length - 1]).toBe(200);
});

test('429s give up once their total wait would pass maxRateLimitWaitMs', async () => {
  const zone = 'c00000000000000000000000000000ab';
  await emu.control('POST', 'seed', {
    zones: [{ id: zone, name: 'quota2.example', account_id: 'a0000000000000000000000000000001' }],
  });
  for (let i = 0; i < 16; i++)
    await emu.api('POST', `zones/${zone}/custom_hostnames`, {
      body: { hostname: `h${i}.quota2.example`, ssl: { method: 'txt', type: 'dv' } },
    });
  // The service's clock stands still, so every 429 asks for the same ~30 s: two waits fit in
  // 65 s, a third would not. The default allowance (660 s) would allow 22.
  const { http, sleeps } = client({ maxRateLimitWaitMs: 65_000 });
  const mark = emu.mark();
  await expect(
    http.send({
      operation: 'create custom hostname',
      method: 'POST',
      path: `zones/${zone}/custom_hostnames`,
      body: { hostname: 'x.quota2.example', ssl: { method: 'txt', type: 'dv' } },
      result: z.unknown(),
    }),
  ).rejects.toBeInstanceOf(RateLimitError);
  expect(sleeps).toHaveLength(2);
  sleeps.forEach((ms) => expect(ms).toBeGreaterThanOrEqual(28_000));
  expect(sleeps[0]! + sleeps[1]!).toBeLessThanOrEqual(65_000);
  expect((await emu.requests(mark)).map((r) => r.status)).toEqual([429, 429, 429]);
});

test('a 400 is not retried, and the message names the operation, status, code and field', async () => {
  const { http, sleeps } = client();
  const mark = emu.mark();
  const failure = http.send({
    operation: 'create CSP policy',
    method: 'POST',
    path: POLICIES,
    body: { ...body('bad'), action: 'block' },
    result: z.unknown(),
  });
  await expect(failure).rejects.toBeInstanceOf(BadRequestError);
  await expect(failure).rejects.toThrow(
    /^create CSP policy \(POST zones\/.+\/page_security\/policies\) failed: HTTP 400: \[1004\] action: must be/,
  );
  expect(sleeps).toEqual([]);
  expect(await emu.requests(mark)).toHaveLength(1);
});

test('a bad token is an AuthenticationError whose message does not contain the token', async () => {
  const secret = 'sekrit-token-that-must-not-leak';
  const { http } = client({}, secret);
  const failure = http.send({
    operation: 'get settings',
    method: 'GET',
    path: `zones/${ZONE_ID}/page_security`,
    result: z.unknown(),
  });
  await expect(failure).rejects.toBeInstanceOf(AuthenticationError);
  const error = (await failure.catch((e: unknown) => e)) as Error;
  expect(`${error.message} ${error.stack} ${JSON.stringify(error)}`).not.toContain(secret);
});

test('an attempt that takes too long times out and is retried', async () => {
  await emu.control('POST', 'faults', { latency_ms: 400, paths: ['zones/*/page_security'] });
  const { http, sleeps } = client({ timeoutMs: 100, maxAttempts: 2 });
  await expect(
    http.send({
      operation: 'get settings',
      method: 'GET',
      path: `zones/${ZONE_ID}/page_security`,
      result: z.unknown(),
    }),
  ).rejects.toBeInstanceOf(APIConnectionTimeoutError);
  expect(sleeps).toHaveLength(1);
});

test('nothing listening: a connection error after two attempts, not the whole back-off', async () => {
  const sleeps: number[] = [];
  const http = new HttpClient(
    resolveSettings({ explicit: { baseUrl: 'http://127.0.0.1:9/client/v4', apiToken: TEST_TOKEN }, env: {} }),
    {
      sleep: async (ms) => void sleeps.push(ms),
    },
  );
  const failure = http.send({
    operation: 'get settings',
    method: 'GET',
    path: `zones/${ZONE_ID}/page_security`,
    result: z.unknown(),
  });
  await expect(failure).rejects.toBeInstanceOf(APIConnectionError);
  await expect(failure).rejects.toThrow(
    /^get settings \(GET zones\/c0+1\/page_security\) got no response: ECONNREFUSED \(connect ECONNREFUSED 127\.0\.0\.1:9\); check that the service at http:\/\/127\.0\.0\.1:9\/client\/v4 is reachable$/,
  );
  const error = (await failure.catch((e: unknown) => e)) as APIConnectionError;
  expect(error.code).toBe('ECONNREFUSED');
  expect(error.baseUrl).toBe('http://127.0.0.1:9/client/v4');
  expect(sleeps).toHaveLength(1);
  expect(sleeps[0]).toBeLessThanOrEqual(250);
});

test('nothing listening, with the real back-off: the failure comes within a few seconds', async () => {
  const http = new HttpClient(
    resolveSettings({ explicit: { baseUrl: 'http://127.0.0.1:1/client/v4', apiToken: TEST_TOKEN }, env: {} }),
  );
  const started = Date.now();
  await expect(
    http.send({
      operation: 'get settings',
      method: 'GET',
      path: `zones/${ZONE_ID}/page_security`,
      result: z.unknown(),
    }),
  ).rejects.toBeInstanceOf(APIConnectionError);
  // Two attempts and one pause of at most 250 ms; the whole back-off would take 12 to 24 s.
  expect(Date.now() - started).toBeLessThan(5_000);
});

test('a success whose result does not match the schema is an APIResponseError, not retried', async () => {
  const { http, sleeps } = client();
  const mark = emu.mark();
  await expect(
    http.send({
      operation: 'get settings',
      method: 'GET',
      path: `zones/${ZONE_ID}/page_security`,
      result: z.object({ enabled: z.string() }),
    }),
  ).rejects.toBeInstanceOf(APIResponseError);
  expect(sleeps).toEqual([]);
  expect(await emu.requests(mark)).toHaveLength(1);
});

/** Seeds a zone of its own for a pacing test, whose window no other test shares. */
async function pacedZone(zone: string, name: string): Promise<void> {
  await emu.control('POST', 'seed', {
    zones: [{ id: zone, name, account_id: 'a0000000000000000000000000000001' }],
  });
}

/** A pacer on a clock of its own, recording its waits. */
function recordingPacer() {
  const sleeps: number[] = [];
  let now = 0;
  const pacer = new Pacer(
    async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    () => now,
  );
  return { pacer, sleeps };
}

/** Creates the custom hostname `hostname` of `zone`, paced under `pace`. */
function createHostname(http: HttpClient, zone: string, hostname: string, pace: PaceLimit, ssl: unknown = TXT_DV) {
  return http.send({
    operation: 'create custom hostname',
    method: 'POST',
    path: `zones/${zone}/custom_hostnames`,
    body: { hostname, ssl },
    result: z.unknown(),
    pace,
  });
}

const TXT_DV = { method: 'txt', type: 'dv' };

test('paced requests wait in the pacer given in the options, whose window outlives one client', async () => {
  const zone = 'c00000000000000000000000000000ac';
  await pacedZone(zone, 'paced.example');
  const { pacer, sleeps: pacerSleeps } = recordingPacer();
  const pace = { key: zone, limit: 2, windowMs: 60_000 };
  const first = client({ pacer });
  await createHostname(first.http, zone, 'a.paced.example', pace);
  await createHostname(first.http, zone, 'b.paced.example', pace);
  expect(pacerSleeps).toEqual([]);
  // Another client on the same pacer: the window is full, so it waits out the first create (at
  // t=0) plus the margin, on the pacer's clock; the client's own sleep is not used.
  const second = client({ pacer });
  await createHostname(second.http, zone, 'c.paced.example', pace);
  expect(pacerSleeps).toEqual([61_001]);
  expect(second.sleeps).toEqual([]);
});

test('a client without a pacer paces on its own sleep', async () => {
  const zone = 'c00000000000000000000000000000ad';
  await pacedZone(zone, 'own.example');
  let now = 0;
  const { http, sleeps } = client({ now: () => now, onSleep: async (ms) => void (now += ms) });
  const pace = { key: zone, limit: 1, windowMs: 60_000 };
  for (const name of ['a', 'b']) await createHostname(http, zone, `${name}.own.example`, pace);
  expect(sleeps).toEqual([61_001]);
});

describe('a paced create keeps its slot when the service may have counted it, and gets it back when it refused it', () => {
  // Spec 8 counts only the creates the service accepted. A 5xx or a lost answer may have been
  // applied (and counted) all the same; a 4xx was refused before it counted. With a limit of one,
  // the next create waits out the window (plus the margin) only behind a slot that was kept.
  test.each([
    {
      failure: 'answered with a 503',
      zone: 'c00000000000000000000000000000b1',
      faults: { error_rate: 1 },
      ssl: TXT_DV,
      error: InternalServerError,
      wait: [61_001],
    },
    {
      failure: 'not answered',
      zone: 'c00000000000000000000000000000b2',
      faults: { reset_rate: 1 },
      ssl: TXT_DV,
      error: APIConnectionError,
      wait: [61_001],
    },
    {
      failure: 'refused with a 400',
      zone: 'c00000000000000000000000000000b3',
      faults: {},
      ssl: { method: 'txt' },
      error: BadRequestError,
      wait: [],
    },
  ])('a create $failure', async ({ zone, faults, ssl, error, wait }) => {
    await pacedZone(zone, `${zone}.example`);
    await emu.control('POST', 'faults', { ...faults, methods: ['POST'], paths: ['zones/*/custom_hostnames'] });
    const { pacer, sleeps } = recordingPacer();
    const pace = { key: zone, limit: 1, windowMs: 60_000 };
    const { http } = client({ pacer, maxAttempts: 1 });
    await expect(createHostname(http, zone, `first.${zone}.example`, pace, ssl)).rejects.toBeInstanceOf(error);
    await emu.control('POST', 'faults', {});
    await createHostname(http, zone, `second.${zone}.example`, pace);
    expect(sleeps).toEqual(wait);
  });
});

describe('errors print as their name, message and stack, without a dump of their data', () => {
  const request = { operation: 'get settings', method: 'GET', path: 'zones/z/page_security' };
  const dumped = /\b(status|errors|request|headers|causeMessage|baseUrl|code|cause):|\[cause\]|\{\s*$/m;

  test('APIConnectionError', () => {
    const error = new APIConnectionError(
      request,
      'ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:1)',
      'http://127.0.0.1:1/client/v4',
      'ECONNREFUSED',
    );
    const printed = inspect(error);
    expect(printed.startsWith(`APIConnectionError: ${error.message}\n    at `)).toBe(true);
    expect(printed).not.toMatch(dumped);
    expect(printed).toBe(error.stack);
    // What the Pulumi engine prints a program's error with: no colour codes either.
    expect(inspect(error, { colors: true })).toBe(error.stack);
    expect(JSON.stringify(error)).toBe('{"name":"APIConnectionError"}');
    expect(error.message).toBe(
      'get settings (GET zones/z/page_security) got no response: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:1); check that the service at http://127.0.0.1:1/client/v4 is reachable',
    );
    // Still readable, and read-only.
    expect([error.request, error.causeMessage, error.baseUrl, error.code]).toEqual([
      request,
      'ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:1)',
      'http://127.0.0.1:1/client/v4',
      'ECONNREFUSED',
    ]);
    expect(Object.keys(error)).toEqual(['name']);
    expect(() => Object.assign(error, { baseUrl: 'x' })).toThrow(TypeError);
  });

  test('APIError subclasses', () => {
    const error = RateLimitError.of(429, [{ code: 1015, message: 'slow down' }], request, { 'retry-after': '30' });
    expect(error).toBeInstanceOf(RateLimitError);
    const printed = inspect(error);
    expect(
      printed.startsWith(
        `RateLimitError: get settings (GET zones/z/page_security) failed: HTTP 429: [1015] slow down\n    at `,
      ),
    ).toBe(true);
    expect(printed).not.toMatch(dumped);
    expect(printed).toBe(error.stack);
    expect([error.status, error.errors, error.request, error.headers]).toEqual([
      429,
      [{ code: 1015, message: 'slow down' }],
      request,
      { 'retry-after': '30' },
    ]);
    expect(error.hasCode(1015)).toBe(true);
  });

  test('an APIConnectionTimeoutError', () => {
    const error = new APIConnectionTimeoutError(request, 'no answer within 100 ms', 'http://127.0.0.1:1/client/v4');
    expect(inspect(error)).toBe(error.stack);
    expect(error.code).toBeUndefined();
  });
});

/** The request of the paging tests: the scripts served from `host`, by URL. */
const scriptsOn = (host: string) => ({
  operation: 'list scripts',
  path: `zones/${ZONE_ID}/page_security/scripts`,
  query: { hosts: host },
  result: z.array(z.object({ url: z.string() })),
});

test('paginate yields every item across pages', async () => {
  const scripts = Array.from({ length: 45 }, (_, i) => ({
    zone_id: ZONE_ID,
    url: `https://cdn.example.net/p${i}.js`,
    host: 'paged.example.com',
  }));
  await emu.control('POST', 'seed', { scripts });
  const { http } = client();
  const mark = emu.mark();
  const seen: string[] = [];
  for await (const script of http.paginate(scriptsOn('paged.example.com'), 20)) {
    seen.push(script.url);
  }
  expect(new Set(seen).size).toBe(45);
  expect((await emu.requests(mark)).map((r) => r.query.page)).toEqual(['1', '2', '3']);
});

test('paginate with prefetch asks for the next page while the current one is consumed, and not past the last', async () => {
  const scripts = Array.from({ length: 45 }, (_, i) => ({
    zone_id: ZONE_ID,
    url: `https://cdn.example.net/ahead${i}.js`,
    host: 'ahead.example.com',
  }));
  await emu.control('POST', 'seed', { scripts });
  const { http } = client();
  const mark = emu.mark();
  const pages = async () => (await emu.requests(mark)).map((r) => r.query.page);
  const items = http.paginate(scriptsOn('ahead.example.com'), 20, { prefetch: true });
  const seen = [(await items.next()).value!.url];
  // One item of page 1 consumed: page 2 is on its way.
  await until(
    async () => (await pages()).length >= 2,
    10_000,
    async () => `pages asked: ${(await pages()).join(', ')}`,
  );
  expect(await pages()).toEqual(['1', '2']);
  for await (const script of items) seen.push(script.url);
  expect(new Set(seen).size).toBe(45);
  expect(await pages()).toEqual(['1', '2', '3']);
  // The same items in the same order as without prefetching.
  const plain: string[] = [];
  for await (const script of http.paginate(scriptsOn('ahead.example.com'), 20)) plain.push(script.url);
  expect(seen).toEqual(plain);
});

test.each([
  ['30', 30_000],
  ['0', 0],
  [undefined, undefined],
  ['soon', undefined],
])('Retry-After %p is %p ms', (header, expected) => {
  expect(retryAfterMs(header)).toBe(expected);
});

test('Retry-After as an HTTP date', () => {
  expect(retryAfterMs('Sat, 21 Nov 2026 08:00:30 GMT', Date.parse('2026-11-21T08:00:00Z'))).toBe(30_000);
});
