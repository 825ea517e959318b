import { LIST_PAGE_BOUNDS } from '../../../rules/dialect';
import { ACCOUNT_ID, startTestEmulator, ZONE_ID, ZONE_NAME, type TestEmulator } from '../../helpers/emulator';

/**
 * The emulator in the vendor's dialect (`dialect: 'vendor'`; contract, "Two dialects"; issue 42):
 * the vendor's paths and shapes with the same rules, limits and filters as `spec`. Whether those
 * shapes are the vendor's is checked against its SDK's declared types in `tests/service/vendor/`;
 * here each difference from `spec` is shown, beside what stays the same.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PS = `zones/${ZONE_ID}/page_shield`;
const POLICY = {
  description: 'checkout',
  action: 'log',
  expression: 'http.host eq "example.com"',
  value: "script-src 'self'",
};
const POOL_A = 'b0000000000000000000000000000001';
const POOL_B = 'b0000000000000000000000000000002';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ dialect: 'vendor' });
  await emu.seed({
    scripts: [
      { zone_id: ZONE_ID, url: 'https://cdn.example.com/a.js', page_urls: ['https://example.com/checkout'] },
      { zone_id: ZONE_ID, url: 'https://cdn.example.com/b.js', status: 'infrequent' },
    ],
    connections: [{ zone_id: ZONE_ID, url: 'https://collect.example.com/c' }],
    cookies: [
      { zone_id: ZONE_ID, name: 'session', max_age_attribute: null },
      { zone_id: ZONE_ID, name: 'tracker', type: 'third_party', max_age_attribute: 3600 },
    ],
    pools: [
      { account_id: ACCOUNT_ID, id: POOL_A, name: 'eu-west', notification_email: 'noc@example.com' },
      { account_id: ACCOUNT_ID, id: POOL_B, name: 'us-east', notification_email: 'noc@example.com' },
    ],
  });
});
afterAll(async () => emu.close());

/** The vendor's settings object (its `Setting`), the reporting endpoint on as never written. */
function vendorSettings(flags: { enabled: boolean; use_connection_url_path: boolean }) {
  return { ...flags, updated_at: expect.any(String), use_cloudflare_reporting_endpoint: true };
}

