import { randomBytes } from 'node:crypto';
import { NotFoundError } from '../../../provider/client/errors';
import { scriptDetailSchema, scriptSchema } from '../../../provider/client/page-security';
import {
  getConnection,
  getCookie,
  getScript,
  isMalicious,
  listConnections,
  listCookies,
  listScripts,
  MALICIOUS_SCORE_THRESHOLD,
  maliciousScripts,
  type ReadSettings,
} from '../../../provider/helpers/read';
import { SettingsError } from '../../../provider/settings';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';

/**
 * The read helpers against the emulator: paging through everything, the filters, the single
 * reads, the malicious classification of spec 1.2 / 8, and where their settings come from. Each
 * test seeds a zone of its own.
 */

let emu: TestEmulator;
let settings: ReadSettings;

beforeAll(async () => {
  emu = await startTestEmulator();
  settings = { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN };
});
afterAll(async () => emu.close());

async function newZone(): Promise<string> {
  const id = randomBytes(16).toString('hex');
  await emu.seed({ zones: [{ id, name: `z${id.slice(0, 8)}.example`, account_id: ACCOUNT_ID }] });
  return id;
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const listCalls = async (since: number) =>
  (await emu.requests(since)).map((r) => ({ method: r.method, path: r.path, query: r.query, status: r.status }));

describe('listScripts', () => {
  let zone: string;
  const HOSTS = ['cdn0.example.net', 'cdn1.example.net', 'cdn2.example.net'];

  beforeAll(async () => {
    zone = await newZone();
    // Each seen on a page of its own host: a script's host is the host of the page that loads it.
    const scripts = Array.from({ length: 250 }, (_, i) => ({
      zone_id: zone,
      url: `https://${HOSTS[i % 3]}/s${i}.js`,
      first_page_url: `https://${HOSTS[i % 3]}/`,
    }));
    const infrequent = Array.from({ length: 5 }, (_, i) => ({
      zone_id: zone,
      url: `https://rare.example.net/r${i}.js`,
      status: 'infrequent',
    }));
    await emu.seed({ scripts: [...scripts, ...infrequent] });
  });

  test('perPage 100 gives all 250 active scripts in 3 requests', async () => {
    const mark = emu.mark();
    const scripts = await all(listScripts(zone, { perPage: 100 }, settings));
    expect(scripts).toHaveLength(250);
    expect(new Set(scripts.map((s) => s.id)).size).toBe(250);
    expect(scripts.every((s) => s.status === 'active')).toBe(true);
    const path = `/client/v4/zones/${zone}/page_security/scripts`;
    expect(await listCalls(mark)).toEqual(
      [1, 2, 3].map((page) => ({
        method: 'GET',
        path,
        query: { exclude_cdn_cgi: 'false', page: String(page), per_page: '100' },
        status: 200,
      })),
    );
  });

  test('perPage defaults to 100', async () => {
    const mark = emu.mark();
    expect(await all(listScripts(zone, {}, settings))).toHaveLength(250);
    expect((await listCalls(mark)).map((c) => c.query)).toEqual(
      // The helpers keep the scripts under /cdn-cgi/, which the service leaves out by default.
      [1, 2, 3].map((page) => ({ exclude_cdn_cgi: 'false', page: String(page), per_page: '100' })),
    );
  });

  test('pages are fetched as the loop advances', async () => {
    const mark = emu.mark();
    let seen = 0;
    for await (const script of listScripts(zone, { perPage: 100 }, settings)) {
      expect(HOSTS).toContain(script.host);
      if (++seen === 100) break;
    }
    expect(await listCalls(mark)).toHaveLength(1);
  });

  test('hosts keeps the scripts of those hostnames, as a list or one string', async () => {
    const one = await all(listScripts(zone, { hosts: ['cdn1.example.net'] }, settings));
    expect(one).toHaveLength(83);
    expect(new Set(one.map((s) => s.host))).toEqual(new Set(['cdn1.example.net']));
    const two = await all(listScripts(zone, { hosts: 'cdn1.example.net,cdn2.example.net' }, settings));
    expect(two).toHaveLength(166);
    const mark = emu.mark();
    await all(listScripts(zone, { hosts: ['cdn0.example.net', 'cdn2.example.net'], perPage: 1000 }, settings));
    expect((await listCalls(mark)).map((c) => c.query)).toEqual([
      { exclude_cdn_cgi: 'false', hosts: 'cdn0.example.net,cdn2.example.net', page: '1', per_page: '1000' },
    ]);
  });

  test('status infrequent gives only the infrequent scripts', async () => {
    const rare = await all(listScripts(zone, { status: 'infrequent' }, settings));
    expect(rare.map((s) => s.url).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `https://rare.example.net/r${i}.js`));
    expect(rare.every((s) => s.status === 'infrequent')).toBe(true);
  });

  test('a perPage that is not a whole number of at least 1 is refused before any request', async () => {
    const mark = emu.mark();
    await expect(all(listScripts(zone, { perPage: 0 }, settings))).rejects.toThrow(
      new RangeError('perPage must be a whole number of at least 1 (got 0)'),
    );
    await expect(all(listScripts(zone, { perPage: 2.5 }, settings))).rejects.toThrow(
      'perPage must be a whole number of at least 1 (got 2.5)',
    );
    expect(await listCalls(mark)).toEqual([]);
  });
});

