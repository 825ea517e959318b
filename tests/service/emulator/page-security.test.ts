import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ACCOUNT_ID, call, startTestEmulator, ZONE_ID, type Reply, type TestEmulator } from '../../helpers/emulator';

/**
 * Page security over HTTP (spec 2.2 to 2.6, 3, 4, 5.3; contract "Page security"). Each test that
 * asserts on a zone's lists works in a zone of its own, so tests never see each other's data.
 */

const EMAIL = 'ops@example.com';
const API_KEY = 'c2f1a0b3d4e5f60718293a4b5c6d7e8f90a1b';
const SCOPED_TOKEN = 'scoped-token-for-another-zone';
const KEY_HEADERS = { 'x-auth-email': EMAIL, 'x-auth-key': API_KEY };

const SCRIPT_LIST_FIELDS = [
  'id',
  'url',
  'added_at',
  'first_seen_at',
  'last_seen_at',
  'host',
  'domain_reported_malicious',
  'url_reported_malicious',
  'malicious_url_categories',
  'first_page_url',
  'status',
  'url_contains_cdn_cgi_path',
  'hash',
  'js_integrity_score',
  'obfuscation_score',
  'dataflow_score',
  'malware_score',
  'cryptomining_score',
  'magecart_score',
  'fetched_at',
].sort();
const VERSION_FIELDS = [
  'hash',
  'js_integrity_score',
  'obfuscation_score',
  'dataflow_score',
  'malware_score',
  'cryptomining_score',
  'magecart_score',
  'fetched_at',
].sort();
const SCORE_FIELDS = [
  'js_integrity_score',
  'obfuscation_score',
  'dataflow_score',
  'malware_score',
  'cryptomining_score',
  'magecart_score',
];

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HEX_ID = /^[0-9a-f]{32}$/;

const GOOD_POLICY = {
  description: 'shop scripts',
  action: 'allow',
  expression: 'http.host eq "shop.example.com"',
  enabled: 'true',
  value: "script-src 'self' cdn.example.com https://js.example.net/app.js",
};

let emu: TestEmulator;
let otherZone: string;

beforeAll(async () => {
  emu = await startTestEmulator({ email: EMAIL, key: API_KEY });
  otherZone = await newZone();
  const seeded = await emu.control('POST', 'seed', { tokens: [{ value: SCOPED_TOKEN, zones: [otherZone] }] });
  expect(seeded.status).toBe(200);
});
afterAll(async () => emu.close());

function hexId(): string {
  return randomBytes(16).toString('hex');
}

/** A zone of the test's own, so that its lists hold only what the test put there. */
async function newZone(createdOn?: string): Promise<string> {
  const id = hexId();
  const zone: Record<string, string> = { id, name: `z${id.slice(0, 8)}.example`, account_id: ACCOUNT_ID };
  if (createdOn) zone.created_on = createdOn;
  const reply = await emu.control('POST', 'seed', { zones: [zone] });
  expect(reply.status).toBe(200);
  return id;
}

function ps(zone: string, rest = ''): string {
  return `zones/${zone}/page_security${rest}`;
}

