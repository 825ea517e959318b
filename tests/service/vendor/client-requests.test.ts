import {
  customHostnames,
  HttpClient,
  loadBalancing,
  notifications,
  pageSecurity,
  resolveSettings,
} from '../../../provider/client';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { loadVendorShapes, type VendorShapes } from '../../helpers/vendor-shapes';

/**
 * EdgeGuard's own client (`provider/client/`) in the vendor's dialect against the emulator in the
 * vendor's dialect, every operation it has; afterwards every request it sent, as the emulator's log
 * kept it (query and JSON body), must pass the vendor-shape checker, and none may be refused
 * (issue 42, "Done when": 0 requests that the vendor's schema refuses).
 *
 * The client speaks the vendor's dialect through the `dialect` setting (`edgeguard:dialect` /
 * `EDGEGUARD_DIALECT`).
 */

const POOL_A = 'b0000000000000000000000000000001';
const POOL_B = 'b0000000000000000000000000000002';

let emu: TestEmulator;
let shapes: VendorShapes;
let client: HttpClient;

describe('the client in the vendor dialect', () => {
  beforeAll(async () => {
    shapes = loadVendorShapes();
    emu = await startTestEmulator({ dialect: 'vendor' });
    await emu.seed({
      scripts: [{ zone_id: ZONE_ID, url: 'https://cdn.example.com/a.js', page_urls: ['https://example.com/checkout'] }],
      connections: [{ zone_id: ZONE_ID, url: 'https://collect.example.com/c' }],
      cookies: [{ zone_id: ZONE_ID, name: 'session' }],
      pools: [
        { account_id: ACCOUNT_ID, id: POOL_A, name: 'eu-west', notification_email: 'noc@example.com' },
        { account_id: ACCOUNT_ID, id: POOL_B, name: 'us-east', notification_email: 'noc@example.com' },
      ],
    });
    // The dialect as the settings table will read it (its name is vclient's); the vendor token is
    // left to the dialect's default.
    client = new HttpClient(
      resolveSettings({
        explicit: { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN },
        env: { EDGEGUARD_DIALECT: 'vendor' },
      }),
      { maxAttempts: 1 },
    );
  }, 120_000);
  afterAll(async () => emu?.close());

  test('every request of every operation is one the vendor declares, and none is refused', async () => {
    const mark = emu.mark();
    const zone = ZONE_ID;
    const account = ACCOUNT_ID;

    await pageSecurity.getSettings(client, zone);
    await pageSecurity.updateSettings(client, zone, { enabled: true });
    for (const list of [
      () => pageSecurity.listScripts(client, zone, { pageUrl: ['example.com/checkout*'] }, 100),
      () => pageSecurity.listConnections(client, zone, {}, 100),
      () => pageSecurity.listCookies(client, zone, {}, 100),
    ]) {
      for await (const _item of list()) void _item;
    }
    const [script] = await collect(pageSecurity.listScripts(client, zone, {}, 100));
    await pageSecurity.getScript(client, zone, script!.id);
    const [connection] = await collect(pageSecurity.listConnections(client, zone, {}, 100));
    await pageSecurity.getConnection(client, zone, connection!.id);
    const [cookie] = await collect(pageSecurity.listCookies(client, zone, {}, 100));
    await pageSecurity.getCookie(client, zone, cookie!.id);

    const policy = await pageSecurity.createPolicy(client, zone, {
      description: 'checkout',
      action: 'log',
      expression: 'http.host eq "example.com"',
      enabled: 'true',
      value: "script-src 'self'",
    });
    await pageSecurity.listPolicies(client, zone);
    await pageSecurity.getPolicy(client, zone, policy.id);
    await pageSecurity.updatePolicy(client, zone, policy.id, {
      description: 'checkout',
      action: 'log',
      expression: 'http.host eq "example.com"',
      enabled: 'false',
      value: "script-src 'self'",
    });
    await pageSecurity.deletePolicy(client, zone, policy.id);

    const hostname = `${'a'.repeat(60)}.shop.example.net`;
    const created = await customHostnames.createCustomHostname(client, zone, {
      hostname,
      ssl: { method: 'txt', type: 'dv', certificate_authority: '' },
      branding: true,
    });
    await customHostnames.findCustomHostname(client, zone, hostname);
    await customHostnames.getCustomHostname(client, zone, created.id);
    await customHostnames.editCustomHostname(client, zone, created.id, { ssl: { method: 'http', type: 'dv' } });
    await customHostnames.deleteCustomHostname(client, zone, created.id);

    await loadBalancing.listPools(client, { accountId: account });
    // The vendor's bulk edit has no paging: one request edits every pool.
    await loadBalancing.bulkEditPools(client, { accountId: account, notificationEmail: '' });

    const policyBody = {
      name: 'Pool health',
      description: '',
      enabled: true,
      alert_type: 'load_balancing_health_alert',
      mechanisms: { email: [{ id: 'ops@example.com' }] },
      filters: { pool_id: [POOL_A] },
    };
    const alertId = await notifications.createAlertPolicy(client, { accountId: account, policy: policyBody });
    await notifications.listAlertPolicies(client, { accountId: account });
    await notifications.getAlertPolicy(client, { accountId: account, policyId: alertId });
    await notifications.updateAlertPolicy(client, {
      accountId: account,
      policyId: alertId,
      policy: { ...policyBody, enabled: false },
    });
    await notifications.deleteAlertPolicy(client, { accountId: account, policyId: alertId });

    const logged = await emu.requests(mark);
    expect(logged.filter((entry) => entry.status === null || entry.status >= 400)).toEqual([]);
    expect(logged.flatMap((entry) => shapes.requestProblems(entry))).toEqual([]);
  });
});

async function collect<T>(items: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