describe('single reads, connections and cookies', () => {
  let zone: string;

  beforeAll(async () => {
    zone = await newZone();
    await emu.seed({
      scripts: [
        {
          zone_id: zone,
          url: 'https://cdn.example.net/app.js',
          page_urls: ['https://shop.example.com/', 'https://shop.example.com/checkout'],
          versions: [
            { hash: 'aaaaaaaa', js_integrity_score: 50 },
            { hash: 'bbbbbbbb', js_integrity_score: 60 },
          ],
        },
      ],
      connections: [
        { zone_id: zone, url: 'https://api.example.org/collect' },
        { zone_id: zone, url: 'https://rare.example.org/x', status: 'infrequent' },
      ],
      cookies: [
        { zone_id: zone, name: 'session', host: 'shop.example.com' },
        { zone_id: zone, name: 'cart', host: 'shop.example.com', max_age_attribute: 3600 },
      ],
    });
  });

  test('getScript has page_urls and versions', async () => {
    const [listed] = await all(listScripts(zone, {}, settings));
    const script = await getScript(zone, listed!.id, settings);
    expect(script.page_urls).toEqual(['https://shop.example.com/', 'https://shop.example.com/checkout']);
    expect(script.versions.map((v) => [v.hash, v.js_integrity_score])).toEqual([
      ['aaaaaaaa', 50],
      ['bbbbbbbb', 60],
    ]);
    // Seeded without host or first page: both come from its first page.
    expect(script).toMatchObject({
      id: listed!.id,
      url: 'https://cdn.example.net/app.js',
      host: 'shop.example.com',
      first_page_url: 'https://shop.example.com/',
    });
  });

  test('getScript of an unknown script is a NotFoundError', async () => {
    await expect(getScript(zone, 'f'.repeat(32), settings)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('listConnections and getConnection', async () => {
    const active = await all(listConnections(zone, {}, settings));
    expect(active.map((c) => c.url)).toEqual(['https://api.example.org/collect']);
    const rare = await all(listConnections(zone, { status: 'infrequent' }, settings));
    expect(rare.map((c) => c.url)).toEqual(['https://rare.example.org/x']);
    const one = await getConnection(zone, active[0]!.id, settings);
    expect(one).toEqual(active[0]);
    expect(one.malicious_domain_categories).toEqual([]);
  });

  test('listCookies and getCookie, with max_age_attribute null when absent', async () => {
    const cookies = await all(listCookies(zone, { hosts: ['shop.example.com'] }, settings));
    expect(cookies.map((c) => [c.name, c.max_age_attribute]).sort()).toEqual([
      ['cart', 3600],
      ['session', null],
    ]);
    const session = cookies.find((c) => c.name === 'session')!;
    await expect(getCookie(zone, session.id, settings)).resolves.toEqual(session);
    await expect(getCookie(zone, 'f'.repeat(32), settings)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('malicious scripts', () => {
  test('the threshold is 10: a score of 9 is malicious, 10 is not, no score is not', () => {
    expect(MALICIOUS_SCORE_THRESHOLD).toBe(10);
    expect(isMalicious({ js_integrity_score: 1 })).toBe(true);
    expect(isMalicious({ js_integrity_score: 9 })).toBe(true);
    expect(isMalicious({ js_integrity_score: 10 })).toBe(false);
    expect(isMalicious({ js_integrity_score: 99 })).toBe(false);
    expect(isMalicious({})).toBe(false);
  });

  test('maliciousScripts finds active and infrequent malicious scripts, and only those', async () => {
    const zone = await newZone();
    await emu.seed({
      scripts: [
        { zone_id: zone, url: 'https://bad.example.net/active.js', js_integrity_score: 4 },
        { zone_id: zone, url: 'https://bad.example.net/rare.js', js_integrity_score: 9, status: 'infrequent' },
        { zone_id: zone, url: 'https://ok.example.net/edge.js', js_integrity_score: 10 },
        { zone_id: zone, url: 'https://ok.example.net/rare.js', js_integrity_score: 10, status: 'infrequent' },
        ...Array.from({ length: 30 }, (_, i) => ({ zone_id: zone, url: `https://ok.example.net/s${i}.js` })),
      ],
    });
    const found = await maliciousScripts(zone, { perPage: 10 }, settings);
    expect(found.map((s) => [s.url, s.status, s.js_integrity_score])).toEqual([
      ['https://bad.example.net/active.js', 'active', 4],
      ['https://bad.example.net/rare.js', 'infrequent', 9],
    ]);
  });
});

describe('schemas', () => {
  const script = {
    id: 'a'.repeat(32),
    url: 'https://cdn.example.net/a.js',
    added_at: '2026-01-01T00:00:00.000Z',
    first_seen_at: '2026-01-01T00:00:00.000Z',
    last_seen_at: '2026-01-02T00:00:00.000Z',
    host: 'cdn.example.net',
    domain_reported_malicious: false,
    url_reported_malicious: false,
    first_page_url: 'https://shop.example.com/',
    status: 'active',
    url_contains_cdn_cgi_path: false,
  };

  test('a script without scores, hash or categories (plans without them) parses, and is not malicious', () => {
    const parsed = scriptSchema.parse(script);
    expect(parsed.js_integrity_score).toBeUndefined();
    expect(isMalicious(parsed)).toBe(false);
    expect(scriptDetailSchema.parse({ ...script, page_urls: [], versions: [{ hash: 'aaaaaaaa' }] }).versions).toEqual([
      { hash: 'aaaaaaaa' },
    ]);
  });

  test('a script without a required field does not parse', () => {
    expect(scriptSchema.safeParse({ ...script, url: undefined }).success).toBe(false);
  });
});

describe('settings', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  test('what the settings leave out comes from the environment', async () => {
    const zone = await newZone();
    await emu.seed({ scripts: [{ zone_id: zone, url: 'https://cdn.example.net/env.js' }] });
    process.env.EDGEGUARD_BASE_URL = emu.baseUrl;
    process.env.EDGEGUARD_API_TOKEN = TEST_TOKEN;
    expect((await all(listScripts(zone))).map((s) => s.url)).toEqual(['https://cdn.example.net/env.js']);
    process.env.EDGEGUARD_API_TOKEN = 'not-the-token';
    expect(await all(listScripts(zone, {}, { apiToken: TEST_TOKEN }))).toHaveLength(1);
  });

  test('no settings and no environment is a SettingsError that says what to set', async () => {
    delete process.env.EDGEGUARD_BASE_URL;
    delete process.env.EDGEGUARD_API_TOKEN;
    const attempt = all(listScripts('c'.repeat(32)));
    await expect(attempt).rejects.toBeInstanceOf(SettingsError);
    await expect(attempt).rejects.toThrow('no service address: set edgeguard:baseUrl (or EDGEGUARD_BASE_URL)');
  });
});