function expectError(reply: Reply, status: number, code: number, messageStart: string): void {
  expect(reply.status).toBe(status);
  expect(reply.body.success).toBe(false);
  expect(reply.body.result).toBeNull();
  expect(reply.body.errors[0]).toEqual({
    code,
    message: expect.stringMatching(new RegExp(`^${messageStart.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)),
  });
}

async function emulatorNow(): Promise<string> {
  return (await emu.control('GET', 'clock')).body.result.now as string;
}

describe('settings (spec 2.2)', () => {
  test('a zone never written has the defaults, updated_at being the zone creation time', async () => {
    const zone = await newZone('2025-01-02T03:04:05.678Z');
    const reply = await emu.api('GET', ps(zone));
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      result: {
        enabled: false,
        updated_at: '2025-01-02T03:04:05.678Z',
        use_edgeguard_reporting_endpoint: true,
        use_connection_url_path: false,
      },
      success: true,
      errors: [],
      messages: [],
    });
  });

  test('PUT answers {enabled, updated_at} with the clock now, and GET reads it back', async () => {
    const zone = await newZone('2025-01-02T03:04:05.678Z');
    const before = await emulatorNow();
    const put = await emu.api('PUT', ps(zone), { body: { enabled: true } });
    const after = await emulatorNow();
    expect(put.status).toBe(200);
    expect(Object.keys(put.body.result).sort()).toEqual(['enabled', 'updated_at']);
    expect(put.body.result.enabled).toBe(true);
    expect(put.body.result.updated_at).toMatch(ISO);
    expect(put.body.result.updated_at >= before && put.body.result.updated_at <= after).toBe(true);

    const get = await emu.api('GET', ps(zone));
    expect(get.body.result).toEqual({
      enabled: true,
      updated_at: put.body.result.updated_at,
      use_edgeguard_reporting_endpoint: true,
      use_connection_url_path: false,
    });

    const off = await emu.api('PUT', ps(zone), { body: { enabled: false } });
    expect(off.body.result.enabled).toBe(false);
    expect((await emu.api('GET', ps(zone))).body.result.enabled).toBe(false);
  });

  test.each([
    ['a string', { enabled: 'true' }],
    ['a number', { enabled: 1 }],
    ['null', { enabled: null }],
    ['missing', {}],
  ])('PUT with enabled %s is a 400 naming enabled and changes nothing', async (_label, body) => {
    const zone = await newZone();
    await emu.api('PUT', ps(zone), { body: { enabled: true } });
    const before = (await emu.api('GET', ps(zone))).body.result;
    const reply = await emu.api('PUT', ps(zone), { body });
    expectError(reply, 400, 1004, 'enabled: ');
    expect((await emu.api('GET', ps(zone))).body.result).toEqual(before);
  });

  test('a malformed JSON body is a 400 and a text/plain body a 415, neither changing the settings', async () => {
    const zone = await newZone();
    const before = (await emu.api('GET', ps(zone))).body.result;
    const auth = { authorization: `Bearer test-token-0123456789` };
    const malformed = await emu.api('PUT', ps(zone), {
      rawBody: '{"enabled": tru',
      headers: { ...auth, 'content-type': 'application/json' },
    });
    expectError(malformed, 400, 6007, 'body: ');
    const text = await emu.api('PUT', ps(zone), {
      rawBody: '{"enabled": true}',
      headers: { ...auth, 'content-type': 'text/plain' },
    });
    expectError(text, 415, 6003, 'Content-Type: ');
    expect((await emu.api('GET', ps(zone))).body.result).toEqual(before);
  });
});

describe('authentication and scope (spec 5, contract)', () => {
  const paths = (zone: string) => [
    ['GET', ps(zone)],
    ['GET', ps(zone, '/scripts')],
    ['GET', ps(zone, `/scripts/${hexId()}`)],
    ['GET', ps(zone, '/connections')],
    ['GET', ps(zone, '/cookies')],
    ['GET', ps(zone, '/policies')],
  ];

  test('e-mail + key is refused with 403 on every page security operation', async () => {
    for (const [method, path] of paths(ZONE_ID)) {
      expectError(await emu.api(method!, path!, { headers: KEY_HEADERS }), 403, 9109, '');
    }
    const before = (await emu.api('GET', ps(ZONE_ID))).body.result;
    const put = await emu.api('PUT', ps(ZONE_ID), {
      body: { enabled: !before.enabled },
      headers: { ...KEY_HEADERS, 'content-type': 'application/json' },
    });
    expectError(put, 403, 9109, '');
    expect(put.body.errors[0].message).toContain('API token');
    expect((await emu.api('GET', ps(ZONE_ID))).body.result).toEqual(before);

    const listBefore = (await emu.api('GET', ps(ZONE_ID, '/policies'))).body.result;
    const post = await emu.api('POST', ps(ZONE_ID, '/policies'), {
      body: GOOD_POLICY,
      headers: { ...KEY_HEADERS, 'content-type': 'application/json' },
    });
    expectError(post, 403, 9109, '');
    expect((await emu.api('GET', ps(ZONE_ID, '/policies'))).body.result).toEqual(listBefore);
  });

  test('the same e-mail + key is a valid credential (a wrong key is a 401, not a 403)', async () => {
    const wrong = await emu.api('GET', ps(ZONE_ID), {
      headers: { 'x-auth-email': EMAIL, 'x-auth-key': 'not-the-key' },
    });
    expectError(wrong, 401, 10000, '');
  });

  test('a token scoped to another zone gets 403 here and 200 in its own zone', async () => {
    const scoped = { authorization: `Bearer ${SCOPED_TOKEN}` };
    for (const [method, path] of paths(ZONE_ID)) {
      expectError(await emu.api(method!, path!, { headers: scoped }), 403, 9109, '');
    }
    const before = (await emu.api('GET', ps(ZONE_ID))).body.result;
    const put = await emu.api('PUT', ps(ZONE_ID), {
      body: { enabled: !before.enabled },
      headers: { ...scoped, 'content-type': 'application/json' },
    });
    expectError(put, 403, 9109, '');
    expect((await emu.api('GET', ps(ZONE_ID))).body.result).toEqual(before);

    expect((await emu.api('GET', ps(otherZone), { headers: scoped })).status).toBe(200);
    expect((await emu.api('GET', ps(otherZone, '/scripts'), { headers: scoped })).status).toBe(200);
  });

  test('no credentials: 401; malformed zone id: 400 code 7003; unknown zone: 404 code 7003', async () => {
    expectError(await emu.api('GET', ps(ZONE_ID), { headers: {} }), 401, 10000, '');
    expectError(await emu.api('GET', ps('not-a-zone', '/scripts')), 400, 7003, 'zone_id: ');
    expectError(await emu.api('GET', ps(hexId(), '/scripts')), 404, 7003, 'zone ');
  });
});

describe('detected scripts (spec 2.3, 3, 4)', () => {
  test('lists show active scripts by default, status=infrequent the others, and status=active the same as none', async () => {
    const zone = await newZone();
    await emu.seed({
      scripts: [
        { zone_id: zone, url: 'https://a.example.net/one.js' },
        { zone_id: zone, url: 'https://b.example.net/two.js', status: 'active' },
        { zone_id: zone, url: 'https://c.example.net/three.js', status: 'infrequent' },
        { zone_id: zone, url: 'https://d.example.net/four.js', status: 'infrequent' },
        { zone_id: zone, url: 'https://e.example.net/five.js', status: 'infrequent' },
      ],
    });
    const urls = (reply: Reply) => (reply.body.result as { url: string }[]).map((s) => s.url).sort();

    const byDefault = await emu.api('GET', ps(zone, '/scripts'));
    expect(byDefault.status).toBe(200);
    expect(urls(byDefault)).toEqual(['https://a.example.net/one.js', 'https://b.example.net/two.js']);
    expect(byDefault.body.result_info).toEqual({ page: 1, per_page: 20, count: 2, total_count: 2, total_pages: 1 });
    expect(byDefault.body.result.every((s: { status: string }) => s.status === 'active')).toBe(true);

    const active = await emu.api('GET', ps(zone, '/scripts'), { query: { status: 'active' } });
    expect(urls(active)).toEqual(urls(byDefault));

    const infrequent = await emu.api('GET', ps(zone, '/scripts'), { query: { status: 'infrequent' } });
    expect(urls(infrequent)).toEqual([
      'https://c.example.net/three.js',
      'https://d.example.net/four.js',
      'https://e.example.net/five.js',
    ]);
    expect(infrequent.body.result_info).toEqual({ page: 1, per_page: 20, count: 3, total_count: 3, total_pages: 1 });
  });

  test.each(['deleted', 'ACTIVE', ''])('status=%j is a 400 naming status', async (status) => {
    const reply = await emu.api('GET', ps(ZONE_ID, '/scripts'), { query: { status } });
    expectError(reply, 400, 1004, 'status: ');
    expect(reply.body.errors[0].message).toContain(`"${status}"`);
  });

  test('hosts filters by exact host: one, several, empty items ignored, none matching', async () => {
    const zone = await newZone();
    await emu.seed({
      scripts: [
        // Each seen on a page of the host its URL names (the host is the page's).
        ...[
          'a.example.net/1.js',
          'a.example.net/2.js',
          'b.example.net/1.js',
          'c.example.net/1.js',
          'sub.a.example.net/1.js',
        ].map((path) => ({ zone_id: zone, url: `https://${path}`, first_page_url: `https://${path.split('/')[0]}/` })),
      ],
    });
    const list = async (hosts: string) => {
      const reply = await emu.api('GET', ps(zone, '/scripts'), { query: { hosts } });
      expect(reply.status).toBe(200);
      return reply;
    };
    const urls = (reply: Reply) => (reply.body.result as { url: string }[]).map((s) => s.url).sort();

    const one = await list('a.example.net');
    expect(urls(one)).toEqual(['https://a.example.net/1.js', 'https://a.example.net/2.js']);
    expect(one.body.result_info.total_count).toBe(2);

    expect(urls(await list('a.example.net,c.example.net'))).toEqual([
      'https://a.example.net/1.js',
      'https://a.example.net/2.js',
      'https://c.example.net/1.js',
    ]);
    expect(urls(await list(',b.example.net,,'))).toEqual(['https://b.example.net/1.js']);
    expect((await list(',')).body.result).toHaveLength(5);

    const none = await list('example.net');
    expect(none.body.result).toEqual([]);
    expect(none.body.result_info).toEqual({ page: 1, per_page: 20, count: 0, total_count: 0, total_pages: 0 });
  });

  test('45 scripts page through 20 at a time in first_seen_at order, with exact result_info', async () => {
    const zone = await newZone();
    const base = Date.parse('2025-03-01T00:00:00.000Z');
    // Seeded in reverse so that the order comes from first_seen_at, not from insertion.
    const items = Array.from({ length: 45 }, (_, i) => ({
      zone_id: zone,
      url: `https://cdn${i}.example.net/lib.js`,
      first_seen_at: new Date(base + i * 60_000).toISOString(),
    })).reverse();
    await emu.seed({ scripts: items });
    const expected = Array.from({ length: 45 }, (_, i) => `https://cdn${i}.example.net/lib.js`);

    const seen: string[] = [];
    const counts = [20, 20, 5];
    for (const [index, count] of counts.entries()) {
      const page = index + 1;
      const reply = await emu.api('GET', ps(zone, '/scripts'), { query: { page, per_page: 20 } });
      expect(reply.status).toBe(200);
      expect(reply.body.result_info).toEqual({ page, per_page: 20, count, total_count: 45, total_pages: 3 });
      seen.push(...(reply.body.result as { url: string }[]).map((s) => s.url));
    }
    expect(seen).toEqual(expected);

    const past = await emu.api('GET', ps(zone, '/scripts'), { query: { page: 4, per_page: 20 } });
    expect(past.status).toBe(200);
    expect(past.body.result).toEqual([]);
    expect(past.body.result_info).toEqual({ page: 4, per_page: 20, count: 0, total_count: 45, total_pages: 3 });

    const byDefault = await emu.api('GET', ps(zone, '/scripts'));
    expect(byDefault.body.result_info).toEqual({ page: 1, per_page: 20, count: 20, total_count: 45, total_pages: 3 });

    const big = await emu.api('GET', ps(zone, '/scripts'), { query: { per_page: 1000 } });
    expect(big.body.result_info).toEqual({ page: 1, per_page: 1000, count: 45, total_count: 45, total_pages: 1 });
  });

  test('scripts seen at the same time are ordered by id', async () => {
    const zone = await newZone();
    const at = '2025-04-01T00:00:00.000Z';
    await emu.seed({
      scripts: Array.from({ length: 6 }, (_, i) => ({
        zone_id: zone,
        url: `https://same${i}.example.net/x.js`,
        first_seen_at: at,
      })),
    });
    const ids = (await emu.api('GET', ps(zone, '/scripts'))).body.result.map((s: { id: string }) => s.id);
    expect(ids).toEqual([...ids].sort());
  });

  test('lists keep their order as later seeds add, move, re-host and replace objects of a zone already listed', async () => {
    const zone = await newZone();
    const base = Date.parse('2025-05-01T00:00:00.000Z');
    const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();
    interface Seeded {
      url: string;
      first_seen_at: string;
      status: string;
      host: string;
    }
    const model = new Map<string, Seeded>();
    const put = async (items: Seeded[]) => {
      await emu.seed({ scripts: items.map((item) => ({ zone_id: zone, ...item })) });
      for (const item of items)
        model.set(createHash('sha256').update(`${zone}\u0000${item.url}`).digest('hex').slice(0, 32), item);
    };
    /** The spec's order of the model: oldest first_seen_at first, then id. */
    const expected = (status: string, hosts: string[]) =>
      [...model]
        .filter(([, item]) => item.status === status && (hosts.length === 0 || hosts.includes(item.host.toLowerCase())))
        .sort(([idA, a], [idB, b]) =>
          a.first_seen_at !== b.first_seen_at ? (a.first_seen_at < b.first_seen_at ? -1 : 1) : idA < idB ? -1 : 1,
        )
        .map(([, item]) => item.url);
    /** Every list this test reads, page by page (per_page 3), against the model. */
    const check = async () => {
      for (const status of ['active', 'infrequent']) {
        for (const hosts of [
          [],
          ['a.example.net'],
          ['b.example.net'],
          ['a.example.net', 'b.example.net', 'c.example.net'],
        ]) {
          const want = expected(status, hosts);
          const seen: string[] = [];
          for (let page = 1; page <= Math.max(1, Math.ceil(want.length / 3)); page++) {
            const query: Record<string, string | number> = {
              status,
              page,
              per_page: 3,
              ...(hosts.length > 0 ? { hosts: hosts.join(',') } : {}),
            };
            const reply = await emu.api('GET', ps(zone, '/scripts'), { query });
            expect(reply.body.result_info).toEqual({
              page,
              per_page: 3,
              count: Math.min(3, want.length - (page - 1) * 3),
              total_count: want.length,
              total_pages: Math.ceil(want.length / 3),
            });
            seen.push(...(reply.body.result as { url: string }[]).map((item) => item.url));
          }
          expect({ status, hosts, urls: seen }).toEqual({ status, hosts, urls: want });
        }
      }
    };
    const script = (
      n: number,
      minutes: number,
      host = n % 2 === 0 ? 'a.example.net' : 'b.example.net',
      status = 'active',
    ): Seeded => ({
      url: `https://${host}/s${n}.js`,
      first_seen_at: at(minutes),
      status,
      host,
    });

    await put(Array.from({ length: 10 }, (_, n) => script(n, n * 10)));
    await check();
    // A few changes at once: each is moved within the lists already sorted.
    await put([
      { ...script(3, 30), status: 'infrequent' },
      { ...script(5, -5) },
      { ...script(7, 70), host: 'a.example.net' },
      script(10, 20),
      script(11, 20),
      { ...script(12, 40, 'c.example.net'), host: 'C.Example.NET' },
    ]);
    await check();
    // Many changes at once (a seed of hundreds), into the same lists.
    await put(
      Array.from({ length: 200 }, (_, i) =>
        script(
          100 + i,
          (i * 37) % 150,
          ['a.example.net', 'b.example.net', 'c.example.net'][i % 3],
          i % 4 === 0 ? 'infrequent' : 'active',
        ),
      ),
    );
    await check();
  });

  test.each([
    ['per_page', '0'],
    ['per_page', '1001'],
    ['per_page', 'abc'],
    ['page', '0'],
    ['page', 'abc'],
    ['page', '-1'],
  ])('%s=%s is a 400 naming the parameter', async (name, value) => {
    for (const list of ['/scripts', '/connections', '/cookies']) {
      const reply = await emu.api('GET', ps(ZONE_ID, list), { query: { [name]: value } });
      expectError(reply, 400, 1004, `${name}: `);
    }
  });

  test('list items lack page_urls and versions; the single GET has them', async () => {
    const zone = await newZone();
    const url = 'https://cdn.example.net/app.js';
    await emu.seed({ scripts: [{ zone_id: zone, url }] });
    const list = await emu.api('GET', ps(zone, '/scripts'));
    const item = list.body.result[0];
    expect(Object.keys(item).sort()).toEqual(SCRIPT_LIST_FIELDS);

    const single = await emu.api('GET', ps(zone, `/scripts/${item.id}`));
    expect(single.status).toBe(200);
    expect(Object.keys(single.body.result).sort()).toEqual([...SCRIPT_LIST_FIELDS, 'page_urls', 'versions'].sort());
    expect(single.body.result).toMatchObject(item);
    // Seeded without host or pages: seen on the zone's own root.
    expect(item.host).toBe(`z${zone.slice(0, 8)}.example`);
    expect(single.body.result.page_urls).toEqual([`https://z${zone.slice(0, 8)}.example/`]);
    expect(single.body.result.versions).toHaveLength(1);
    const version = single.body.result.versions[0];
    expect(Object.keys(version).sort()).toEqual(VERSION_FIELDS);
    for (const field of VERSION_FIELDS) expect(version[field]).toEqual(item[field]);
    expect(single.body).not.toHaveProperty('result_info');
  });

  test('seeded fields left out are generated plausibly, and given ones are kept', async () => {
    const zone = await newZone();
    const url = 'https://evil.example.org/skim.js';
    await emu.seed({
      scripts: [
        {
          zone_id: zone,
          url,
          js_integrity_score: 4,
          url_reported_malicious: true,
          malicious_url_categories: ['Malware'],
        },
        { zone_id: zone, url: 'https://www.example.com/cdn-cgi/challenge.js' },
      ],
    });
    // The service leaves /cdn-cgi/ scripts out unless asked (contract: exclude_cdn_cgi defaults to true).
    const list = (await emu.api('GET', ps(zone, '/scripts'), { query: { exclude_cdn_cgi: 'false' } })).body
      .result as Record<string, unknown>[];
    const evil = list.find((s) => s.url === url)!;
    const id = createHash('sha256').update(`${zone}\u0000${url}`).digest('hex').slice(0, 32);
    expect(evil).toMatchObject({
      id,
      host: `z${zone.slice(0, 8)}.example`,
      first_page_url: `https://z${zone.slice(0, 8)}.example/`,
      status: 'active',
      hash: createHash('sha256').update(url).digest('hex'),
      js_integrity_score: 4,
      url_reported_malicious: true,
      domain_reported_malicious: false,
      malicious_url_categories: ['Malware'],
      url_contains_cdn_cgi_path: false,
    });
    for (const field of ['added_at', 'first_seen_at', 'last_seen_at', 'fetched_at']) expect(evil[field]).toMatch(ISO);
    for (const field of SCORE_FIELDS.slice(1)) {
      expect(Number.isInteger(evil[field])).toBe(true);
      expect(evil[field]).toBeGreaterThanOrEqual(10);
      expect(evil[field]).toBeLessThanOrEqual(99);
    }
    const cdnCgi = list.find((s) => s.url !== url)!;
    expect(cdnCgi.url_contains_cdn_cgi_path).toBe(true);
    expect(cdnCgi.js_integrity_score).toBeGreaterThanOrEqual(10);
  });

  test('host left out is the host of the page it was seen on; every given field is kept', async () => {
    const zone = await newZone();
    await emu.seed({
      scripts: [
        { zone_id: zone, url: 'https://cdn.example.net/1.js', first_page_url: 'https://shop.example.com/cart' },
        {
          zone_id: zone,
          url: 'https://cdn.example.net/2.js',
          page_urls: ['https://blog.example.com/a', 'https://blog.example.com/b'],
        },
        { zone_id: zone, url: 'https://cdn.example.net/3.js', host: 'given.example.com' },
        {
          zone_id: zone,
          url: 'https://cdn.example.net/4.js',
          host: 'www.example.com',
          first_page_url: 'https://www.example.com/x',
          page_urls: ['https://www.example.com/y'],
        },
      ],
      connections: [
        { zone_id: zone, url: 'https://api.example.org/c', first_page_url: 'https://shop.example.com/pay' },
      ],
    });
    const detail = async (url: string) => {
      const listed = (await emu.api('GET', ps(zone, '/scripts'), { query: { per_page: 50 } })).body.result as {
        id: string;
        url: string;
      }[];
      const { host, first_page_url, page_urls } = (
        await emu.api('GET', ps(zone, `/scripts/${listed.find((s) => s.url === url)!.id}`))
      ).body.result;
      return { host, first_page_url, page_urls };
    };
    expect(await detail('https://cdn.example.net/1.js')).toEqual({
      host: 'shop.example.com',
      first_page_url: 'https://shop.example.com/cart',
      page_urls: ['https://shop.example.com/cart'],
    });
    expect(await detail('https://cdn.example.net/2.js')).toEqual({
      host: 'blog.example.com',
      first_page_url: 'https://blog.example.com/a',
      page_urls: ['https://blog.example.com/a', 'https://blog.example.com/b'],
    });
    expect(await detail('https://cdn.example.net/3.js')).toEqual({
      host: 'given.example.com',
      first_page_url: 'https://given.example.com/',
      page_urls: ['https://given.example.com/'],
    });
    expect(await detail('https://cdn.example.net/4.js')).toEqual({
      host: 'www.example.com',
      first_page_url: 'https://www.example.com/x',
      page_urls: ['https://www.example.com/y'],
    });
    const [connection] = (await emu.api('GET', ps(zone, '/connections'))).body.result;
    expect(connection).toMatchObject({ host: 'shop.example.com', first_page_url: 'https://shop.example.com/pay' });
  });

  test('seeding the same URL again replaces the script, and scores are deterministic', async () => {
    const zone = await newZone();
    const url = 'https://again.example.net/a.js';
    await emu.seed({ scripts: [{ zone_id: zone, url }] });
    const first = (await emu.api('GET', ps(zone, '/scripts'))).body.result;
    await emu.seed({ scripts: [{ zone_id: zone, url, magecart_score: 7 }] });
    const second = (await emu.api('GET', ps(zone, '/scripts'))).body.result;
    expect(second).toHaveLength(1);
    expect(second[0].id).toBe(first[0].id);
    expect(second[0].magecart_score).toBe(7);
    for (const field of SCORE_FIELDS.slice(0, 5)) expect(second[0][field]).toBe(first[0][field]);
  });

  test.each([
    [{ js_integrity_score: 0 }, 'scripts[0].js_integrity_score'],
    [{ magecart_score: 100 }, 'scripts[0].magecart_score'],
    [{ malware_score: 5.5 }, 'scripts[0].malware_score'],
    [{ status: 'gone' }, 'scripts[0].status'],
    [{ first_seen_at: 'yesterday' }, 'scripts[0].first_seen_at'],
    [{ url: 'ftp://files.example.net/a.js' }, 'scripts[0].url'],
    [
      { first_seen_at: '2025-02-01T00:00:00.000Z', last_seen_at: '2025-01-01T00:00:00.000Z' },
      'scripts[0].last_seen_at',
    ],
    [{ hash: 'not hex' }, 'scripts[0].hash'],
    [{ colour: 'red' }, 'scripts[0]'],
  ])('a seed script with %j is refused naming %s, and nothing is added', async (fields, field) => {
    const zone = await newZone();
    const reply = await emu.control('POST', 'seed', {
      scripts: [{ zone_id: zone, url: 'https://bad.example.net/a.js', ...fields }],
    });
    expectError(reply, 400, 1004, `${field}`);
    expect((await emu.api('GET', ps(zone, '/scripts'), { query: { status: 'active' } })).body.result).toEqual([]);
    expect((await emu.api('GET', ps(zone, '/scripts'), { query: { status: 'infrequent' } })).body.result).toEqual([]);
  });

  test('an unknown script is a 404 with its code; a malformed id a 400 code 7003; another zone does not see it', async () => {
    const zone = await newZone();
    await emu.seed({ scripts: [{ zone_id: zone, url: 'https://mine.example.net/a.js' }] });
    const id = (await emu.api('GET', ps(zone, '/scripts'))).body.result[0].id;
    expectError(await emu.api('GET', ps(zone, `/scripts/${hexId()}`)), 404, 1001, 'script ');
    expectError(await emu.api('GET', ps(zone, '/scripts/XYZ')), 400, 7003, 'script_id: ');
    expectError(await emu.api('GET', ps(ZONE_ID, `/scripts/${id}`)), 404, 1001, 'script ');
  });

  test('only GET is allowed on lists: POST is a 405', async () => {
    const reply = await emu.api('POST', ps(ZONE_ID, '/scripts'), { body: {} });
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('GET');
  });
});

