import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ACCOUNT_ID, startTestEmulator, ZONE_ID, type Reply, type TestEmulator } from '../../helpers/emulator';

const EMAIL = 'ops@example.com';
const KEY = 'global-api-key-0123';
const NOT_CNAMED = 'custom hostname does not CNAME to this zone.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ID = /^[0-9a-f]{32}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SSL = { method: 'txt', type: 'dv' };

/** An instant for emulators whose real time source is frozen: only `advance` moves their clock. */
const FROZEN_NOW_MS = Date.parse('2026-01-15T09:00:00.000Z');

let emu: TestEmulator;
/**
 * For the rules judged on the clock (creation order, the issuance window and block): the time the
 * test itself takes on a loaded machine cannot move them.
 */
let still: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ email: EMAIL, key: KEY });
  still = await startTestEmulator({ now: () => FROZEN_NOW_MS });
});
afterAll(async () => Promise.all([emu.close(), still.close()]));

interface TestZone {
  id: string;
  name: string;
}

let zoneSeq = 0;
/**
 * A zone of its own for each test: creates count toward a per-zone issuance limit, so tests that
 * shared a zone would depend on each other.
 */
async function freshZone(on: TestEmulator = emu, prefix = 'saas'): Promise<TestZone> {
  zoneSeq += 1;
  const zone = { id: `e${zoneSeq.toString(16).padStart(31, '0')}`, name: `${prefix}${zoneSeq}.example.net` };
  const seeded = await on.control('POST', 'seed', { zones: [{ ...zone, account_id: ACCOUNT_ID }] });
  expect(seeded.status).toBe(200);
  return zone;
}

const collection = (zone: TestZone | string) => `zones/${typeof zone === 'string' ? zone : zone.id}/custom_hostnames`;

function create(zone: TestZone, body: unknown, on: TestEmulator = emu): Promise<Reply> {
  return on.api('POST', collection(zone), { body });
}

async function created(
  zone: TestZone,
  hostname: string,
  ssl: Record<string, unknown> = SSL,
  on: TestEmulator = emu,
): Promise<any> {
  const reply = await create(zone, { hostname, ssl }, on);
  expect(reply.status).toBe(200);
  return reply.body.result;
}

async function read(zone: TestZone, id: string): Promise<Reply> {
  return emu.api('GET', `${collection(zone)}/${id}`);
}

async function status(zone: TestZone, id: string): Promise<string> {
  const reply = await read(zone, id);
  expect(reply.status).toBe(200);
  return reply.body.result.status;
}

async function publish(
  hostname: string,
  records: Array<{ type: string; name?: string; value: string }>,
): Promise<void> {
  const reply = await emu.control('POST', 'dns', { hostname, records });
  expect(reply.status).toBe(200);
}

async function advance(seconds: number, on: TestEmulator = emu): Promise<void> {
  const reply = await on.control('POST', 'clock', { advance_seconds: seconds });
  expect(reply.status).toBe(200);
}

async function listAll(
  zone: TestZone,
  query: Record<string, string | number> = {},
  on: TestEmulator = emu,
): Promise<Reply> {
  return on.api('GET', collection(zone), { query: { per_page: 1000, ...query } });
}

