import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, request } from 'undici';
import { DEMO } from '../../../emulator/seed/demo';
import { ACCOUNT_ID, call, startTestEmulator, TEST_TOKEN, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { until } from '../../helpers/until';

/**
 * What every service shares: the envelope, credentials, routing errors, the request log, fault
 * injection and the control API. Page security settings and pools serve as the sample routes.
 */

const SETTINGS = `zones/${ZONE_ID}/page_security`;
const POOLS = `accounts/${ACCOUNT_ID}/load_balancers/pools`;
const OTHER_ZONE = 'c0000000000000000000000000000002';
const SCOPED_TOKEN = 'scoped-token-for-other-zone';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ email: 'ops@example.com', key: 'k3y-0123456789abcdef' });
  const seeded = await emu.control('POST', 'seed', {
    zones: [{ id: OTHER_ZONE, name: 'other.example', account_id: ACCOUNT_ID }],
    tokens: [{ value: SCOPED_TOKEN, zones: [OTHER_ZONE] }],
    pools: [{ account_id: ACCOUNT_ID, name: 'eu-west', notification_email: 'noc@example.com' }],
  });
  expect(seeded.status).toBe(200);
});
afterAll(async () => emu.close());
afterEach(async () => {
  await emu.control('POST', 'faults', {});
});

async function settingsEnabled(): Promise<boolean> {
  const reply = await emu.api('GET', SETTINGS);
  expect(reply.status).toBe(200);
  return reply.body.result.enabled as boolean;
}

describe('envelope and routing', () => {
  test('success has result, success, errors and messages', async () => {
    const reply = await emu.api('GET', SETTINGS);
    expect(reply.body).toEqual({ result: expect.any(Object), success: true, errors: [], messages: [] });
  });

  test('an unknown route is a 404 envelope with code 7000', async () => {
    const reply = await emu.api('GET', 'nope/nothing');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({
      result: null,
      success: false,
      errors: [{ code: 7000, message: expect.stringContaining('no route') }],
      messages: [],
    });
  });

  test('a known route with the wrong method is 405 with Allow', async () => {
    const reply = await emu.api('DELETE', SETTINGS);
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('GET, PUT');
    expect(reply.body.errors[0].code).toBe(7001);
  });

  test('a body that is not JSON is 415 and changes nothing', async () => {
    const before = await settingsEnabled();
    const reply = await emu.api('PUT', SETTINGS, {
      rawBody: 'enabled=true',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'text/plain' },
    });
    expect(reply.status).toBe(415);
    expect(reply.body.errors[0]).toEqual({ code: 6003, message: expect.stringContaining('Content-Type') });
    expect(await settingsEnabled()).toBe(before);
  });

  test.each([
    ['malformed JSON', '{"enabled": tru'],
    ['an empty JSON body', ''],
    ['a JSON array', '[true]'],
    ['a JSON string', '"yes"'],
  ])('%s is 400 naming the body and changes nothing', async (_name, raw) => {
    const before = await settingsEnabled();
    const reply = await emu.api('PUT', SETTINGS, {
      rawBody: raw,
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.success).toBe(false);
    expect(reply.body.result).toBeNull();
    expect(reply.body.errors[0].message).toMatch(/^body: /);
    expect(await settingsEnabled()).toBe(before);
  });

  test.each([
    ['with Content-Length: 0', ''],
    ['with no body at all', undefined],
  ])(
    "a GET or DELETE saying Content-Type: application/json %s is served (the vendor's examples send it on every call)",
    async (_name, raw) => {
      const headers = { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' };
      const got = await emu.api('GET', SETTINGS, { headers, ...(raw === undefined ? {} : { rawBody: raw }) });
      expect(got.status).toBe(200);
      expect(got.body.result.enabled).toEqual(expect.any(Boolean));
      const created = await emu.api('POST', `zones/${ZONE_ID}/page_security/policies`, {
        body: { description: '', action: 'log', expression: 'http.host eq "example.com"', value: "script-src 'self'" },
      });
      expect(created.status).toBe(200);
      const policy = `zones/${ZONE_ID}/page_security/policies/${created.body.result.id}`;
      const deleted = await emu.api('DELETE', policy, { headers, ...(raw === undefined ? {} : { rawBody: raw }) });
      expect(deleted.status).toBe(200);
      expect(deleted.body.result).toEqual({ id: created.body.result.id });
      expect((await emu.api('GET', policy)).status).toBe(404);
    },
  );

  test('a malformed zone id is 400 code 7003; an unknown one 404 code 7003', async () => {
    const malformed = await emu.api('GET', 'zones/not-hex/page_security');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0]).toEqual({ code: 7003, message: expect.stringContaining('zone_id') });
    const unknown = await emu.api('GET', `zones/${'f'.repeat(32)}/page_security`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].code).toBe(7003);
  });
});

