import { randomBytes } from 'node:crypto';
import { ACCOUNT_ID, startTestEmulator, ZONE_ID, type TestEmulator } from '../../helpers/emulator';

/**
 * Seed documents (contract: "A field left out gets a plausible generated value"): for each kind of
 * record, one seeded with only what places it (the account of a zone, the zone or account of a
 * service record, a token's value) exists afterwards, as the API shows it, with plausible values.
 * The emulator's real time source is frozen, so generated timestamps are known exactly.
 */

const NOW = '2026-03-01T12:00:00.000Z';
const ONE_YEAR_MS = 365 * 24 * 60 * 60 * 1000;
const HEX_ID = /^[0-9a-f]{32}$/;
const DOMAIN = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const HEX_HASH = /^[0-9a-f]{64}$/;

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ now: () => Date.parse(NOW) });
});
afterAll(async () => emu.close());

/** The records of one collection of the stored state, by id. */
async function stored(collection: string): Promise<Map<string, Record<string, unknown>>> {
  const reply = await emu.control('GET', 'state');
  expect(reply.status).toBe(200);
  const records = (reply.body.result[collection] ?? []) as Array<Record<string, unknown>>;
  return new Map(records.map((record) => [record.id as string, record]));
}

/** The one record `seeding` added to `collection`. */
async function addedBy(collection: string, seeding: () => Promise<void>): Promise<Record<string, unknown>> {
  const before = await stored(collection);
  await seeding();
  const added = [...(await stored(collection)).values()].filter((record) => !before.has(record.id as string));
  expect(added).toHaveLength(1);
  return added[0]!;
}

/** A zone of the test's own, with a known name. */
async function newZone(): Promise<{ id: string; name: string }> {
  const id = randomBytes(16).toString('hex');
  const zone = { id, name: `z${id.slice(0, 8)}.example` };
  await emu.seed({ zones: [{ ...zone, account_id: ACCOUNT_ID }] });
  return zone;
}

const ps = (zoneId: string, rest: string) => `zones/${zoneId}/page_security${rest}`;

test('an account with no field at all', async () => {
  const account = await addedBy('accounts', () => emu.seed({ accounts: [{}] }));
  expect(account).toEqual({ id: expect.stringMatching(HEX_ID), name: expect.stringMatching(/\S/), created_on: NOW });
  const pools = await emu.api('GET', `accounts/${account.id as string}/load_balancers/pools`);
  expect(pools.status).toBe(200);
  expect(pools.body.result).toEqual([]);
});

test('a zone with only its account_id', async () => {
  const zone = await addedBy('zones', () => emu.seed({ zones: [{ account_id: ACCOUNT_ID }] }));
  expect(zone).toEqual({
    id: expect.stringMatching(HEX_ID),
    name: expect.stringMatching(DOMAIN),
    account_id: ACCOUNT_ID,
    created_on: NOW,
  });
  const settings = await emu.api('GET', ps(zone.id as string, ''));
  expect(settings.status).toBe(200);
  expect(settings.body.result).toMatchObject({ enabled: false, updated_at: NOW });
});

test('two zones seeded without names get names of their own', async () => {
  const before = await stored('zones');
  await emu.seed({ zones: [{ account_id: ACCOUNT_ID }, { account_id: ACCOUNT_ID }] });
  const names = [...(await stored('zones')).values()]
    .filter((zone) => !before.has(zone.id as string))
    .map((zone) => zone.name);
  expect(names).toHaveLength(2);
  expect(names[0]).not.toBe(names[1]);
});

test('a token with only its value reaches every zone and account', async () => {
  await emu.seed({ tokens: [{ value: 'seeded-token-with-value-only' }] });
  const headers = { authorization: 'Bearer seeded-token-with-value-only' };
  expect((await emu.api('GET', ps(ZONE_ID, ''), { headers })).status).toBe(200);
  expect((await emu.api('GET', `accounts/${ACCOUNT_ID}/load_balancers/pools`, { headers })).status).toBe(200);
});

test('a script with only its zone_id', async () => {
  const zone = await newZone();
  await emu.seed({ scripts: [{ zone_id: zone.id }] });
  const list = await emu.api('GET', ps(zone.id, '/scripts'));
  expect(list.body.result_info.total_count).toBe(1);
  const single = await emu.api('GET', ps(zone.id, `/scripts/${list.body.result[0].id as string}`));
  expect(single.status).toBe(200);
  const script = single.body.result;
  const url = new URL(script.url);
  expect(url.protocol).toBe('https:');
  expect(url.pathname).toMatch(/\.js$/);
  expect(script).toMatchObject({
    id: expect.stringMatching(HEX_ID),
    host: zone.name,
    added_at: NOW,
    first_seen_at: NOW,
    last_seen_at: NOW,
    fetched_at: NOW,
    status: 'active',
    domain_reported_malicious: false,
    url_reported_malicious: false,
    malicious_url_categories: [],
    url_contains_cdn_cgi_path: false,
    first_page_url: `https://${zone.name}/`,
    page_urls: [`https://${zone.name}/`],
    hash: expect.stringMatching(HEX_HASH),
  });
  for (const field of [
    'js_integrity_score',
    'obfuscation_score',
    'dataflow_score',
    'malware_score',
    'cryptomining_score',
    'magecart_score',
  ]) {
    expect(Number.isInteger(script[field])).toBe(true);
    expect(script[field]).toBeGreaterThanOrEqual(10);
    expect(script[field]).toBeLessThanOrEqual(99);
  }
  expect(script.versions).toHaveLength(1);
  expect(script.versions[0]).toEqual({
    hash: script.hash,
    js_integrity_score: script.js_integrity_score,
    obfuscation_score: script.obfuscation_score,
    dataflow_score: script.dataflow_score,
    malware_score: script.malware_score,
    cryptomining_score: script.cryptomining_score,
    magecart_score: script.magecart_score,
    fetched_at: NOW,
  });
});

