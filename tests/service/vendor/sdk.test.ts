import Cloudflare from 'cloudflare';
import { DEMO } from '../../../emulator/seed/demo';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { loadVendorShapes, VENDOR_SDK, type VendorShapes } from '../../helpers/vendor-shapes';

/**
 * The vendor's official SDK (npm `cloudflare` 7.1.0) against the emulator in the vendor's dialect,
 * its base address the emulator's and no path rewritten (issue 42): page security settings,
 * scripts, connections and cookies, CSP policies, custom hostnames, pools and alert policies.
 * Afterwards every request it sent (the emulator's log keeps each one's query and JSON body) passes
 * the vendor-shape checker, and every answer the emulator gave validates against the SDK's
 * declared response type of its operation.
 */

const POOL_A = 'b0000000000000000000000000000001';
const POOL_B = 'b0000000000000000000000000000002';

/** One exchange as the SDK's fetch saw it. */
interface Exchange {
  method: string;
  url: string;
  status: number;
  body: unknown;
}

/** A fetch for the SDK that records into `exchanges` what the emulator answered, before the SDK unwraps it. */
function recordingInto(exchanges: Exchange[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const text = await response.clone().text();
    exchanges.push({
      method: init?.method ?? 'GET',
      url: String(input instanceof Request ? input.url : input),
      status: response.status,
      body: text === '' ? undefined : JSON.parse(text),
    });
    return response;
  };
}

/** Every way the recorded answers break the SDK's response types of their operations. */
function answerProblemsOf(exchanges: readonly Exchange[]): string[] {
  return exchanges.flatMap((exchange) => {
    const matched = shapes.match(exchange.method, new URL(exchange.url).pathname);
    return matched
      ? shapes.answerProblems(matched.operation.id, exchange.status, exchange.body)
      : [`${exchange.method} ${exchange.url}: no vendor operation`];
  });
}

let emu: TestEmulator;
let shapes: VendorShapes;
let sdk: Cloudflare;
const exchanges: Exchange[] = [];

beforeAll(async () => {
  shapes = loadVendorShapes();
  emu = await startTestEmulator({ dialect: 'vendor' });
  await emu.seed({
    scripts: [
      { zone_id: ZONE_ID, url: 'https://cdn.example.com/a.js', page_urls: ['https://example.com/checkout'] },
      { zone_id: ZONE_ID, url: 'https://cdn.example.com/b.js' },
    ],
    connections: [{ zone_id: ZONE_ID, url: 'https://collect.example.com/c' }],
    cookies: [{ zone_id: ZONE_ID, name: 'session' }],
    pools: [
      { account_id: ACCOUNT_ID, id: POOL_A, name: 'eu-west', notification_email: 'noc@example.com' },
      { account_id: ACCOUNT_ID, id: POOL_B, name: 'us-east', notification_email: 'noc@example.com' },
    ],
  });
  sdk = new Cloudflare({ apiToken: TEST_TOKEN, baseURL: emu.baseUrl, maxRetries: 0, fetch: recordingInto(exchanges) });
}, 120_000);
afterAll(async () => emu?.close());