describe('credentials', () => {
  test.each<[string, Record<string, string>]>([
    ['no credentials', {}],
    ['an unknown token', { authorization: 'Bearer wrong-token-value' }],
    ['a malformed Authorization header', { authorization: 'Token abc' }],
    ['an e-mail without a key', { 'x-auth-email': 'ops@example.com' }],
    ['a wrong key', { 'x-auth-email': 'ops@example.com', 'x-auth-key': 'wrong-key-value' }],
  ])('%s is 401 code 10000 and the message never echoes a credential', async (_name, headers) => {
    const reply = await emu.api('GET', POOLS, { headers });
    expect(reply.status).toBe(401);
    expect(reply.body.errors[0].code).toBe(10000);
    const text = JSON.stringify(reply.body);
    for (const secret of Object.values(headers)) expect(text).not.toContain(secret.replace(/^Bearer /, ''));
  });

  test('e-mail + key works for pools but is 403 for page security', async () => {
    const headers = { 'x-auth-email': 'ops@example.com', 'x-auth-key': 'k3y-0123456789abcdef' };
    expect((await emu.api('GET', POOLS, { headers })).status).toBe(200);
    const refused = await emu.api('GET', SETTINGS, { headers });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].message).toMatch(/API token/);
  });

  test('a token scoped to another zone is 403 here and 200 in its own zone', async () => {
    const headers = { authorization: `Bearer ${SCOPED_TOKEN}` };
    expect((await emu.api('GET', SETTINGS, { headers })).status).toBe(403);
    expect((await emu.api('GET', `zones/${OTHER_ZONE}/page_security`, { headers })).status).toBe(200);
    expect((await emu.api('GET', POOLS, { headers })).status).toBe(403);
  });
});

describe('request log', () => {
  test('logs method, path, query, status and credential kind, never the credential', async () => {
    const mark = emu.mark();
    await emu.api('GET', POOLS, { query: { page: 2 } });
    await emu.api('GET', POOLS, { headers: {} });
    const entries = await emu.requests(mark);
    expect(entries).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: `/client/v4/${POOLS}`,
        query: { page: '2' },
        status: 200,
        credential: 'token',
      }),
      expect.objectContaining({ method: 'GET', status: 401, credential: 'none' }),
    ]);
    expect(entries[0]!.seq).toBe(mark + 1);
    expect(JSON.stringify(await emu.requests())).not.toContain(TEST_TOKEN);
  });

  test('keeps each request body as JSON and its content type, and null for a request without them', async () => {
    const mark = emu.mark();
    await emu.api('PATCH', POOLS, { body: { notification_email: 'noc@example.com' }, query: { per_page: 1 } });
    await emu.api('GET', SETTINGS);
    await emu.api('PUT', SETTINGS, {
      rawBody: '{"enabled": tru',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json; charset=utf-8' },
    });
    const entries = await emu.requests(mark);
    expect(entries.map((e) => [e.method, e.status, e.content_type, e.body])).toEqual([
      ['PATCH', 200, 'application/json', { notification_email: 'noc@example.com' }],
      ['GET', 200, null, null],
      ['PUT', 400, 'application/json; charset=utf-8', null],
    ]);
  });

  test('control calls are not logged', async () => {
    const mark = emu.mark();
    await emu.control('GET', 'clock');
    expect(await emu.requests(mark)).toEqual([]);
  });
});