describe('a detected script changes: POST /__emulator/.../scripts/{id}/versions (contract, control API)', () => {
  const URL_A = 'https://cdn.example.net/checkout.js';
  const OLD_HASH = 'aa'.repeat(32);
  const NEW_HASH = 'bb'.repeat(32);

  function versions(zone: string, id: string): string {
    return `zones/${zone}/page_security/scripts/${id}/versions`;
  }

  /** A zone with one script seeded with known scores; its id and the script as the single GET shows it. */
  async function seededScript(on: TestEmulator = emu): Promise<{ zone: string; id: string; before: any }> {
    const zone = on === emu ? await newZone() : ZONE_ID;
    const seeded = await on.control('POST', 'seed', {
      scripts: [
        {
          zone_id: zone,
          url: URL_A,
          hash: OLD_HASH,
          js_integrity_score: 80,
          obfuscation_score: 70,
          dataflow_score: 60,
          malware_score: 50,
          cryptomining_score: 40,
          magecart_score: 30,
          first_seen_at: '2025-01-01T00:00:00.000Z',
          fetched_at: '2025-01-01T00:00:00.000Z',
        },
      ],
    });
    expect(seeded.status).toBe(200);
    const id = (await on.api('GET', ps(zone, '/scripts'))).body.result[0].id as string;
    const before = (await on.api('GET', ps(zone, `/scripts/${id}`))).body.result;
    return { zone, id, before };
  }

  test('the new version is the current one in the single GET and the list, first in versions; scores left out are kept', async () => {
    const { zone, id, before } = await seededScript();
    // Read the list first, so that its kept JSON of the old script exists and must not be served again.
    expect((await emu.api('GET', ps(zone, '/scripts'))).body.result[0].hash).toBe(OLD_HASH);

    const fetchedAt = '2025-03-04T05:06:07.890Z';
    const posted = await emu.control('POST', versions(zone, id), {
      hash: NEW_HASH,
      js_integrity_score: 5,
      magecart_score: 9,
      fetched_at: fetchedAt,
    });
    expect(posted.status).toBe(200);
    expect(posted.body.success).toBe(true);

    const newVersion = {
      hash: NEW_HASH,
      js_integrity_score: 5,
      obfuscation_score: 70,
      dataflow_score: 60,
      malware_score: 50,
      cryptomining_score: 40,
      magecart_score: 9,
      fetched_at: fetchedAt,
    };
    const single = await emu.api('GET', ps(zone, `/scripts/${id}`));
    expect(single.body.result).toEqual({
      ...before,
      ...newVersion,
      last_seen_at: fetchedAt,
      versions: [newVersion, ...before.versions],
    });
    expect(posted.body.result).toEqual(single.body.result);

    const list = await emu.api('GET', ps(zone, '/scripts'));
    expect(list.body.result).toHaveLength(1);
    const { page_urls: _pages, versions: _versions, ...listed } = single.body.result;
    expect(list.body.result[0]).toEqual(listed);

    // A second change stacks on the first: newest first, scores carried from the current version.
    const third = 'cc'.repeat(32);
    await emu.control('POST', versions(zone, id), { hash: third, fetched_at: '2025-03-05T00:00:00.000Z' });
    const after = (await emu.api('GET', ps(zone, `/scripts/${id}`))).body.result;
    expect(after.versions.map((v: { hash: string }) => v.hash)).toEqual([third, NEW_HASH, OLD_HASH]);
    expect(after.js_integrity_score).toBe(5);
    expect(after.magecart_score).toBe(9);
  });

  test("fetched_at left out is the emulator's clock, which POST /__emulator/clock moves", async () => {
    const { zone, id } = await seededScript();
    await emu.control('POST', 'clock', { advance_seconds: 86400 });
    const now = await emulatorNow();
    const posted = await emu.control('POST', versions(zone, id), { hash: NEW_HASH });
    expect(posted.status).toBe(200);
    const after = (await emu.api('GET', ps(zone, `/scripts/${id}`))).body.result;
    expect(after.fetched_at).toMatch(ISO);
    expect(after.fetched_at >= now && after.fetched_at <= (await emulatorNow())).toBe(true);
    expect(after.last_seen_at).toBe(after.fetched_at);
    expect(after.versions[0].fetched_at).toBe(after.fetched_at);
  });

  test('an unknown script or zone is a 404, a script of another zone too, and nothing changes', async () => {
    const { zone, id, before } = await seededScript();
    const state = (await emu.control('GET', 'state')).body.result;
    expectError(await emu.control('POST', versions(zone, hexId()), { hash: NEW_HASH }), 404, 1001, 'script ');
    expectError(await emu.control('POST', versions(otherZone, id), { hash: NEW_HASH }), 404, 1001, 'script ');
    expectError(await emu.control('POST', versions(hexId(), id), { hash: NEW_HASH }), 404, 7003, 'zone ');
    expectError(await emu.control('POST', versions(zone, 'XYZ'), { hash: NEW_HASH }), 400, 7003, 'script_id: ');
    expect((await emu.control('GET', 'state')).body.result).toEqual(state);
    expect((await emu.api('GET', ps(zone, `/scripts/${id}`))).body.result).toEqual(before);
  });

  const HASH = 'bb'.repeat(32);
  test.each([
    ['no hash', {}, 'hash: must be 8 to 128'],
    ['a hash that is not hexadecimal', { hash: 'not-hex!' }, 'hash: must be 8 to 128'],
    ['an uppercase hash', { hash: 'AB'.repeat(16) }, 'hash: must be 8 to 128'],
    ['a score of 0', { hash: HASH, js_integrity_score: 0 }, 'js_integrity_score: must be a whole number from 1 to 99'],
    ['a fractional score', { hash: HASH, magecart_score: 12.5 }, 'magecart_score: must be a whole number from 1 to 99'],
    ['a fetched_at that is no timestamp', { hash: HASH, fetched_at: 'yesterday' }, 'fetched_at: must be an ISO 8601'],
    [
      'a fetched_at before first_seen_at',
      { hash: HASH, fetched_at: '2024-12-31T23:59:59.999Z' },
      "fetched_at: must not be before the script's first_seen_at",
    ],
    [
      'a field of the script, not of a version',
      { hash: HASH, url: 'https://elsewhere.example/x.js' },
      'body: Unrecognized key: "url"',
    ],
  ])('%s is a 400 naming the field, and changes nothing', async (_label, body, message) => {
    const { zone, id, before } = await seededScript();
    expectError(await emu.control('POST', versions(zone, id), body), 400, 1004, message);
    expect((await emu.api('GET', ps(zone, `/scripts/${id}`))).body.result).toEqual(before);
  });

  test('with --admin-token the call needs it', async () => {
    const guarded = await startTestEmulator({ adminToken: 'admin-secret-versions' });
    try {
      const { zone, id } = await seededScript(guarded);
      const url = `${guarded.emulator.controlUrl}/${versions(zone, id)}`;
      expect((await call('POST', url, { body: { hash: NEW_HASH } })).status).toBe(401);
      const wrong = await call('POST', url, { body: { hash: NEW_HASH }, headers: { authorization: 'Bearer nope' } });
      expect(wrong.status).toBe(401);
      expect((await guarded.api('GET', ps(zone, `/scripts/${id}`))).body.result.hash).toBe(OLD_HASH);
      expect((await guarded.control('POST', versions(zone, id), { hash: NEW_HASH })).status).toBe(200);
      expect((await guarded.api('GET', ps(zone, `/scripts/${id}`))).body.result.hash).toBe(NEW_HASH);
    } finally {
      await guarded.close();
    }
  });

  test('a restart on the same data directory keeps the new version', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-versions-'));
    try {
      const first = await startTestEmulator({ dataDir });
      let expected: any;
      try {
        const { zone, id } = await seededScript(first);
        expect((await first.control('POST', versions(zone, id), { hash: NEW_HASH, malware_score: 3 })).status).toBe(
          200,
        );
        expected = (await first.api('GET', ps(zone, `/scripts/${id}`))).body.result;
      } finally {
        await first.close();
      }
      const second = await startTestEmulator({ dataDir, fixture: false });
      try {
        const single = await second.api('GET', ps(ZONE_ID, `/scripts/${expected.id}`));
        expect(single.body.result).toEqual(expected);
        expect(single.body.result.versions.map((v: { hash: string }) => v.hash)).toEqual([NEW_HASH, OLD_HASH]);
        expect((await second.api('GET', ps(ZONE_ID, '/scripts'))).body.result[0].hash).toBe(NEW_HASH);
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('detected connections (spec 2.4)', () => {
  test('list, status and hosts filters, single GET and 404', async () => {
    const zone = await newZone();
    await emu.seed({
      connections: [
        { zone_id: zone, url: 'https://api.example.org/collect' },
        { zone_id: zone, url: 'https://beacon.example.org/b', status: 'infrequent' },
        {
          zone_id: zone,
          url: 'https://bad.example.org/x',
          first_page_url: 'https://shop.example.com/pay',
          domain_reported_malicious: true,
          malicious_domain_categories: ['Phishing'],
        },
      ],
    });
    const list = await emu.api('GET', ps(zone, '/connections'));
    expect(list.status).toBe(200);
    expect(list.body.result_info).toEqual({ page: 1, per_page: 20, count: 2, total_count: 2, total_pages: 1 });
    const api = list.body.result.find((c: { url: string }) => c.url === 'https://api.example.org/collect');
    expect(Object.keys(api).sort()).toEqual(
      [
        'id',
        'url',
        'added_at',
        'first_seen_at',
        'last_seen_at',
        'host',
        'domain_reported_malicious',
        'malicious_domain_categories',
        'url_reported_malicious',
        'malicious_url_categories',
        'first_page_url',
        'status',
        'url_contains_cdn_cgi_path',
      ].sort(),
    );
    expect(api).toMatchObject({
      host: `z${zone.slice(0, 8)}.example`,
      status: 'active',
      domain_reported_malicious: false,
      malicious_domain_categories: [],
      url_reported_malicious: false,
      malicious_url_categories: [],
      first_page_url: `https://z${zone.slice(0, 8)}.example/`,
      url_contains_cdn_cgi_path: false,
    });

    const infrequent = await emu.api('GET', ps(zone, '/connections'), { query: { status: 'infrequent' } });
    expect(infrequent.body.result.map((c: { url: string }) => c.url)).toEqual(['https://beacon.example.org/b']);

    const bad = await emu.api('GET', ps(zone, '/connections'), { query: { hosts: 'shop.example.com' } });
    expect(bad.body.result).toHaveLength(1);
    expect(bad.body.result[0]).toMatchObject({
      domain_reported_malicious: true,
      malicious_domain_categories: ['Phishing'],
    });

    const single = await emu.api('GET', ps(zone, `/connections/${api.id}`));
    expect(single.status).toBe(200);
    expect(single.body.result).toEqual(api);

    expectError(await emu.api('GET', ps(zone, `/connections/${hexId()}`)), 404, 1002, 'connection ');
    expectError(await emu.api('GET', ps(zone, '/connections/nope')), 400, 7003, 'connection_id: ');
    expectError(await emu.api('GET', ps(zone, '/connections'), { query: { status: 'x' } }), 400, 1004, 'status: ');
  });
});

describe('detected cookies (spec 2.5)', () => {
  test('defaults, status and hosts filters, single GET and 404', async () => {
    const zone = await newZone();
    await emu.seed({
      cookies: [
        { zone_id: zone, name: 'session', host: 'shop.example.com' },
        {
          zone_id: zone,
          name: '_ga',
          host: 'www.example.com',
          same_site_attribute: 'lax',
          max_age_attribute: 3600,
          secure_attribute: false,
        },
        { zone_id: zone, name: 'old', host: 'www.example.com', status: 'infrequent' },
      ],
    });
    const now = Date.parse(await emulatorNow());
    const list = await emu.api('GET', ps(zone, '/cookies'));
    expect(list.status).toBe(200);
    expect(list.body.result_info).toEqual({ page: 1, per_page: 20, count: 2, total_count: 2, total_pages: 1 });
    const session = list.body.result.find((c: { name: string }) => c.name === 'session');
    const id = createHash('sha256').update(`${zone}\u0000shop.example.com\u0000session`).digest('hex').slice(0, 32);
    expect(session).toEqual({
      id,
      type: 'first_party',
      name: 'session',
      host: 'shop.example.com',
      domain_attribute: 'shop.example.com',
      expires_attribute: expect.stringMatching(ISO),
      http_only_attribute: true,
      max_age_attribute: null,
      path_attribute: '/',
      same_site_attribute: 'strict',
      secure_attribute: true,
      first_seen_at: expect.stringMatching(ISO),
      last_seen_at: expect.stringMatching(ISO),
      first_page_url: 'shop.example.com/',
      page_urls: ['shop.example.com/'],
      status: 'active',
    });
    const expiresIn = Date.parse(session.expires_attribute) - now;
    expect(Math.abs(expiresIn - 365 * 86_400_000)).toBeLessThan(60_000);

    const ga = await emu.api('GET', ps(zone, '/cookies'), { query: { hosts: 'www.example.com' } });
    expect(ga.body.result).toHaveLength(1);
    expect(ga.body.result[0]).toMatchObject({
      name: '_ga',
      same_site_attribute: 'lax',
      max_age_attribute: 3600,
      secure_attribute: false,
    });

    const old = await emu.api('GET', ps(zone, '/cookies'), { query: { status: 'infrequent' } });
    expect(old.body.result.map((c: { name: string }) => c.name)).toEqual(['old']);

    const single = await emu.api('GET', ps(zone, `/cookies/${id}`));
    expect(single.body.result).toEqual(session);
    expectError(await emu.api('GET', ps(zone, `/cookies/${hexId()}`)), 404, 1003, 'cookie ');
    expectError(await emu.api('GET', ps(zone, '/cookies/123')), 400, 7003, 'cookie_id: ');
  });

  test('a seed cookie with a host that is not a hostname is refused naming it', async () => {
    const zone = await newZone();
    const reply = await emu.control('POST', 'seed', {
      cookies: [{ zone_id: zone, name: 'session', host: 'not a host' }],
    });
    expectError(reply, 400, 1004, 'cookies[0].host');
    expect((await emu.api('GET', ps(zone, '/cookies'))).body.result).toEqual([]);
  });
});

describe('CSP policies (spec 2.6, contract)', () => {
  const policies = (zone: string) => emu.api('GET', ps(zone, '/policies'));

  test('create returns the policy with an id and enabled as the string "true"', async () => {
    const zone = await newZone();
    const created = await emu.api('POST', ps(zone, '/policies'), { body: GOOD_POLICY });
    expect(created.status).toBe(200);
    expect(created.body.success).toBe(true);
    expect(created.body.result).toEqual({ id: expect.stringMatching(HEX_ID), ...GOOD_POLICY });

    const { enabled: _omitted, ...withoutEnabled } = GOOD_POLICY;
    const byDefault = await emu.api('POST', ps(zone, '/policies'), { body: { ...withoutEnabled, description: '' } });
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.result.enabled).toBe('true');
    expect(byDefault.body.result.description).toBe('');

    const boolTrue = await emu.api('POST', ps(zone, '/policies'), { body: { ...GOOD_POLICY, enabled: true } });
    expect(boolTrue.body.result.enabled).toBe('true');
  });

  test('enabled false, as a boolean or a string, is returned as the string "false"', async () => {
    const zone = await newZone();
    for (const enabled of [false, 'false']) {
      const created = await emu.api('POST', ps(zone, '/policies'), { body: { ...GOOD_POLICY, enabled } });
      expect(created.status).toBe(200);
      expect(created.body.result.enabled).toBe('false');
      expect((await emu.api('GET', ps(zone, `/policies/${created.body.result.id}`))).body.result.enabled).toBe('false');
    }
  });

  test('expression and value are stored exactly as sent', async () => {
    const zone = await newZone();
    const body = {
      ...GOOD_POLICY,
      expression: 'http.host eq shop.example.com',
      value: "script-src  cdn.example.com 'self'",
    };
    const created = await emu.api('POST', ps(zone, '/policies'), { body });
    expect(created.status).toBe(200);
    const read = await emu.api('GET', ps(zone, `/policies/${created.body.result.id}`));
    expect(read.body.result.expression).toBe(body.expression);
    expect(read.body.result.value).toBe(body.value);
  });

  test("the service's directives beyond fetch ones are taken: frame-ancestors, upgrade-insecure-requests", async () => {
    const zone = await newZone();
    const value =
      "script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'self'; upgrade-insecure-requests";
    const created = await emu.api('POST', ps(zone, '/policies'), { body: { ...GOOD_POLICY, value } });
    expect(created.status).toBe(200);
    expect(created.body.result.value).toBe(value);
    // 6,000 characters, the limit, whitespace included.
    const edited = await emu.api('PUT', ps(zone, `/policies/${created.body.result.id}`), {
      body: { ...GOOD_POLICY, value: "script-src 'self'".padEnd(6000, ' ') },
    });
    expect(edited.status).toBe(200);
  });

  test('get and list read back what was created, in creation order, with result_info', async () => {
    const zone = await newZone();
    expect((await policies(zone)).body).toEqual({
      result: [],
      success: true,
      errors: [],
      messages: [],
      result_info: { page: 1, per_page: 1, count: 0, total_count: 0, total_pages: 0 },
    });
    const a = (await emu.api('POST', ps(zone, '/policies'), { body: { ...GOOD_POLICY, description: 'a' } })).body
      .result;
    const b = (
      await emu.api('POST', ps(zone, '/policies'), { body: { ...GOOD_POLICY, description: 'b', action: 'log' } })
    ).body.result;

    const got = await emu.api('GET', ps(zone, `/policies/${a.id}`));
    expect(got.status).toBe(200);
    expect(got.body.result).toEqual(a);

    const list = await policies(zone);
    expect(list.status).toBe(200);
    expect(list.body.result).toEqual([a, b]);
    expect(list.body.result_info).toEqual({ page: 1, per_page: 2, count: 2, total_count: 2, total_pages: 1 });

    expect((await policies(ZONE_ID)).body.result.map((p: { id: string }) => p.id)).not.toContain(a.id);
  });

  test('PUT replaces the policy with the full body and keeps its id', async () => {
    const zone = await newZone();
    const created = (await emu.api('POST', ps(zone, '/policies'), { body: GOOD_POLICY })).body.result;
    const update = {
      description: 'now logging',
      action: 'log',
      expression: 'http.host eq "www.example.com"',
      enabled: false,
      value: "script-src 'self'",
    };
    const put = await emu.api('PUT', ps(zone, `/policies/${created.id}`), { body: update });
    expect(put.status).toBe(200);
    expect(put.body.result).toEqual({ id: created.id, ...update, enabled: 'false' });
    expect((await emu.api('GET', ps(zone, `/policies/${created.id}`))).body.result).toEqual(put.body.result);
    expect((await policies(zone)).body.result).toEqual([put.body.result]);
  });

  test('PUT with a partial or bad body is a 400 naming the field, and changes nothing', async () => {
    const zone = await newZone();
    const created = (await emu.api('POST', ps(zone, '/policies'), { body: GOOD_POLICY })).body.result;
    const { value: _value, ...partial } = GOOD_POLICY;
    expectError(
      await emu.api('PUT', ps(zone, `/policies/${created.id}`), { body: { ...partial, action: 'log' } }),
      400,
      1004,
      'value: ',
    );
    expectError(
      await emu.api('PUT', ps(zone, `/policies/${created.id}`), { body: { ...GOOD_POLICY, action: 'deny' } }),
      400,
      1004,
      'action: ',
    );
    expect((await emu.api('GET', ps(zone, `/policies/${created.id}`))).body.result).toEqual(created);
  });

  test('DELETE answers {id}; the policy is then 404, and a second delete 404 too', async () => {
    const zone = await newZone();
    const created = (await emu.api('POST', ps(zone, '/policies'), { body: GOOD_POLICY })).body.result;
    const kept = (await emu.api('POST', ps(zone, '/policies'), { body: { ...GOOD_POLICY, description: 'kept' } })).body
      .result;
    const deleted = await emu.api('DELETE', ps(zone, `/policies/${created.id}`));
    expect(deleted.status).toBe(200);
    expect(deleted.body.result).toEqual({ id: created.id });
    expectError(await emu.api('GET', ps(zone, `/policies/${created.id}`)), 404, 1005, 'policy ');
    expectError(await emu.api('DELETE', ps(zone, `/policies/${created.id}`)), 404, 1005, 'policy ');
    expectError(await emu.api('PUT', ps(zone, `/policies/${created.id}`), { body: GOOD_POLICY }), 404, 1005, 'policy ');
    expect((await policies(zone)).body.result).toEqual([kept]);
  });

  test.each([
    ['action', '"block"', { action: 'block' }, '"block"'],
    ['action', '"LOG"', { action: 'LOG' }, '"LOG"'],
    ['expression', 'with a misspelt field', { expression: 'http.hots eq "shop.example.com"' }, '"http.hots"'],
    ['expression', 'with trailing text', { expression: 'http.host eq "shop.example.com" or x' }, '"or x"'],
    ['expression', 'with a wildcard', { expression: 'http.host eq "*.example.com"' }, '"*"'],
    ['value', 'with a misspelt directive', { value: "scirpt-src 'self'" }, '"scirpt-src"'],
    ['value', 'with an unknown keyword', { value: "script-src 'self' 'unsafe-evil'" }, "'unsafe-evil'"],
    [
      'value',
      'with a nonce',
      { value: "script-src 'self' 'nonce-r4nd0m'" },
      `"'nonce-r4nd0m'" at position 18: the service does not support nonces; use a hash`,
    ],
    [
      'value',
      "with 'strict-dynamic'",
      { value: "script-src 'strict-dynamic' 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='" },
      `"'strict-dynamic'" at position 11: the service does not support 'strict-dynamic'; list the hosts`,
    ],
    [
      'value',
      'with a reporting directive',
      { value: "script-src 'self'; report-uri https://reports.example.com/csp" },
      '"report-uri" at position 19: the service adds its own reporting; remove it',
    ],
    [
      'value',
      'with a source after upgrade-insecure-requests',
      { value: "upgrade-insecure-requests 'self'" },
      `"'self'" at position 26: upgrade-insecure-requests takes no sources`,
    ],
    [
      'value',
      'of 6,001 characters',
      { value: "script-src 'self'".padEnd(6001, ' ') },
      'at position 6000: the value is 6,001 characters long and the service takes at most 6,000',
    ],
    ['enabled', '"yes"', { enabled: 'yes' }, '"yes"'],
    ['enabled', '1', { enabled: 1 }, 'got 1'],
    ['description', 'of 1025 characters', { description: 'x'.repeat(1025) }, 'got 1025'],
    ['description', 'that is a number', { description: 7 }, 'must be a string'],
  ])(
    'a bad %s (%s) is a 400 naming the field and the offending part, and creates nothing',
    async (field, _label, change, part) => {
      const zone = await newZone();
      await emu.api('POST', ps(zone, '/policies'), { body: GOOD_POLICY });
      const before = (await policies(zone)).body.result;
      expect(before).toHaveLength(1);
      const reply = await emu.api('POST', ps(zone, '/policies'), { body: { ...GOOD_POLICY, ...change } });
      expectError(reply, 400, 1004, `${field}: `);
      expect(reply.body.errors).toHaveLength(1);
      expect(reply.body.errors[0].message).toContain(part);
      expect((await policies(zone)).body.result).toEqual(before);
    },
  );

  test.each(['description', 'action', 'expression', 'value'])('a body without %s is a 400 naming it', async (field) => {
    const zone = await newZone();
    const body: Record<string, unknown> = { ...GOOD_POLICY };
    delete body[field];
    expectError(await emu.api('POST', ps(zone, '/policies'), { body }), 400, 1004, `${field}: `);
    expect((await policies(zone)).body.result).toEqual([]);
  });

  test('a malformed policy id is a 400 code 7003 on GET, PUT and DELETE; an unknown one a 404', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const options = method === 'PUT' ? { body: GOOD_POLICY } : {};
      expectError(await emu.api(method, ps(ZONE_ID, '/policies/not-an-id'), options), 400, 7003, 'policy_id: ');
      expectError(await emu.api(method, ps(ZONE_ID, `/policies/${hexId()}`), options), 404, 1005, 'policy ');
    }
  });

  test("another zone's policy is a 404 here", async () => {
    const zone = await newZone();
    const created = (await emu.api('POST', ps(zone, '/policies'), { body: GOOD_POLICY })).body.result;
    expectError(await emu.api('GET', ps(ZONE_ID, `/policies/${created.id}`)), 404, 1005, 'policy ');
    expectError(await emu.api('DELETE', ps(ZONE_ID, `/policies/${created.id}`)), 404, 1005, 'policy ');
    expect((await emu.api('GET', ps(zone, `/policies/${created.id}`))).status).toBe(200);
  });

  test('a malformed JSON body is a 400, a text/plain body a 415, a JSON array a 400; none creates anything', async () => {
    const zone = await newZone();
    const auth = { authorization: 'Bearer test-token-0123456789' };
    const malformed = await emu.api('POST', ps(zone, '/policies'), {
      rawBody: '{"description": "x",',
      headers: { ...auth, 'content-type': 'application/json' },
    });
    expectError(malformed, 400, 6007, 'body: ');
    const text = await emu.api('POST', ps(zone, '/policies'), {
      rawBody: JSON.stringify(GOOD_POLICY),
      headers: { ...auth, 'content-type': 'text/plain' },
    });
    expectError(text, 415, 6003, 'Content-Type: ');
    const array = await emu.api('POST', ps(zone, '/policies'), { body: [GOOD_POLICY] });
    expectError(array, 400, 1004, 'body: ');
    expect((await policies(zone)).body.result).toEqual([]);

    const created = (await emu.api('POST', ps(zone, '/policies'), { body: GOOD_POLICY })).body.result;
    const textPut = await emu.api('PUT', ps(zone, `/policies/${created.id}`), {
      rawBody: JSON.stringify({ ...GOOD_POLICY, description: 'changed' }),
      headers: { ...auth, 'content-type': 'text/plain' },
    });
    expectError(textPut, 415, 6003, 'Content-Type: ');
    expect((await policies(zone)).body.result).toEqual([created]);
  });
});