test(`the SDK (${VENDOR_SDK.name} ${VENDOR_SDK.version}) runs every operation EdgeGuard uses against the emulator`, async () => {
  const zone_id = ZONE_ID;
  const account_id = ACCOUNT_ID;
  const mark = emu.mark();

  // Page security settings.
  expect(await sdk.pageShield.get({ zone_id })).toMatchObject({
    enabled: false,
    use_cloudflare_reporting_endpoint: true,
  });
  expect(await sdk.pageShield.update({ zone_id, enabled: true })).toMatchObject({ enabled: true });

  // Scripts, connections, cookies: list and get.
  const scripts = [];
  for await (const script of sdk.pageShield.scripts.list({ zone_id, per_page: 100, page_url: 'example.com/checkout*' }))
    scripts.push(script);
  expect(scripts.map((s) => s.url)).toEqual(['https://cdn.example.com/a.js']);
  expect(await sdk.pageShield.scripts.get(scripts[0]!.id, { zone_id })).toMatchObject({
    page_urls: ['https://example.com/checkout'],
  });
  const connections = [];
  for await (const connection of sdk.pageShield.connections.list({ zone_id })) connections.push(connection);
  expect(connections).toHaveLength(1);
  expect(await sdk.pageShield.connections.get(connections[0]!.id, { zone_id })).toMatchObject({
    url: 'https://collect.example.com/c',
  });
  const cookies = [];
  for await (const cookie of sdk.pageShield.cookies.list({ zone_id, per_page: 100 })) cookies.push(cookie);
  expect(cookies.map((c) => c.name)).toEqual(['session']);
  expect(await sdk.pageShield.cookies.get(cookies[0]!.id, { zone_id })).toMatchObject({ name: 'session' });

  // CSP policies: create, list, get, update, delete.
  const policy = await sdk.pageShield.policies.create({
    zone_id,
    action: 'log',
    description: 'Checkout page CSP policy',
    enabled: true,
    expression: 'http.host eq "shop.example.com"',
    value: "script-src 'none';",
  });
  expect(policy).toMatchObject({ action: 'log', enabled: true });
  const policies = [];
  for await (const listed of sdk.pageShield.policies.list({ zone_id })) policies.push(listed);
  expect(policies.map((p) => p.id)).toEqual([policy!.id]);
  expect(await sdk.pageShield.policies.update(policy!.id, { zone_id, enabled: false })).toMatchObject({
    enabled: false,
  });
  expect(await sdk.pageShield.policies.get(policy!.id, { zone_id })).toMatchObject({ enabled: false, action: 'log' });
  await sdk.pageShield.policies.delete(policy!.id, { zone_id });

  // Custom hostnames: create (branded, the CA left out), list by hostname.exact, get, edit, delete.
  const hostname = `${'a'.repeat(60)}.shop.example.net`;
  const created = await sdk.customHostnames.create({
    zone_id,
    hostname,
    ssl: { method: 'txt', type: 'dv', cloudflare_branding: true },
  });
  expect(created).toMatchObject({ hostname, status: 'pending', ssl: { status: 'pending_validation' } });
  const page = await sdk.customHostnames.list({ zone_id, hostname: { exact: hostname }, per_page: 50 });
  expect(page.result.map((h) => h.id)).toEqual([created.id]);
  expect(await sdk.customHostnames.get(created.id, { zone_id })).toMatchObject({ hostname });
  expect(
    await sdk.customHostnames.edit(created.id, {
      zone_id,
      ssl: { method: 'http', certificate_authority: 'lets_encrypt' },
    }),
  ).toMatchObject({ ssl: { method: 'http', certificate_authority: 'lets_encrypt' } });
  expect(await sdk.customHostnames.delete(created.id, { zone_id })).toEqual({ id: created.id });

  // Pools: list, one bulk PATCH for all.
  const pools = [];
  for await (const pool of sdk.loadBalancers.pools.list({ account_id })) pools.push(pool);
  expect(pools.map((p) => p.notification_email)).toEqual(['noc@example.com', 'noc@example.com']);
  const patched = [];
  for await (const pool of sdk.loadBalancers.pools.bulkEdit({ account_id, notification_email: '' })) patched.push(pool);
  expect(patched.map((p) => [p.id, p.notification_email])).toEqual([
    [POOL_A, ''],
    [POOL_B, ''],
  ]);

  // Alert policies: create, list, get, update, delete.
  const alert = await sdk.alerting.policies.create({
    account_id,
    name: 'Pool health',
    alert_type: 'load_balancing_health_alert',
    enabled: true,
    mechanisms: { email: [{ id: 'ops@example.com' }], webhooks: [{ id: '0da2b59e-f118-439d-8097-bdfb215203c9' }] },
    filters: { pool_id: [POOL_A, POOL_B], new_health: ['Unhealthy'], event_source: ['pool'] },
  });
  expect(alert.id).toMatch(/^[0-9a-f-]{36}$/);
  const alerts = [];
  for await (const listed of sdk.alerting.policies.list({ account_id })) alerts.push(listed);
  expect(alerts.map((a) => a.id)).toEqual([alert.id]);
  expect(await sdk.alerting.policies.update(alert.id!, { account_id, enabled: false })).toEqual({ id: alert.id });
  expect(await sdk.alerting.policies.get(alert.id!, { account_id })).toMatchObject({
    enabled: false,
    name: 'Pool health',
  });
  expect(await sdk.alerting.policies.delete(alert.id!, { account_id })).toMatchObject({ success: true });

  // Every request the SDK sent passes the checker; every answer validates against its response type.
  const logged = await emu.requests(mark);
  expect(logged).toHaveLength(exchanges.length);
  const operations = new Set<string>();
  const problems = logged.flatMap((entry) => {
    operations.add(shapes.match(entry.method, entry.path)?.operation.id ?? `${entry.method} ${entry.path}`);
    return shapes.requestProblems(entry);
  });
  problems.push(...answerProblemsOf(exchanges));
  expect(problems).toEqual([]);
  expect([...operations].sort()).toEqual(
    shapes.operations
      .map((o) => o.id)
      .filter((id) => id !== 'loadBalancers.pools.get' && id !== 'loadBalancers.pools.edit')
      .sort(),
  );
});

test('over the demo world, every object the SDK lists or gets is of the shape its response type declares', async () => {
  const demo = await startTestEmulator({ dialect: 'vendor', seed: 'demo', fixture: false, apiRateLimit: 'off' });
  try {
    const seen: Exchange[] = [];
    const client = new Cloudflare({
      apiToken: TEST_TOKEN,
      baseURL: demo.baseUrl,
      maxRetries: 0,
      fetch: recordingInto(seen),
    });
    const zone_id = DEMO.zoneId;
    await client.pageShield.get({ zone_id });
    for (const status of ['active', 'infrequent']) {
      for (let page = 1; ; page++) {
        const scripts = await client.pageShield.scripts.list({ zone_id, status, per_page: 100, page: String(page) });
        for (const script of scripts.result) await client.pageShield.scripts.get(script.id, { zone_id });
        const connections = await client.pageShield.connections.list({
          zone_id,
          status,
          per_page: 100,
          page: String(page),
        });
        for (const connection of connections.result)
          await client.pageShield.connections.get(connection.id, { zone_id });
        if (scripts.result.length < 100 && connections.result.length < 100) break;
      }
    }
    const cookies = await client.pageShield.cookies.list({ zone_id, per_page: 100 });
    for (const cookie of cookies.result) await client.pageShield.cookies.get(cookie.id, { zone_id });
    await client.pageShield.policies.list({ zone_id });
    await client.customHostnames.list({ zone_id, per_page: 50 });
    await client.loadBalancers.pools.list({ account_id: DEMO.accountId });
    await client.alerting.policies.list({ account_id: DEMO.accountId });
    expect(seen.length).toBeGreaterThan(20);
    const problems = answerProblemsOf(seen);
    expect(problems).toEqual([]);
  } finally {
    await demo.close();
  }
});