describe('fault injection', () => {
  test('error_rate 1 answers the status without handling the request', async () => {
    const before = await settingsEnabled();
    expect(
      (await emu.control('POST', 'faults', { error_rate: 1, status: 503, paths: ['zones/*/page_security'] })).status,
    ).toBe(200);
    const reply = await emu.api('PUT', SETTINGS, { body: { enabled: !before } });
    expect(reply.status).toBe(503);
    expect(reply.body.errors[0].code).toBe(1000);
    const pools = await emu.api('GET', POOLS);
    expect(pools.status).toBe(200);
    await emu.control('POST', 'faults', {});
    expect(await settingsEnabled()).toBe(before);
  });

  test('reset_rate 1 applies the write, then resets the connection (the response is lost)', async () => {
    const before = await settingsEnabled();
    await emu.control('POST', 'faults', { reset_rate: 1, methods: ['PUT'] });
    await expect(emu.api('PUT', SETTINGS, { body: { enabled: !before } })).rejects.toThrow();
    await emu.control('POST', 'faults', {});
    expect(await settingsEnabled()).toBe(!before);
    const [entry] = (await emu.requests()).filter((r) => r.method === 'PUT').slice(-1);
    expect(entry?.status).toBeNull();
  });

  test('reset_phase "before" resets without applying the write', async () => {
    const before = await settingsEnabled();
    await emu.control('POST', 'faults', { reset_rate: 1, reset_phase: 'before', methods: ['PUT'] });
    await expect(emu.api('PUT', SETTINGS, { body: { enabled: !before } })).rejects.toThrow();
    await emu.control('POST', 'faults', {});
    expect(await settingsEnabled()).toBe(before);
  });

  test('latency_ms delays matching requests', async () => {
    await emu.control('POST', 'faults', { latency_ms: 150 });
    const started = performance.now();
    await emu.api('GET', SETTINGS);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  test('a seeded error rate is repeatable', async () => {
    const run = async () => {
      await emu.control('POST', 'faults', { error_rate: 0.5, seed: 42 });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await emu.api('GET', POOLS)).status);
      return statuses;
    };
    const first = await run();
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await run()).toEqual(first);
  });

  test('a bad fault config is 400 naming the field', async () => {
    const reply = await emu.control('POST', 'faults', { error_rate: 2 });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].message).toMatch(/^error_rate: /);
  });
});

describe('control API', () => {
  test('the clock moves forward and timestamps follow it', async () => {
    const before = Date.parse((await emu.control('GET', 'clock')).body.result.now);
    await emu.control('POST', 'clock', { advance_seconds: 86_400 });
    const put = await emu.api('PUT', SETTINGS, { body: { enabled: true } });
    expect(Date.parse(put.body.result.updated_at) - before).toBeGreaterThanOrEqual(86_400_000);
    expect((await emu.control('POST', 'clock', { advance_seconds: -1 })).status).toBe(400);
  });

  test('a seed with a bad reference is 400 naming the field, and none of it is applied', async () => {
    const newZone = 'c0000000000000000000000000000009';
    const reply = await emu.control('POST', 'seed', {
      zones: [{ id: newZone, name: 'new.example', account_id: ACCOUNT_ID }],
      pools: [{ account_id: 'a'.repeat(32), name: 'orphan' }],
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].message).toMatch(/^pools\[0\]\.account_id: no account/);
    expect((await emu.api('GET', `zones/${newZone}/page_security`)).status).toBe(404);
  });

  test('a seed with an unknown key is refused', async () => {
    const reply = await emu.control('POST', 'seed', { zonez: [] });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].message).toMatch(/zonez/);
  });
});