describe('create', () => {
  test('returns the whole record, hostname lowercased, CA chosen, ownership token issued', async () => {
    const zone = await freshZone();
    const reply = await create(zone, { hostname: 'Shop.Customer-One.com', ssl: SSL });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      success: true,
      errors: [],
      messages: [],
      result: {
        id: expect.stringMatching(ID),
        hostname: 'shop.customer-one.com',
        status: 'pending',
        verification_errors: [NOT_CNAMED],
        ssl: { method: 'txt', type: 'dv', certificate_authority: 'google', status: 'pending_validation' },
        edgeguard_branding: false,
        ownership_verification: {
          type: 'txt',
          name: '_edgeguard-custom-hostname.shop.customer-one.com',
          value: expect.stringMatching(UUID),
        },
        created_at: expect.stringMatching(ISO),
      },
    });
    const again = await read(zone, reply.body.result.id);
    expect(again.status).toBe(200);
    expect(again.body.result).toEqual(reply.body.result);
  });

  test('accepts every documented ssl value, and e-mail + key credentials', async () => {
    const zone = await freshZone();
    const reply = await emu.api('POST', collection(zone), {
      headers: { 'x-auth-email': EMAIL, 'x-auth-key': KEY },
      body: {
        hostname: 'http.customer-two.com',
        ssl: { method: 'http', type: 'dv', certificate_authority: 'lets_encrypt' },
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.result.ssl).toEqual({
      method: 'http',
      type: 'dv',
      certificate_authority: 'lets_encrypt',
      status: 'pending_validation',
    });
    const byKey = await emu.api('GET', collection(zone), { headers: { 'x-auth-email': EMAIL, 'x-auth-key': KEY } });
    expect(byKey.status).toBe(200);
    expect(byKey.body.result).toHaveLength(1);
  });

  test('without credentials: 401', async () => {
    const zone = await freshZone();
    const reply = await emu.api('POST', collection(zone), {
      headers: {},
      body: { hostname: 'x.customer.com', ssl: SSL },
    });
    expect(reply.status).toBe(401);
    expect(reply.body.errors[0].code).toBe(10000);
  });

  test('an unknown zone: 404; a malformed zone id: 400 code 7003', async () => {
    const unknown = await emu.api('POST', collection('f'.repeat(32)), {
      body: { hostname: 'x.customer.com', ssl: SSL },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].code).toBe(7003);
    const malformed = await emu.api('GET', collection('not-a-zone'));
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0]).toEqual({ code: 7003, message: expect.stringMatching(/^zone_id: /) });
  });

  test('a hostname of 65 characters without branding: 400 code 1469 naming the field, the length, the limit and the fix', async () => {
    const zone = await freshZone();
    const hostname = `${'a'.repeat(50)}.${'b'.repeat(10)}.com`;
    expect(hostname).toHaveLength(65);
    const refused = await create(zone, { hostname, ssl: SSL });
    expect(refused.status).toBe(400);
    expect(refused.body.result).toBeNull();
    expect(refused.body.errors).toHaveLength(1);
    expect(refused.body.errors[0].code).toBe(1469);
    expect(refused.body.errors[0].message).toMatch(/^hostname: /);
    expect(refused.body.errors[0].message).toContain('65 characters');
    expect(refused.body.errors[0].message).toContain('64-character limit of a certificate Common Name');
    expect(refused.body.errors[0].message).toContain('set edgeguard_branding to true');
    expect((await listAll(zone)).body.result).toEqual([]);

    const falseBranding = await create(zone, { hostname, ssl: SSL, edgeguard_branding: false });
    expect(falseBranding.status).toBe(400);
    expect(falseBranding.body.errors[0].code).toBe(1469);

    const branded = await create(zone, { hostname, ssl: SSL, edgeguard_branding: true });
    expect(branded.status).toBe(200);
    expect(branded.body.result.hostname).toBe(hostname);
    expect(branded.body.result.edgeguard_branding).toBe(true);
  });

  test('a hostname of exactly 64 characters needs no branding', async () => {
    const zone = await freshZone();
    const hostname = `${'a'.repeat(49)}.${'b'.repeat(10)}.com`;
    expect(hostname).toHaveLength(64);
    expect((await create(zone, { hostname, ssl: SSL })).status).toBe(200);
  });

  test.each([
    ['bad_host.customer.com', '"_"'],
    ['singlelabel', '"singlelabel"'],
    ['-lead.customer.com', '"-lead"'],
    ['trail-.customer.com', '"trail-"'],
    ['a..customer.com', 'at position 1: two dots in a row'],
    ['shop.*.customer.com', '"*"'],
    [`${'x'.repeat(64)}.customer.com`, `"${'x'.repeat(64)}"`],
    ['shop.customer.com.', 'ends with a dot'],
    ['', '""'],
  ])('invalid hostname %j: 400 naming hostname and the problem (%s)', async (hostname, part) => {
    const zone = await freshZone();
    const reply = await create(zone, { hostname, ssl: SSL, edgeguard_branding: true });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([{ code: 1004, message: expect.stringMatching(/^hostname: invalid hostname /) }]);
    expect(reply.body.errors[0].message).toContain(part);
    expect((await listAll(zone)).body.result).toEqual([]);
  });

  test('a wildcard hostname is accepted', async () => {
    const zone = await freshZone();
    const record = await created(zone, '*.Wild-Accept.com');
    expect(record.hostname).toBe('*.wild-accept.com');
    expect(record.ownership_verification.name).toBe('_edgeguard-custom-hostname.wild-accept.com');
  });

  test.each([
    [{ ssl: SSL }, /^hostname: is required/],
    [{ hostname: 42, ssl: SSL }, /^hostname: must be a string/],
    [{ hostname: 'a.customer.com' }, /^ssl: is required: an object/],
    [{ hostname: 'a.customer.com', ssl: 'txt' }, /^ssl: must be an object/],
    [{ hostname: 'a.customer.com', ssl: { type: 'dv' } }, /^ssl\.method: is required/],
    [
      { hostname: 'a.customer.com', ssl: { method: 'email', type: 'dv' } },
      /^ssl\.method: must be one of "txt", "http" \(got "email"\)$/,
    ],
    [
      { hostname: 'a.customer.com', ssl: { method: 'txt', type: 'ov' } },
      /^ssl\.type: must be one of "dv" \(got "ov"\)$/,
    ],
    [
      { hostname: 'a.customer.com', ssl: { ...SSL, certificate_authority: 'digicert' } },
      /^ssl\.certificate_authority: must be one of "", "google", "lets_encrypt" \(got "digicert"\)$/,
    ],
    [
      { hostname: 'a.customer.com', ssl: SSL, edgeguard_branding: 'yes' },
      /^edgeguard_branding: must be true or false \(got "yes"\)$/,
    ],
  ])('invalid body %j: 400 naming the field', async (body, message) => {
    const zone = await freshZone();
    const reply = await create(zone, body);
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0]).toEqual({ code: 1004, message: expect.stringMatching(message) });
    expect((await listAll(zone)).body.result).toEqual([]);
  });

  test('a body that is not an object: 400', async () => {
    const zone = await freshZone();
    const reply = await emu.api('POST', collection(zone), { body: ['shop.customer.com'] });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].message).toMatch(/^body: /);
  });

  test('the same hostname twice in a zone: 409 code 1406, whatever its case; in another zone it is fine', async () => {
    const zone = await freshZone();
    const first = await created(zone, 'dup.customer.com');
    const again = await create(zone, { hostname: 'DUP.customer.com', ssl: SSL });
    expect(again.status).toBe(409);
    expect(again.body.errors).toEqual([
      {
        code: 1406,
        message: expect.stringContaining(
          `hostname: dup.customer.com already exists in this zone as custom hostname ${first.id}`,
        ),
      },
    ]);
    expect((await listAll(zone)).body.result).toHaveLength(1);
    const other = await freshZone();
    expect((await create(other, { hostname: 'dup.customer.com', ssl: SSL })).status).toBe(200);
  });
});