describe('page security at the vendor path', () => {
  test('page_shield is served and page_security is not', async () => {
    expect((await emu.api('GET', PS)).status).toBe(200);
    expect((await emu.api('GET', `zones/${ZONE_ID}/page_security`)).status).toBe(404);
  });

  test('the settings answer the vendor token cloudflare by default; an update takes any of the three flags and answers them all', async () => {
    const before = await emu.api('GET', PS);
    expect(before.body.result).toEqual(vendorSettings({ enabled: false, use_connection_url_path: false }));
    const updated = await emu.api('PUT', PS, { body: { use_connection_url_path: true } });
    expect(updated.status).toBe(200);
    expect(updated.body.result).toEqual(vendorSettings({ enabled: false, use_connection_url_path: true }));
    const enabled = await emu.api('PUT', PS, { body: { enabled: true } });
    expect(enabled.body.result).toMatchObject({ enabled: true, use_connection_url_path: true });
    const wrong = await emu.api('PUT', PS, { body: { enabled: 'yes' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].message).toMatch(/^enabled: must be a JSON boolean/);
  });

  test('lists show no status (the vendor declares none) and still filter by it; a cookie has no first_page_url nor a null max_age_attribute, and a third-party one is of type unknown', async () => {
    const active = await emu.api('GET', `${PS}/scripts`);
    expect(active.body.result.map((s: any) => s.url)).toEqual(['https://cdn.example.com/a.js']);
    expect(active.body.result[0]).not.toHaveProperty('status');
    const infrequent = await emu.api('GET', `${PS}/scripts`, { query: { status: 'infrequent' } });
    expect(infrequent.body.result.map((s: any) => s.url)).toEqual(['https://cdn.example.com/b.js']);
    const one = await emu.api('GET', `${PS}/scripts/${active.body.result[0].id}`);
    expect(one.body.result).toMatchObject({ page_urls: ['https://example.com/checkout'], versions: expect.any(Array) });
    expect(one.body.result).not.toHaveProperty('status');
    const connections = await emu.api('GET', `${PS}/connections`);
    expect(connections.body.result).toHaveLength(1);
    expect(connections.body.result[0]).not.toHaveProperty('status');
    const cookies = await emu.api('GET', `${PS}/cookies`);
    expect(cookies.body.result[0]).toMatchObject({ name: 'session', host: ZONE_NAME, type: 'first_party' });
    for (const field of ['status', 'first_page_url', 'max_age_attribute'])
      expect(cookies.body.result[0]).not.toHaveProperty(field);
    // The vendor's cookie types are first_party and unknown.
    expect(cookies.body.result[1]).toMatchObject({ name: 'tracker', type: 'unknown', max_age_attribute: 3600 });
  });

  test.each(['scripts', 'connections', 'cookies'])(
    'the %s list takes per_page up to the vendor bound, 100, and answers a 400 naming per_page past it',
    async (kind) => {
      const { max } = LIST_PAGE_BOUNDS.vendor.pageSecurity;
      const within = await emu.api('GET', `${PS}/${kind}`, { query: { per_page: max } });
      expect(within.status).toBe(200);
      expect(within.body.result_info.per_page).toBe(max);
      const past = await emu.api('GET', `${PS}/${kind}`, { query: { per_page: max + 1 } });
      expect(past.status).toBe(400);
      expect(past.body.errors[0].message).toBe('per_page: must be a whole number from 1 to 100');
    },
  );

  test("status is the vendor's comma-separated list: active and infrequent merged in list order, inactive none, an unknown one a 400", async () => {
    const both = await emu.api('GET', `${PS}/scripts`, { query: { status: 'infrequent,active' } });
    expect(both.status).toBe(200);
    expect(both.body.result.map((s: any) => s.url).sort()).toEqual([
      'https://cdn.example.com/a.js',
      'https://cdn.example.com/b.js',
    ]);
    expect(both.body.result_info).toMatchObject({ count: 2, total_count: 2 });
    const ordered = [...both.body.result].sort((a: any, b: any) =>
      a.first_seen_at === b.first_seen_at ? (a.id < b.id ? -1 : 1) : a.first_seen_at < b.first_seen_at ? -1 : 1,
    );
    expect(both.body.result).toEqual(ordered);
    const inactive = await emu.api('GET', `${PS}/connections`, { query: { status: 'inactive' } });
    expect(inactive.status).toBe(200);
    expect(inactive.body.result).toEqual([]);
    const unknown = await emu.api('GET', `${PS}/cookies`, { query: { status: 'active,deleted' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].message).toMatch(/^status\[1\]: must be one of "active", "infrequent", "inactive"/);
  });

  test('the same filters as spec: page_url, hosts', async () => {
    const onCheckout = await emu.api('GET', `${PS}/scripts`, { query: { page_url: 'example.com/checkout' } });
    expect(onCheckout.body.result.map((s: any) => s.url)).toEqual(['https://cdn.example.com/a.js']);
    const elsewhere = await emu.api('GET', `${PS}/scripts`, { query: { page_url: 'example.com/cart' } });
    expect(elsewhere.body.result).toEqual([]);
  });

  test('policies: enabled is a boolean (the string refused), add_reporting_directives is an action, an update takes any field, a delete is 204 with no body', async () => {
    const created = await emu.api('POST', `${PS}/policies`, { body: { ...POLICY, enabled: true } });
    expect(created.status).toBe(200);
    expect(created.body.result).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), ...POLICY, enabled: true });
    const path = `${PS}/policies/${created.body.result.id}`;
    const updated = await emu.api('PUT', path, { body: { enabled: false, action: 'add_reporting_directives' } });
    expect(updated.status).toBe(200);
    expect(updated.body.result).toEqual({ ...created.body.result, enabled: false, action: 'add_reporting_directives' });
    const listed = await emu.api('GET', `${PS}/policies`);
    expect(listed.body.result).toContainEqual(updated.body.result);
    const bad = await emu.api('PUT', path, { body: { value: "script-src 'nope" } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toMatch(/^value: /);
    // The spec's string form of enabled is no value of the vendor's boolean, on a create or an update.
    const stringCreate = await emu.api('POST', `${PS}/policies`, { body: { ...POLICY, enabled: 'true' } });
    expect(stringCreate.status).toBe(400);
    expect(stringCreate.body.errors[0].message).toMatch(/^enabled: must be a JSON boolean/);
    const stringUpdate = await emu.api('PUT', path, { body: { enabled: 'false' } });
    expect(stringUpdate.status).toBe(400);
    expect(stringUpdate.body.errors[0].message).toMatch(/^enabled: must be a JSON boolean/);
    expect((await emu.api('GET', path)).body.result.enabled).toBe(false);
    const deleted = await emu.api('DELETE', path, {
      headers: { authorization: 'Bearer test-token-0123456789', 'content-type': 'application/json' },
    });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect((await emu.api('GET', path)).status).toBe(404);
  });
});

describe('custom hostnames', () => {
  const CH = `zones/${ZONE_ID}/custom_hostnames`;
  const long = `${'a'.repeat(60)}.shop.example.net`;

  test('branding is ssl.cloudflare_branding, read and returned there; a top-level one is not read', async () => {
    const topLevel = await emu.api('POST', CH, {
      body: { hostname: long, ssl: { method: 'txt', type: 'dv' }, cloudflare_branding: true },
    });
    expect(topLevel.status).toBe(400);
    expect(topLevel.body.errors[0]).toEqual({
      code: 1469,
      message: expect.stringContaining('set ssl.cloudflare_branding to true'),
    });
    const branded = await emu.api('POST', CH, {
      body: { hostname: long, ssl: { method: 'txt', type: 'dv', cloudflare_branding: true } },
    });
    expect(branded.status).toBe(200);
    expect(branded.body.result).toMatchObject({
      hostname: long,
      ssl: { cloudflare_branding: true, certificate_authority: 'google' },
    });
    expect(branded.body.result).not.toHaveProperty('cloudflare_branding');
  });

  test('the certificate authority "" is no value there: left out, the service chooses', async () => {
    const empty = await emu.api('POST', CH, {
      body: { hostname: 'empty-ca.example.net', ssl: { method: 'txt', type: 'dv', certificate_authority: '' } },
    });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].message).toMatch(
      /^ssl\.certificate_authority: must be one of "google", "lets_encrypt"/,
    );
    const chosen = await emu.api('POST', CH, {
      body: { hostname: 'no-ca.example.net', ssl: { method: 'txt', type: 'dv' } },
    });
    expect(chosen.status).toBe(200);
    expect(chosen.body.result.ssl).toMatchObject({
      certificate_authority: 'google',
      status: 'pending_validation',
      cloudflare_branding: false,
    });
  });

  test('CAA forbidding every CA: pending, ssl pending_validation, the reason in ssl.validation_errors (the vendor has no caa_error)', async () => {
    await emu.control('POST', 'dns', {
      hostname: 'caa.customer.com',
      records: [
        { type: 'CNAME', value: ZONE_NAME },
        { type: 'CAA', value: '0 issue "digicert.com"' },
      ],
    });
    const created = await emu.api('POST', CH, {
      body: { hostname: 'caa.customer.com', ssl: { method: 'txt', type: 'dv' } },
    });
    expect(created.body.result).toMatchObject({
      status: 'pending',
      ssl: {
        status: 'pending_validation',
        validation_errors: [{ message: expect.stringContaining('permit neither google') }],
      },
    });
  });

  test('the list takes hostname.exact and per_page 5..50; a delete answers a bare {id}', async () => {
    const created = await emu.api('POST', CH, {
      body: { hostname: 'listed.example.net', ssl: { method: 'http', type: 'dv' } },
    });
    const exact = await emu.api('GET', CH, { query: { 'hostname.exact': 'LISTED.example.net', per_page: 5 } });
    expect(exact.status).toBe(200);
    expect(exact.body.result.map((h: any) => h.id)).toEqual([created.body.result.id]);
    for (const perPage of [4, 51]) {
      const out = await emu.api('GET', CH, { query: { per_page: perPage } });
      expect(out.status).toBe(400);
      expect(out.body.errors[0].message).toBe('per_page: must be a whole number from 5 to 50');
    }
    const deleted = await emu.api('DELETE', `${CH}/${created.body.result.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: created.body.result.id });
  });
});

describe('pools and alert policies', () => {
  test('the bulk PATCH changes every pool of the account at once, paging parameters or not', async () => {
    const patched = await emu.api('PATCH', `accounts/${ACCOUNT_ID}/load_balancers/pools`, {
      body: { notification_email: '' },
      query: { per_page: 1 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.result.map((p: any) => [p.id, p.notification_email])).toEqual([
      [POOL_A, ''],
      [POOL_B, ''],
    ]);
  });

  test('a new alert policy has a UUID id, takes a UUID webhook, is updated in part and deleted with an envelope without result', async () => {
    const base = `accounts/${ACCOUNT_ID}/alerting/v3/policies`;
    const webhook = '0da2b59e-f118-439d-8097-bdfb215203c9';
    const created = await emu.api('POST', base, {
      body: {
        name: 'Pool health',
        enabled: true,
        alert_type: 'load_balancing_health_alert',
        mechanisms: { webhooks: [{ id: webhook }] },
        filters: { pool_id: [POOL_A] },
      },
    });
    expect(created.status).toBe(200);
    expect(created.body.result.id).toMatch(UUID);
    const path = `${base}/${created.body.result.id}`;
    const updated = await emu.api('PUT', path, { body: { enabled: false } });
    expect(updated.status).toBe(200);
    const read = await emu.api('GET', path);
    expect(read.body.result).toMatchObject({
      name: 'Pool health',
      enabled: false,
      mechanisms: { webhooks: [{ id: webhook }] },
    });
    const badWebhook = await emu.api('PUT', path, { body: { mechanisms: { webhooks: [{ id: 'not-an-id' }] } } });
    expect(badWebhook.status).toBe(400);
    expect(badWebhook.body.errors[0].message).toMatch(/^mechanisms\.webhooks\[0\]\.id: /);
    const deleted = await emu.api('DELETE', path);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, errors: [], messages: [] });
    expect((await emu.api('GET', path)).status).toBe(404);
    expect((await emu.api('GET', `${base}/not-a-uuid`)).status).toBe(400);
  });
});

test('--vendor still names the token in the vendor dialect', async () => {
  const named = await startTestEmulator({ dialect: 'vendor', vendor: 'acme' });
  try {
    const settings = await named.api('GET', PS);
    expect(settings.body.result).toHaveProperty('use_acme_reporting_endpoint', true);
  } finally {
    await named.close();
  }
});