describe('a separate emulator', () => {
  test('the admin token guards the control API only', async () => {
    const guarded = await startTestEmulator({ adminToken: 'admin-secret-123', fixture: false });
    try {
      const refused = await call('GET', `${guarded.emulator.controlUrl}/clock`);
      expect(refused.status).toBe(401);
      const wrong = await call('GET', `${guarded.emulator.controlUrl}/clock`, {
        headers: { authorization: 'Bearer nope' },
      });
      expect(wrong.status).toBe(401);
      // The test helper sends the admin token it started the emulator with.
      expect((await guarded.control('GET', 'clock')).status).toBe(200);
      // Its log reader fails loudly on a refused read rather than reporting no requests.
      await expect(guarded.requests(-1)).rejects.toThrow(/HTTP 400/);
      expect((await guarded.api('GET', `zones/${ZONE_ID}/page_security`)).status).toBe(404);
    } finally {
      await guarded.close();
    }
  });

  test('reset empties all state', async () => {
    const scratch = await startTestEmulator();
    try {
      const scripts = `zones/${ZONE_ID}/page_security/scripts`;
      const fixture = {
        accounts: [{ id: ACCOUNT_ID }],
        zones: [{ id: ZONE_ID, name: 'example.com', account_id: ACCOUNT_ID }],
      };
      expect(
        (
          await scratch.control('POST', 'seed', {
            scripts: [{ zone_id: ZONE_ID, url: 'https://cdn.example.net/old.js' }],
          })
        ).status,
      ).toBe(200);
      expect((await scratch.api('GET', scripts)).body.result).toHaveLength(1);
      expect((await scratch.api('GET', `zones/${ZONE_ID}/page_security`)).status).toBe(200);
      expect((await scratch.control('POST', 'reset')).status).toBe(200);
      expect((await scratch.api('GET', `zones/${ZONE_ID}/page_security`)).status).toBe(404);
      // The same zone seeded again lists only what was seeded after the reset.
      expect(
        (
          await scratch.control('POST', 'seed', {
            ...fixture,
            scripts: [{ zone_id: ZONE_ID, url: 'https://cdn.example.net/new.js' }],
          })
        ).status,
      ).toBe(200);
      expect((await scratch.api('GET', scripts)).body.result.map((s: { url: string }) => s.url)).toEqual([
        'https://cdn.example.net/new.js',
      ]);
    } finally {
      await scratch.close();
    }
  });

  test('the vendor token names the wire fields', async () => {
    const acme = await startTestEmulator({ vendor: 'acme' });
    try {
      const reply = await acme.api('GET', `zones/${ZONE_ID}/page_security`);
      expect(Object.keys(reply.body.result).sort()).toEqual([
        'enabled',
        'updated_at',
        'use_acme_reporting_endpoint',
        'use_connection_url_path',
      ]);
    } finally {
      await acme.close();
    }
  });

  test('with a data directory, state and clock survive a restart and no token is stored in plain text', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-core-'));
    try {
      const first = await startTestEmulator({ dataDir });
      await first.control('POST', 'seed', {
        tokens: [{ value: 'durable-scoped-token', zones: [ZONE_ID] }],
        scripts: [{ zone_id: ZONE_ID, url: 'https://cdn.example.net/kept.js' }],
      });
      await first.api('PUT', `zones/${ZONE_ID}/page_security`, { body: { enabled: true } });
      await first.control('POST', 'clock', { advance_seconds: 3600 });
      const offset = (await first.control('GET', 'clock')).body.result.offset_seconds;
      await first.close();
      const second = await startTestEmulator({ dataDir, fixture: false });
      try {
        expect((await second.api('GET', `zones/${ZONE_ID}/page_security`)).body.result.enabled).toBe(true);
        const scripts = await second.api('GET', `zones/${ZONE_ID}/page_security/scripts`);
        expect(scripts.body.result.map((s: { url: string }) => s.url)).toEqual(['https://cdn.example.net/kept.js']);
        expect((await second.control('GET', 'clock')).body.result.offset_seconds).toBe(offset);
        const scoped = await second.api('GET', `zones/${ZONE_ID}/page_security`, {
          headers: { authorization: 'Bearer durable-scoped-token' },
        });
        expect(scoped.status).toBe(200);
      } finally {
        await second.close();
      }
      for (const file of fs.readdirSync(dataDir)) {
        expect(fs.readFileSync(path.join(dataDir, file), 'utf8')).not.toContain('durable-scoped-token');
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('the demo seed is the default for a new emulator', async () => {
    const demo = await startTestEmulator({ seed: undefined, fixture: false });
    try {
      const pools = await demo.api('GET', `accounts/${DEMO.accountId}/load_balancers/pools`);
      expect(pools.body.result).toHaveLength(60);
      expect(pools.body.result.every((p: { notification_email: string }) => p.notification_email !== '')).toBe(true);
      const scripts = await demo.api('GET', `zones/${DEMO.zoneId}/page_security/scripts`, { query: { per_page: 100 } });
      const scores = scripts.body.result.map((s: { js_integrity_score: number }) => s.js_integrity_score);
      expect(scores.filter((s: number) => s < 10).length).toBeGreaterThanOrEqual(3);
      const hosts = new Set(scripts.body.result.map((s: { host: string }) => s.host));
      expect(hosts.size).toBeGreaterThanOrEqual(4);
      const infrequent = await demo.api('GET', `zones/${DEMO.zoneId}/page_security/scripts`, {
        query: { status: 'infrequent' },
      });
      expect(infrequent.body.result.length).toBeGreaterThan(0);
      const connections = await demo.api('GET', `zones/${DEMO.zoneId}/page_security/connections`);
      expect(
        connections.body.result.some((c: { domain_reported_malicious: boolean }) => c.domain_reported_malicious),
      ).toBe(true);
      const cookies = await demo.api('GET', `zones/${DEMO.zoneId}/page_security/cookies`);
      expect(cookies.body.result.every((c: { type: string }) => c.type === 'first_party')).toBe(true);
    } finally {
      await demo.close();
    }
  });
});

test('HEAD and OPTIONS are not 5xx', async () => {
  for (const method of ['HEAD', 'OPTIONS'] as const) {
    const response = await request(`${emu.baseUrl}/${SETTINGS}`, {
      method,
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    await response.body.dump();
    expect(response.statusCode).toBeLessThan(500);
  }
});

test('GET /__emulator/connections counts the TCP connections accepted and still open', async () => {
  // Clients of one connection each.
  const counted = await startTestEmulator({ fixture: false });
  const origin = new URL(counted.emulator.controlUrl).origin;
  const first = new Client(origin);
  const second = new Client(origin);
  const read = async (client: InstanceType<typeof Client>) => {
    const response = await client.request({ method: 'GET', path: '/__emulator/connections' });
    expect(response.statusCode).toBe(200);
    return ((await response.body.json()) as { result: { opened: number; open: number } }).result;
  };
  try {
    expect(await read(first)).toEqual({ opened: 1, open: 1 });
    expect(await read(first)).toEqual({ opened: 1, open: 1 }); // kept alive: no new connection
    expect(await read(second)).toEqual({ opened: 2, open: 2 });
    await second.close();
    let counts = await read(first);
    await until(
      async () => (counts = await read(first)).open === 1,
      10_000,
      () => `${counts.open} connections open 10 s after one closed`,
    );
    expect(counts).toEqual({ opened: 2, open: 1 });
  } finally {
    await first.close();
    await second.close().catch(() => undefined);
    await counted.close();
  }
});