describe('ownership validation', () => {
  test('pending until the TXT token is published, then active', async () => {
    const zone = await freshZone();
    const record = await created(zone, 'txt.customer.com');
    expect(await status(zone, record.id)).toBe('pending');

    await publish('txt.customer.com', [
      { type: 'TXT', name: record.ownership_verification.name, value: 'not-the-token' },
    ]);
    expect(await status(zone, record.id)).toBe('pending');

    await publish('txt.customer.com', [
      { type: 'TXT', name: record.ownership_verification.name, value: `"${record.ownership_verification.value}"` },
    ]);
    const reply = await read(zone, record.id);
    expect(reply.body.result).toMatchObject({
      status: 'active',
      verification_errors: [],
      ssl: { method: 'txt', type: 'dv', certificate_authority: 'google', status: 'active' },
    });
  });

  test('pending until a CNAME points into the zone, then active, also in the list', async () => {
    const zone = await freshZone();
    const record = await created(zone, 'cname.customer.com');
    await publish('cname.customer.com', [{ type: 'CNAME', value: 'edge.elsewhere.net' }]);
    expect(await status(zone, record.id)).toBe('pending');

    await publish('cname.customer.com', [{ type: 'CNAME', value: `Edge.${zone.name.toUpperCase()}.` }]);
    expect(await status(zone, record.id)).toBe('active');
    const list = await listAll(zone);
    expect(list.body.result.map((r: any) => [r.id, r.status, r.ssl.status])).toEqual([[record.id, 'active', 'active']]);
  });

  test('DNS published before the create: active at once', async () => {
    const zone = await freshZone();
    await publish('early.customer.com', [{ type: 'CNAME', value: zone.name }]);
    const record = await created(zone, 'early.customer.com');
    expect(record).toMatchObject({
      status: 'active',
      verification_errors: [],
      ssl: { certificate_authority: 'google', status: 'active' },
    });
  });
});