test('objects seeded without identifying fields are new each time, unless they name their id', async () => {
  const zone = await newZone();
  const id = randomBytes(16).toString('hex');
  await emu.seed({ scripts: [{ zone_id: zone.id }, { zone_id: zone.id }, { zone_id: zone.id, id }] });
  await emu.seed({ scripts: [{ zone_id: zone.id, id }] });
  const list = await emu.api('GET', ps(zone.id, '/scripts'));
  expect(list.body.result_info.total_count).toBe(3);
  expect(new Set(list.body.result.map((script: { url: string }) => script.url)).size).toBe(3);
});

test('a connection with only its zone_id', async () => {
  const zone = await newZone();
  await emu.seed({ connections: [{ zone_id: zone.id }] });
  const list = await emu.api('GET', ps(zone.id, '/connections'));
  expect(list.body.result_info.total_count).toBe(1);
  const connection = list.body.result[0];
  expect(new URL(connection.url).protocol).toBe('https:');
  expect(connection).toEqual({
    id: expect.stringMatching(HEX_ID),
    url: expect.any(String),
    added_at: NOW,
    first_seen_at: NOW,
    last_seen_at: NOW,
    host: zone.name,
    domain_reported_malicious: false,
    malicious_domain_categories: [],
    url_reported_malicious: false,
    malicious_url_categories: [],
    first_page_url: `https://${zone.name}/`,
    status: 'active',
    url_contains_cdn_cgi_path: false,
  });
  expect((await emu.api('GET', ps(zone.id, `/connections/${connection.id as string}`))).body.result).toEqual(
    connection,
  );
});

test('a cookie with only its zone_id is a first-party cookie on the zone', async () => {
  const zone = await newZone();
  await emu.seed({ cookies: [{ zone_id: zone.id }] });
  const list = await emu.api('GET', ps(zone.id, '/cookies'));
  expect(list.body.result_info.total_count).toBe(1);
  const cookie = list.body.result[0];
  expect(cookie).toEqual({
    id: expect.stringMatching(HEX_ID),
    type: 'first_party',
    name: expect.stringMatching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/),
    host: zone.name,
    domain_attribute: zone.name,
    expires_attribute: new Date(Date.parse(NOW) + ONE_YEAR_MS).toISOString(),
    http_only_attribute: true,
    max_age_attribute: null,
    path_attribute: '/',
    same_site_attribute: 'strict',
    secure_attribute: true,
    first_seen_at: NOW,
    last_seen_at: NOW,
    first_page_url: `${zone.name}/`,
    page_urls: [`${zone.name}/`],
    status: 'active',
  });
  expect((await emu.api('GET', ps(zone.id, `/cookies/${cookie.id as string}`))).body.result).toEqual(cookie);
});

test('a pool with only its account_id', async () => {
  const accountId = randomBytes(16).toString('hex');
  await emu.seed({ accounts: [{ id: accountId }], pools: [{ account_id: accountId }] });
  const list = await emu.api('GET', `accounts/${accountId}/load_balancers/pools`);
  expect(list.status).toBe(200);
  expect(list.body.result).toEqual([
    {
      id: expect.stringMatching(HEX_ID),
      name: expect.stringMatching(/\S/),
      notification_email: '',
      created_on: NOW,
      modified_on: NOW,
    },
  ]);
});

test('the placing ids stay required, each refusal naming its field', async () => {
  for (const [document, field] of [
    [{ zones: [{}] }, 'zones[0].account_id'],
    [{ tokens: [{}] }, 'tokens[0].value'],
    [{ scripts: [{}] }, 'scripts[0].zone_id'],
    [{ connections: [{}] }, 'connections[0].zone_id'],
    [{ cookies: [{}] }, 'cookies[0].zone_id'],
    [{ pools: [{}] }, 'pools[0].account_id'],
  ] as const) {
    const reply = await emu.control('POST', 'seed', document);
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].message).toMatch(new RegExp(`^${field.replace(/[[\].]/g, '\\$&')}: `));
  }
});