describe('certificate authority and CAA', () => {
  test('default CA is google when CAA allows it', async () => {
    const zone = await freshZone();
    await publish('caa-both.customer.com', [
      { type: 'CNAME', value: zone.name },
      { type: 'CAA', value: '0 issue "letsencrypt.org"' },
      { type: 'CAA', value: '0 issue "pki.goog"' },
    ]);
    const record = await created(zone, 'caa-both.customer.com', { ...SSL, certificate_authority: '' });
    expect(record.ssl).toEqual({ method: 'txt', type: 'dv', certificate_authority: 'google', status: 'active' });
  });

  test('default CA falls back to lets_encrypt when CAA permits only it', async () => {
    const zone = await freshZone();
    await publish('caa-le.customer.com', [
      { type: 'CNAME', value: zone.name },
      { type: 'CAA', value: '0 issue "letsencrypt.org"' },
    ]);
    const record = await created(zone, 'caa-le.customer.com');
    expect(record).toMatchObject({
      status: 'active',
      ssl: { certificate_authority: 'lets_encrypt', status: 'active' },
    });
  });

  test('default CA with CAA permitting neither: caa_error naming the CAs and the records to add; fixed CAA validates', async () => {
    const zone = await freshZone();
    await publish('caa-none.customer.com', [
      { type: 'CNAME', value: zone.name },
      { type: 'CAA', value: '0 issue "digicert.com"' },
    ]);
    const record = await created(zone, 'caa-none.customer.com');
    expect(record).toMatchObject({
      status: 'caa_error',
      verification_errors: [
        'CAA records for caa-none.customer.com permit neither google (pki.goog) nor lets_encrypt (letsencrypt.org); add 0 issue "pki.goog" or 0 issue "letsencrypt.org"',
      ],
      ssl: { certificate_authority: 'google', status: 'caa_error' },
    });

    await publish('caa-none.customer.com', [
      { type: 'CNAME', value: zone.name },
      { type: 'CAA', value: '0 issue "digicert.com"' },
      { type: 'CAA', value: 'issue pki.goog' },
    ]);
    const fixed = await read(zone, record.id);
    expect(fixed.body.result).toMatchObject({
      status: 'active',
      verification_errors: [],
      ssl: { certificate_authority: 'google', status: 'active' },
    });
  });

  test('a named CA that CAA forbids: caa_error, no fallback', async () => {
    const zone = await freshZone();
    await publish('caa-named.customer.com', [
      { type: 'CNAME', value: zone.name },
      { type: 'CAA', value: '0 issue "letsencrypt.org"' },
    ]);
    const record = await created(zone, 'caa-named.customer.com', { ...SSL, certificate_authority: 'google' });
    expect(record).toMatchObject({
      status: 'caa_error',
      verification_errors: [
        'CAA records for caa-named.customer.com do not permit google (pki.goog); add 0 issue "pki.goog" or request another certificate_authority',
      ],
      ssl: { certificate_authority: 'google', status: 'caa_error' },
    });
  });

  test('a wildcard hostname is judged by issuewild records', async () => {
    const zone = await freshZone();
    const record = await created(zone, '*.wild-caa.com');
    await publish('wild-caa.com', [
      { type: 'TXT', name: record.ownership_verification.name, value: record.ownership_verification.value },
      { type: 'CAA', value: '0 issue "pki.goog"' },
      { type: 'CAA', value: '0 issuewild "letsencrypt.org"' },
    ]);
    expect((await read(zone, record.id)).body.result).toMatchObject({
      status: 'active',
      ssl: { certificate_authority: 'lets_encrypt', status: 'active' },
    });

    const named = await created(zone, '*.wild-caa2.com', { ...SSL, certificate_authority: 'google' });
    await publish('wild-caa2.com', [
      { type: 'TXT', name: named.ownership_verification.name, value: named.ownership_verification.value },
      { type: 'CAA', value: '0 issue "pki.goog"' },
      { type: 'CAA', value: '0 issuewild "letsencrypt.org"' },
    ]);
    expect((await read(zone, named.id)).body.result).toMatchObject({
      status: 'caa_error',
      verification_errors: [
        'CAA records for wild-caa2.com do not permit google (pki.goog); add 0 issuewild "pki.goog" or request another certificate_authority',
      ],
    });
  });

  test('CAA records on a parent domain govern its subdomains', async () => {
    const zone = await freshZone();
    await publish('parent-caa.com', [{ type: 'CAA', value: '0 issue "letsencrypt.org"' }]);
    await publish('a.b.parent-caa.com', [{ type: 'CNAME', value: zone.name }]);
    const record = await created(zone, 'a.b.parent-caa.com');
    expect(record).toMatchObject({ status: 'active', ssl: { certificate_authority: 'lets_encrypt' } });
    const named = await created(zone, 'c.parent-caa.com', { ...SSL, certificate_authority: 'google' });
    await publish('c.parent-caa.com', [{ type: 'CNAME', value: zone.name }]);
    expect((await read(zone, named.id)).body.result).toMatchObject({
      status: 'caa_error',
      verification_errors: [expect.stringMatching(/^CAA records for parent-caa\.com do not permit google/)],
    });
  });

  test('an active hostname keeps its certificate when CAA changes, until a PATCH restarts validation', async () => {
    const zone = await freshZone();
    await publish('issued.customer.com', [{ type: 'CNAME', value: zone.name }]);
    const record = await created(zone, 'issued.customer.com');
    expect(record.status).toBe('active');
    await publish('issued.customer.com', [
      { type: 'CNAME', value: zone.name },
      { type: 'CAA', value: '0 issue ";"' },
    ]);
    expect(await status(zone, record.id)).toBe('active');
    const patched = await emu.api('PATCH', `${collection(zone)}/${record.id}`, { body: { ssl: { method: 'txt' } } });
    expect(patched.status).toBe(200);
    expect(patched.body.result).toMatchObject({ status: 'caa_error', ssl: { status: 'caa_error' } });
  });
});

describe('zone holds', () => {
  test('a hostname under a zone held with subdomains is blocked; released, it validates', async () => {
    const zone = await freshZone();
    const held = await freshZone(emu, 'held');
    const hostname = `shop.${held.name}`;
    await publish(hostname, [{ type: 'CNAME', value: zone.name }]);
    const hold = await emu.control('POST', `zones/${held.id}/hold`, { include_subdomains: true });
    expect(hold.status).toBe(200);

    const record = await created(zone, hostname);
    expect(record).toMatchObject({
      status: 'blocked',
      verification_errors: [
        expect.stringMatching(
          /associated with a held zone.*the zone owner must release the hold before the hostname can become active/,
        ),
      ],
      ssl: { certificate_authority: 'google', status: 'pending_validation' },
    });
    expect(await status(zone, record.id)).toBe('blocked');

    expect((await emu.control('DELETE', `zones/${held.id}/hold`)).status).toBe(200);
    expect((await read(zone, record.id)).body.result).toMatchObject({
      status: 'active',
      verification_errors: [],
      ssl: { status: 'active' },
    });
  });

  test('a hold without subdomains blocks the zone name itself, not its subdomains', async () => {
    const zone = await freshZone();
    const held = await freshZone(emu, 'held');
    expect((await emu.control('POST', `zones/${held.id}/hold`, { include_subdomains: false })).status).toBe(200);
    await publish(`sub.${held.name}`, [{ type: 'CNAME', value: zone.name }]);
    await publish(held.name, [{ type: 'CNAME', value: zone.name }]);
    expect((await created(zone, `sub.${held.name}`)).status).toBe('active');
    expect((await created(zone, held.name)).status).toBe('blocked');
  });
});

describe('moved', () => {
  async function activeThenMoved(zone: TestZone, hostname: string): Promise<any> {
    await publish(hostname, [{ type: 'CNAME', value: zone.name }]);
    const record = await created(zone, hostname);
    expect(record.status).toBe('active');
    await publish(hostname, [{ type: 'CNAME', value: 'edge.competitor.net' }]);
    const moved = await read(zone, record.id);
    expect(moved.body.result).toMatchObject({
      status: 'moved',
      verification_errors: [NOT_CNAMED],
      ssl: { certificate_authority: 'google', status: 'active' },
    });
    return record;
  }

  test('an active hostname whose CNAME leaves the zone is moved, and stays moved when DNS returns', async () => {
    const zone = await freshZone();
    const record = await activeThenMoved(zone, 'moved1.customer.com');
    await publish('moved1.customer.com', [{ type: 'CNAME', value: zone.name }]);
    expect(await status(zone, record.id)).toBe('moved');
    expect((await listAll(zone)).body.result.map((r: any) => r.status)).toEqual(['moved']);
  });

  test('an active hostname whose DNS is removed is moved', async () => {
    const zone = await freshZone();
    await publish('gone-dns.customer.com', [{ type: 'CNAME', value: zone.name }]);
    const record = await created(zone, 'gone-dns.customer.com');
    await publish('gone-dns.customer.com', []);
    expect(await status(zone, record.id)).toBe('moved');
  });

  test('a PATCH on a moved hostname restarts validation: pending while DNS is away, active once it is back', async () => {
    const zone = await freshZone();
    const record = await activeThenMoved(zone, 'moved2.customer.com');
    const patched = await emu.api('PATCH', `${collection(zone)}/${record.id}`, {
      body: { ssl: { certificate_authority: 'lets_encrypt' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.result).toMatchObject({
      status: 'pending',
      verification_errors: [NOT_CNAMED],
      ssl: { certificate_authority: 'lets_encrypt', status: 'pending_validation' },
    });
    await publish('moved2.customer.com', [{ type: 'CNAME', value: zone.name }]);
    expect((await read(zone, record.id)).body.result).toMatchObject({
      status: 'active',
      ssl: { certificate_authority: 'lets_encrypt', status: 'active' },
    });
  });

  test('a PATCH on a moved hostname whose DNS is back: active at once', async () => {
    const zone = await freshZone();
    const record = await activeThenMoved(zone, 'moved3.customer.com');
    await publish('moved3.customer.com', [{ type: 'CNAME', value: zone.name }]);
    const patched = await emu.api('PATCH', `${collection(zone)}/${record.id}`, { body: {} });
    expect(patched.status).toBe(200);
    expect(patched.body.result).toMatchObject({ status: 'active', verification_errors: [], ssl: { status: 'active' } });
  });

  test('7 days after it was first seen moved, the hostname is deleted', async () => {
    const zone = await freshZone();
    const record = await activeThenMoved(zone, 'moved4.customer.com');
    await advance(7 * 86400 - 5);
    expect(await status(zone, record.id)).toBe('moved');
    await advance(5);
    const gone = await read(zone, record.id);
    expect(gone.status).toBe(404);
    expect(gone.body.errors).toEqual([{ code: 1436, message: `custom hostname ${record.id} not found` }]);
    expect((await listAll(zone)).body.result).toEqual([]);
    expect((await emu.api('PATCH', `${collection(zone)}/${record.id}`, { body: {} })).status).toBe(404);
    expect((await create(zone, { hostname: 'moved4.customer.com', ssl: SSL })).status).toBe(200);
  });

  test('a moved hostname past 7 days disappears from the list without being read on its own', async () => {
    const zone = await freshZone();
    const record = await activeThenMoved(zone, 'moved5.customer.com');
    const kept = await created(zone, 'kept5.customer.com');
    await advance(7 * 86400);
    const list = await listAll(zone);
    expect(list.body.result.map((r: any) => r.id)).toEqual([kept.id]);
    expect(list.body.result_info).toEqual({ page: 1, per_page: 1000, count: 1, total_count: 1, total_pages: 1 });
    expect((await read(zone, record.id)).status).toBe(404);
  });
});

describe('edit', () => {
  test('changes ssl settings and restarts validation with the new CA', async () => {
    const zone = await freshZone();
    await publish('edit1.customer.com', [{ type: 'CNAME', value: zone.name }]);
    const record = await created(zone, 'edit1.customer.com');
    expect(record.ssl.certificate_authority).toBe('google');
    const patched = await emu.api('PATCH', `${collection(zone)}/${record.id}`, {
      body: {
        ssl: { method: 'http', certificate_authority: 'lets_encrypt' },
        hostname: 'other.customer.com',
        edgeguard_branding: true,
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.result).toEqual({
      ...record,
      ssl: { method: 'http', type: 'dv', certificate_authority: 'lets_encrypt', status: 'active' },
    });
    expect((await read(zone, record.id)).body.result).toEqual(patched.body.result);
  });

  test('an invalid edit: 400 naming the field, nothing changed', async () => {
    const zone = await freshZone();
    const record = await created(zone, 'edit2.customer.com');
    const patched = await emu.api('PATCH', `${collection(zone)}/${record.id}`, {
      body: { ssl: { certificate_authority: 'sectigo' } },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.errors[0]).toEqual({
      code: 1004,
      message: expect.stringMatching(/^ssl\.certificate_authority: must be one of/),
    });
    expect((await read(zone, record.id)).body.result).toEqual(record);
  });

  test('unknown id: 404 code 1436; malformed id: 400 code 7003; a record of another zone: 404', async () => {
    const zone = await freshZone();
    const other = await freshZone();
    const record = await created(other, 'edit3.customer.com');
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const options = method === 'PATCH' ? { body: {} } : {};
      const unknown = await emu.api(method, `${collection(zone)}/${'0'.repeat(32)}`, options);
      expect(unknown.status).toBe(404);
      expect(unknown.body.errors[0].code).toBe(1436);
      const malformed = await emu.api(method, `${collection(zone)}/nope`, options);
      expect(malformed.status).toBe(400);
      expect(malformed.body.errors[0]).toEqual({ code: 7003, message: expect.stringMatching(/^custom_hostname_id: /) });
      const foreign = await emu.api(method, `${collection(zone)}/${record.id}`, options);
      expect(foreign.status).toBe(404);
    }
    expect((await read(other, record.id)).status).toBe(200);
  });
});

describe('list and delete', () => {
  test('pages in creation order, ties by id, with result_info', async () => {
    const zone = await freshZone(still);
    const ascending = (ids: readonly string[]) => ids.every((id, i) => i === 0 || ids[i - 1]! < id);
    let n = 0;
    const make = async () => (await created(zone, `page${n++}.customer.com`, SSL, still)).id as string;
    // Created at one instant, so they tie on created_at and are listed by id. Made until their
    // creation order is not their id order, so that an order by creation alone cannot pass.
    const tied = [await make()];
    while (ascending(tied)) tied.push(await make());
    const expected = [...tied].sort();
    // Each later one a clock step apart (past the issuance window), listed in creation order after
    // the tied ones. Made until the whole order is not the id order, so ids alone cannot pass.
    do {
      await advance(61, still);
      expected.push(await make());
    } while (expected.length < tied.length + 2 || ascending(expected));
    const total = expected.length;

    const all = await listAll(zone, {}, still);
    expect(all.body.result.map((r: any) => r.id)).toEqual(expected);

    const page2 = await still.api('GET', collection(zone), { query: { page: 2, per_page: 2 } });
    expect(page2.status).toBe(200);
    expect(page2.body.result.map((r: any) => r.id)).toEqual(expected.slice(2, 4));
    expect(page2.body.result_info).toEqual({
      page: 2,
      per_page: 2,
      count: 2,
      total_count: total,
      total_pages: Math.ceil(total / 2),
    });

    const defaults = await still.api('GET', collection(zone));
    expect(defaults.body.result_info).toEqual({
      page: 1,
      per_page: 20,
      count: total,
      total_count: total,
      total_pages: 1,
    });

    const past = await still.api('GET', collection(zone), { query: { page: 99, per_page: 2 } });
    expect(past.body.result).toEqual([]);
    expect(past.body.result_info).toEqual({
      page: 99,
      per_page: 2,
      count: 0,
      total_count: total,
      total_pages: Math.ceil(total / 2),
    });
  });

  test('filters by exact hostname, case-insensitively', async () => {
    const zone = await freshZone();
    await created(zone, 'filter.customer.com');
    const wanted = await created(zone, 'sub.filter.customer.com');
    const hit = await emu.api('GET', collection(zone), { query: { hostname: 'SUB.filter.customer.com' } });
    expect(hit.body.result.map((r: any) => r.id)).toEqual([wanted.id]);
    expect(hit.body.result_info).toEqual({ page: 1, per_page: 20, count: 1, total_count: 1, total_pages: 1 });
    const miss = await emu.api('GET', collection(zone), { query: { hostname: 'customer.com' } });
    expect(miss.body.result).toEqual([]);
    expect(miss.body.result_info.total_count).toBe(0);
  });

  test.each([
    [{ per_page: 0 }, /^per_page: /],
    [{ per_page: 1001 }, /^per_page: /],
    [{ page: 0 }, /^page: /],
    [{ page: 'two' }, /^page: /],
  ])('bad paging %j: 400 naming the parameter', async (query, message) => {
    const zone = await freshZone();
    const reply = await emu.api('GET', collection(zone), { query });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0]).toEqual({ code: 1004, message: expect.stringMatching(message) });
  });

  test('delete answers {id}; afterwards the hostname is gone', async () => {
    const zone = await freshZone();
    const record = await created(zone, 'delete.customer.com');
    const deleted = await emu.api('DELETE', `${collection(zone)}/${record.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.result).toEqual({ id: record.id });
    expect((await read(zone, record.id)).status).toBe(404);
    expect((await emu.api('DELETE', `${collection(zone)}/${record.id}`)).status).toBe(404);
    expect((await listAll(zone)).body.result).toEqual([]);
    expect((await create(zone, { hostname: 'delete.customer.com', ssl: SSL })).status).toBe(200);
  });

  test('a method the URI does not have: 405', async () => {
    const zone = await freshZone();
    const reply = await emu.api('PUT', collection(zone), { body: {} });
    expect(reply.status).toBe(405);
  });
});

// The rules here are judged on the emulator's clock alone (`still`): a Retry-After is exact.
describe('certificate issuance limit', () => {
  async function createMany(zone: TestZone, prefix: string, count: number, on: TestEmulator = still): Promise<void> {
    for (let i = 0; i < count; i++) {
      const reply = await create(zone, { hostname: `${prefix}${i}.customer.com`, ssl: SSL }, on);
      expect(reply.status).toBe(200);
    }
  }

  function expectRefused(reply: Reply, retryAfter: number): void {
    expect(reply.status).toBe(429);
    expect(reply.body.result).toBeNull();
    expect(reply.body.errors).toEqual([{ code: 971, message: expect.stringContaining('certificate issuance') }]);
    expect(reply.headers['retry-after']).toBe(String(retryAfter));
  }

  test('15 creates per 60 s; the 16th starts a 30 s block; refused creates do not count; the block and window pass', async () => {
    const zone = await freshZone(still);
    await createMany(zone, 'limit-a', 15);

    expectRefused(await create(zone, { hostname: 'limit-a15.customer.com', ssl: SSL }, still), 30);
    await advance(10, still);
    expectRefused(await create(zone, { hostname: 'limit-a16.customer.com', ssl: SSL }, still), 20);
    // Body validation comes first, the limit before the duplicate check.
    expect((await create(zone, { hostname: 'bad_name.customer.com', ssl: SSL }, still)).status).toBe(400);
    expectRefused(await create(zone, { hostname: 'limit-a0.customer.com', ssl: SSL }, still), 20);
    expect((await listAll(zone, {}, still)).body.result).toHaveLength(15);

    // 65 s after the first creates the window has emptied; the refusal at +10 s would still be in
    // it if refused creates counted, and then only 14 creates would pass.
    await advance(55, still);
    await createMany(zone, 'limit-b', 15);
    expectRefused(await create(zone, { hostname: 'limit-b15.customer.com', ssl: SSL }, still), 30);
    expect((await listAll(zone, {}, still)).body.result).toHaveLength(30);
  });

  test('400 and 409 answers do not count toward the limit', async () => {
    const zone = await freshZone(still);
    await createMany(zone, 'limit-c', 14);
    expect((await create(zone, { hostname: 'limit-c0.customer.com', ssl: SSL }, still)).status).toBe(409);
    expect((await create(zone, { hostname: `${'x'.repeat(60)}.customer.com`, ssl: SSL }, still)).status).toBe(400);
    expect((await create(zone, { hostname: 'limit-c14.customer.com', ssl: SSL }, still)).status).toBe(200);
    expectRefused(await create(zone, { hostname: 'limit-c15.customer.com', ssl: SSL }, still), 30);
  });

  test('after the block, a window still full refuses again', async () => {
    const zone = await freshZone(still);
    await createMany(zone, 'limit-d', 15);
    expectRefused(await create(zone, { hostname: 'limit-d15.customer.com', ssl: SSL }, still), 30);
    await advance(31, still);
    expectRefused(await create(zone, { hostname: 'limit-d16.customer.com', ssl: SSL }, still), 30);
  });

  test('the limit is per zone', async () => {
    const blocked = await freshZone(still);
    const other = await freshZone(still);
    await createMany(blocked, 'limit-e', 15);
    expectRefused(await create(blocked, { hostname: 'limit-e15.customer.com', ssl: SSL }, still), 30);
    expect((await create(other, { hostname: 'limit-e15.customer.com', ssl: SSL }, still)).status).toBe(200);
    expect(
      (await still.api('POST', collection(ZONE_ID), { body: { hostname: 'limit-e15.customer.com', ssl: SSL } })).status,
    ).toBe(200);
  });

  test('a restart keeps the block and the window', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-custom-hostnames-'));
    try {
      const first = await startTestEmulator({ dataDir, now: () => FROZEN_NOW_MS });
      let zone: TestZone;
      try {
        zone = await freshZone(first);
        await createMany(zone, 'restart', 15, first);
        expectRefused(await create(zone, { hostname: 'restart15.customer.com', ssl: SSL }, first), 30);
        await advance(10, first);
      } finally {
        await first.close();
      }

      const second = await startTestEmulator({ dataDir, now: () => FROZEN_NOW_MS });
      try {
        // The block's end and the clock's offset survived: 20 s are left of it (a new block would say 30).
        expectRefused(await create(zone, { hostname: 'restart15.customer.com', ssl: SSL }, second), 20);
        const list = await second.api('GET', collection(zone), { query: { per_page: 100 } });
        expect(list.body.result).toHaveLength(15);

        await advance(21, second);
        expectRefused(await create(zone, { hostname: 'restart16.customer.com', ssl: SSL }, second), 30);
        await advance(60, second);
        expect((await create(zone, { hostname: 'restart17.customer.com', ssl: SSL }, second)).status).toBe(200);
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
