import * as fs from 'node:fs';
import * as path from 'node:path';
import { engineStack, failureOf, type EngineStack, type OperationResult } from '../../helpers/engine';
import { REPO } from '../../helpers/repo';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { CHECKOUT_VALUE, FLAGSHIP_HOSTNAME, FLAGSHIP_RESOURCES, STOREFRONT_VALUE } from '../../helpers/flagship';
import { DEMO, demoSeed } from '../../../emulator/seed/demo';

/**
 * The root project (the flagship program) through the real engine. The tests share one stack and
 * run in order: create (the custom hostname active in the same up, its ownership record published
 * by the command), outputs, drift (a hostname that moved revalidated with one PATCH), bad input,
 * credentials, destroy; then a second stack whose token is a secret stack configuration and that
 * plays a real service (no emulator DNS for the command).
 */

const TOKEN = 'e2e-flagship-token-3f9a27c1';
/** The emulator's control API token: it reaches the command through the environment, never the state. */
const ADMIN_TOKEN = 'e2e-flagship-admin-token-51c0d8e3';
const ZONE = DEMO.zoneId;
const ACCOUNT = DEMO.accountId;
const HOSTNAME = FLAGSHIP_HOSTNAME;
/** What page security detects on the checkout's payment pages, judged by the inventory (flagship.ts). */
const PAYMENT_PAGE_SCRIPTS = [
  'https://checkout.example.com/js/payment.js: unchanged',
  'https://js.stripe.com/v3/fingerprinted/js/elements.js: unchanged',
  'https://www.google.com/recaptcha/api.js: unchanged',
];
/** The demo's scripts below the malicious threshold of 10 (emulator/seed/demo.ts), as the program prints them. */
const DEMO_MALICIOUS = [
  'shop.example.com: https://cdn-jquery-min.example.org/jquery-3.7.1.min.js (js_integrity_score 4)',
  'checkout.example.com: https://analytics-cdn.example.info/collect.min.js (js_integrity_score 7)',
  'blog.example.com: https://fonts-loader.example.biz/loader.js (js_integrity_score 9)',
];
/** The demo's pools and their legacy e-mails, name → address. */
const DEMO_POOL_EMAILS: Record<string, string> = Object.fromEntries(
  (demoSeed().pools ?? []).map((pool) => [String(pool.name), String(pool.notification_email)]),
);

let emu: TestEmulator;
let engine: EngineStack;
/** The emulator's page security setting of the zone before the stack existed. */
let enabledBefore: boolean;
/** The first update, whose outputs the tests after it read (nothing changes the stack in between). */
let created: OperationResult;

async function ok<T = any>(method: string, apiPath: string, body?: unknown): Promise<T> {
  const reply = await emu.api(method, apiPath, body !== undefined ? { body } : {});
  if (reply.status !== 200) throw new Error(`${method} ${apiPath}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.result as T;
}

const policies = () => ok<any[]>('GET', `zones/${ZONE}/page_security/policies`);
const pools = () => ok<any[]>('GET', `accounts/${ACCOUNT}/load_balancers/pools`);
const alertPolicies = () => ok<any[]>('GET', `accounts/${ACCOUNT}/alerting/v3/policies`);
const customHostnames = () => ok<any[]>('GET', `zones/${ZONE}/custom_hostnames`);
const hostnameRecord = async () => {
  const found = (await emu.api('GET', `zones/${ZONE}/custom_hostnames?hostname=${HOSTNAME}`)).body.result as any[];
  expect(found).toHaveLength(1);
  return found[0];
};

async function publishDns(records: Array<{ type: string; name?: string; value: string }>): Promise<void> {
  const reply = await emu.control('POST', 'dns', { hostname: HOSTNAME, records });
  expect(reply.status).toBe(200);
}

/** What the emulator's DNS holds, as `TYPE name value` lines, sorted. */
async function dnsRecords(on: TestEmulator = emu): Promise<string[]> {
  const reply = await on.control('GET', 'dns');
  expect(reply.status).toBe(200);
  return (reply.body.result as Array<{ records: Array<{ type: string; name: string; value: string }> }>)
    .flatMap((entry) => entry.records.map((r) => `${r.type} ${r.name} ${r.value}`))
    .sort();
}

/** `METHOD path` of the writes after `mark`, the path below `/client/v4/`, sorted. */
async function writes(mark: number, on: TestEmulator = emu): Promise<string[]> {
  const query = (q: Record<string, unknown>) =>
    Object.keys(q).length > 0 ? `?${new URLSearchParams(q as Record<string, string>).toString()}` : '';
  return (await on.writesSince(mark))
    .map((r) => `${r.method} ${r.path.replace(/^\/client\/v4\//, '')}${query(r.query)} ${r.status}`)
    .sort();
}

/**
 * The stack outputs an update left, as plain values: those the engine reported in its event log at
 * the end of the update, which are what `pulumi stack output` would read back from the state (two
 * more CLI calls, about a core-second). None of the flagship's outputs is a secret, so none may come
 * masked.
 */
function outputsOf(update: OperationResult): Record<string, any> {
  expect(Object.entries(update.outputs).filter(([, output]) => output.secret)).toEqual([]);
  return Object.fromEntries(Object.entries(update.outputs).map(([key, output]) => [key, output.value]));
}

/** The outputs of one resource (by its name in the program) as the state holds them. */
function stateOutputs(name: string): Record<string, any> {
  const state = JSON.parse(engine.stateText());
  const resource = (state.checkpoint.latest.resources as any[]).find((r) => String(r.urn).endsWith(`::${name}`));
  if (resource === undefined) throw new Error(`no resource ${name} in the state`);
  return resource.outputs;
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/**
 * The token must appear nowhere the engine keeps or prints things: the state, everything printed,
 * the stack's settings file, and every file of its backend (history, backups) and home.
 */
function expectNoCredential(of: EngineStack, ...tokens: string[]): void {
  const places: Array<[string, string | Buffer]> = [
    ['state', of.stateText()],
    ['engine output', of.output.join('')],
  ];
  const stackFile = path.join(of.workDir, `Pulumi.${of.stack.name}.yaml`);
  if (fs.existsSync(stackFile)) places.push([stackFile, fs.readFileSync(stackFile)]);
  // engineStack names the stack e2e-<id> and keeps its backend and home in backend-<id>, home-<id>.
  const id = of.stack.name.replace(/^e2e-/, '');
  const kept = ['backend', 'home'].flatMap((kind) => filesUnder(path.join(REPO, '.edgeguard', 'e2e', `${kind}-${id}`)));
  expect(kept.length).toBeGreaterThan(2);
  for (const file of kept) places.push([file, fs.readFileSync(file)]);
  for (const token of tokens)
    expect(places.filter(([, text]) => text.includes(token)).map(([where]) => where)).toEqual([]);
}

beforeAll(async () => {
  emu = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [TOKEN], adminToken: ADMIN_TOKEN });
  enabledBefore = (await ok('GET', `zones/${ZONE}/page_security`)).enabled;
  engine = await engineStack({ projectDir: REPO, inPlace: true, emu, token: TOKEN });
}, 60_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
});

test('preview shows the creates; up makes the custom hostname active with its record published; a second preview shows no changes', async () => {
  const preview = await engine.preview();
  expect(preview.changeSummary).toEqual({ create: FLAGSHIP_RESOURCES });
  const mark = emu.mark();
  const up = await engine.up();
  created = up;
  expect(up.summary.result).toBe('succeeded');
  expect(up.summary.resourceChanges).toEqual({ create: FLAGSHIP_RESOURCES });

  // The chain in one up: the hostname (pending when created), the command that published its
  // ownership record in the emulator's DNS, then the validation, which found it active.
  const record = await hostnameRecord();
  expect({ status: record.status, ssl: record.ssl.status }).toEqual({ status: 'active', ssl: 'active' });
  const { name, value } = record.ownership_verification;
  expect(await dnsRecords()).toEqual([`TXT ${name} ${value}`]);
  expect(up.stdout).toMatch(/command:local:Command customer-one-ownership-record created .*published TXT/);
  expect(up.stdout).toMatch(/CustomHostnameValidation customer-one-validation created/);
  expect(stateOutputs('customer-one').status).toBe('pending');
  expect(stateOutputs('customer-one-validation')).toMatchObject({
    customHostnameId: record.id,
    status: 'active',
    sslStatus: 'active',
    timeoutSeconds: 600,
  });
  const served = (await emu.requests(mark)).map((r) => `${r.method} ${r.path.replace(/^\/client\/v4\//, '')}`);
  expect(served.indexOf(`GET zones/${ZONE}/custom_hostnames/${record.id}`)).toBeGreaterThan(
    served.indexOf(`POST zones/${ZONE}/custom_hostnames`),
  );
  // The plugin came from the project's plugin cache, not from PATH.
  expect(up.stdout + up.stderr).not.toContain('from $PATH');

  const again = await engine.preview({ expectNoChanges: true });
  expect(again.changeSummary).toEqual({ same: FLAGSHIP_RESOURCES });
}, 180_000);

test('outputs match what the emulator holds: malicious scripts, pools covered and migrated, the ownership record', async () => {
  expect(created).toBeDefined();
  const out = outputsOf(created);
  // Exactly the demo's three scripts below 10; the one scored exactly 10 is not malicious (spec 8).
  expect([...out.maliciousScripts].sort()).toEqual([...DEMO_MALICIOUS].sort());
  expect(out.maliciousScripts.join('\n')).not.toContain('cdn-cgi/challenge-platform');

  const livePools = await pools();
  expect(livePools).toHaveLength(60);
  expect(livePools.filter((pool) => pool.notification_email !== '')).toEqual([]);
  expect(out.poolsCovered).toBe(60);
  expect(out.legacyEmailMigration).toEqual({ poolsSeen: 60, poolsCleared: 60, removedEmails: DEMO_POOL_EMAILS });

  const [alert] = await alertPolicies();
  expect(await alertPolicies()).toHaveLength(1);
  expect(out.healthNotificationId).toBe(alert.id);
  expect(alert.alert_type).toBe('load_balancing_health_alert');
  expect([...alert.filters.pool_id].sort()).toEqual(livePools.map((pool) => pool.id).sort());
  expect([...alert.filters.new_health].sort()).toEqual(['Healthy', 'Unhealthy']);
  expect([...alert.filters.event_source].sort()).toEqual(['origin', 'pool']);
  expect(alert.mechanisms.email).toEqual([{ id: 'noc@example.com' }]);

  const record = await hostnameRecord();
  expect(out.customHostname).toEqual({
    hostname: HOSTNAME,
    status: 'active',
    certificateAuthority: 'google',
    ownershipTxtRecord: {
      name: record.ownership_verification.name,
      value: record.ownership_verification.value,
      published: true,
    },
  });
  expect(record.ownership_verification.name).toBe(`_edgeguard-custom-hostname.${HOSTNAME}`);

  // The two policies are created concurrently, so their order in the list is not fixed.
  const livePolicies = await policies();
  const byId = (id: string) => livePolicies.find((p) => p.id === id);
  expect(livePolicies).toHaveLength(2);
  expect(out.cspPolicies).toEqual({
    storefront: { id: expect.any(String), action: 'log', value: STOREFRONT_VALUE },
    checkout: { id: expect.any(String), action: 'allow', value: CHECKOUT_VALUE },
  });
  expect(byId(out.cspPolicies.storefront.id)).toMatchObject({
    action: 'log',
    value: STOREFRONT_VALUE,
    expression: 'http.host eq "www.example.com"',
    enabled: 'true',
  });
  expect(byId(out.cspPolicies.checkout.id)).toMatchObject({
    action: 'allow',
    value: CHECKOUT_VALUE,
    expression: 'http.host eq "checkout.example.com"',
    enabled: 'true',
  });
  expect(out.paymentPageScripts).toEqual(PAYMENT_PAGE_SCRIPTS);
  expect(out.pageSecurityEnabled).toBe(true);
  expect((await ok('GET', `zones/${ZONE}/page_security`)).enabled).toBe(true);
  expect(out.zone).toBe(ZONE);
}, 60_000);

test('drift made through the API is found by refresh and put back by the next up; a moved hostname is revalidated with one PATCH', async () => {
  // The outputs the first update left: the tests since have only read.
  expect(created).toBeDefined();
  const out = outputsOf(created);

  // Four changes made outside the stack.
  const storefrontId: string = out.cspPolicies.storefront.id;
  const storefront = await ok('GET', `zones/${ZONE}/page_security/policies/${storefrontId}`);
  const { id: _id, ...storefrontBody } = storefront;
  await ok('PUT', `zones/${ZONE}/page_security/policies/${storefrontId}`, {
    ...storefrontBody,
    value: "script-src 'self' cdn.attacker.example.net",
  });
  const alert = await ok('GET', `accounts/${ACCOUNT}/alerting/v3/policies/${out.healthNotificationId}`);
  await ok('PUT', `accounts/${ACCOUNT}/alerting/v3/policies/${alert.id}`, {
    name: alert.name,
    description: alert.description,
    enabled: alert.enabled,
    alert_type: alert.alert_type,
    mechanisms: alert.mechanisms,
    filters: { ...alert.filters, new_health: ['Unhealthy'] },
  });
  const [firstPool] = await pools();
  await ok('PATCH', `accounts/${ACCOUNT}/load_balancers/pools/${firstPool.id}`, {
    notification_email: 'legacy-alerts@example.com',
  });
  // The customer points the hostname at another provider: the service sees it moved.
  await publishDns([{ type: 'CNAME', value: 'shop.other-cdn.example.net' }]);
  expect((await hostnameRecord()).status).toBe('moved');

  // Refresh finds the four, the hostname and its validation among them, and writes nothing.
  let mark = emu.mark();
  const refreshed = await engine.refresh();
  expect(refreshed.summary.resourceChanges).toEqual({ same: 5, update: 5 });
  expect(refreshed.stdout).toMatch(/CspPolicy storefront-scripts-report updated \([\d.]+s\) \[diff: ~value\]/);
  expect(refreshed.stdout).toMatch(/HealthNotification pool-health updated \([\d.]+s\) \[diff: ~newHealth\]/);
  expect(refreshed.stdout).toMatch(/PoolNotificationMigration retire-legacy-pool-emails updated/);
  expect(refreshed.stdout).toMatch(/CustomHostname customer-one updated/);
  expect(refreshed.stdout).toMatch(/CustomHostnameValidation customer-one-validation updated/);
  expect(await writes(mark)).toEqual([]);
  expect(stateOutputs('customer-one-validation').status).toBe('moved');
  expect(stateOutputs('storefront-scripts-report').value).toBe("script-src 'self' cdn.attacker.example.net");
  expect(stateOutputs('pool-health').newHealth).toEqual(['Unhealthy']);
  expect(stateOutputs('retire-legacy-pool-emails').poolsWithEmail).toBe(1);
  expect(stateOutputs('customer-one').status).toBe('moved');
  // The preview cannot know the outputs of the hostname it updates, so the command made from
  // them shows as replaced; the up below finds them unchanged and leaves the command alone.
  const plan = await engine.preview({ diff: true });
  expect(plan.changeSummary).toEqual({ same: 4, update: 5, replace: 1 });
  expect(plan.stdout).toMatch(
    /~ value\s*: "script-src 'self' cdn\.attacker\.example\.net" => "script-src 'self' www\.googletagmanager\.com/,
  );
  expect(plan.stdout).toMatch(/~ newHealth\s*: \[\s*~ \[0\]: "Unhealthy" => "Healthy"\s*\+ \[1\]: "Unhealthy"/);

  // The customer points the hostname back into the zone. `moved` stays until an edit restarts
  // validation (spec 3), so only the stack's PATCH can make it active again.
  await publishDns([{ type: 'CNAME', value: 'customers.example.com' }]);
  expect((await hostnameRecord()).status).toBe('moved');

  mark = emu.mark();
  const up = await engine.up();
  expect(up.summary.resourceChanges).toEqual({ same: 5, update: 5 });
  // One write per drifted resource and nothing else: the hostname's update restarts validation
  // (one PATCH), and its validation, updated after it, finds it active and edits nothing.
  expect(await writes(mark)).toEqual(
    [
      `PUT zones/${ZONE}/page_security/policies/${storefrontId} 200`,
      `PUT accounts/${ACCOUNT}/alerting/v3/policies/${alert.id} 200`,
      `PATCH accounts/${ACCOUNT}/load_balancers/pools?per_page=1000&page=1 200`,
      `PATCH zones/${ZONE}/custom_hostnames/${(await hostnameRecord()).id} 200`,
    ].sort(),
  );
  expect((await ok('GET', `zones/${ZONE}/page_security/policies/${storefrontId}`)).value).toBe(STOREFRONT_VALUE);
  const restored = await ok('GET', `accounts/${ACCOUNT}/alerting/v3/policies/${alert.id}`);
  expect([...restored.filters.new_health].sort()).toEqual(['Healthy', 'Unhealthy']);
  expect((await pools()).filter((pool) => pool.notification_email !== '')).toEqual([]);
  expect((await hostnameRecord()).status).toBe('active');

  expect(stateOutputs('customer-one-validation').status).toBe('active');
  const after = outputsOf(up);
  expect(after.customHostname.status).toBe('active');
  expect(after.legacyEmailMigration.poolsCleared).toBe(1);
  expect(after.legacyEmailMigration.removedEmails[firstPool.name]).toBe('legacy-alerts@example.com');
  expect(Object.keys(after.legacyEmailMigration.removedEmails)).toHaveLength(60);
  await engine.preview({ expectNoChanges: true });
}, 180_000);

test('a hostname over 64 characters fails the preview, naming error 1469 and branding, with no API write', async () => {
  const longHostname = `${'a'.repeat(44)}.customer-one.example`;
  expect(longHostname).toHaveLength(65);
  await engine.stack.setConfig('edgeguard-flagship:customerHostname', { value: longHostname });
  try {
    const mark = emu.mark();
    const failure = await failureOf(engine.preview());
    expect(failure).toBeInstanceOf(Error);
    expect(failure?.message).toContain("CustomHostname resource 'customer-one': property hostname value");
    expect(failure?.message).toContain(`"${longHostname}" is 65 characters long`);
    expect(failure?.message).toContain('error 1469');
    expect(failure?.message).toContain('Set branding to true');
    expect(await writes(mark)).toEqual([]);
  } finally {
    await engine.stack.removeConfig('edgeguard-flagship:customerHostname');
  }
  expect((await customHostnames()).map((h) => h.hostname)).toEqual([HOSTNAME]);
}, 180_000);

test('the token is in neither the state, the engine output, the stack file nor the backend and home', async () => {
  // The state still holds every resource here (destroy comes next).
  // Nine resources and the two default providers (dynamic resources, command).
  expect(JSON.parse(engine.stateText()).checkpoint.latest.resources).toHaveLength(12);
  expect(engine.output.join('').length).toBeGreaterThan(1000);
  expectNoCredential(engine, TOKEN, ADMIN_TOKEN);
});

test('destroy leaves nothing of the stack in the emulator (the command removes its record), and leaves the pools migrated', async () => {
  const hostnameId = (await hostnameRecord()).id;
  const [alert] = await alertPolicies();
  const [first, second] = await policies();
  const mark = emu.mark();
  const destroyed = await engine.destroy();
  expect(destroyed.summary.resourceChanges).toEqual({ delete: FLAGSHIP_RESOURCES });
  expect(destroyed.stdout).toMatch(
    /command:local:Command customer-one-ownership-record deleted .*removed the records at/,
  );
  expect(await writes(mark)).toEqual(
    [
      `DELETE zones/${ZONE}/page_security/policies/${first.id} 200`,
      `DELETE zones/${ZONE}/page_security/policies/${second.id} 200`,
      `DELETE zones/${ZONE}/custom_hostnames/${hostnameId} 200`,
      `DELETE accounts/${ACCOUNT}/alerting/v3/policies/${alert.id} 200`,
      `PUT zones/${ZONE}/page_security 200`,
    ].sort(),
  );
  expect(await policies()).toEqual([]);
  expect(await customHostnames()).toEqual([]);
  // What remains in the DNS is the test's own CNAME; the command's TXT record is gone.
  expect(await dnsRecords()).toEqual(['CNAME shop.customer-one.example customers.example.com']);
  expect(await alertPolicies()).toEqual([]);
  expect(enabledBefore).toBe(false);
  expect((await ok('GET', `zones/${ZONE}/page_security`)).enabled).toBe(enabledBefore);
  const left = await pools();
  expect(left).toHaveLength(60);
  expect(left.filter((pool) => pool.notification_email !== '')).toEqual([]);
  expectNoCredential(engine, TOKEN, ADMIN_TOKEN);
}, 180_000);

describe('with the token as a secret stack configuration, against a service without the emulator DNS', () => {
  const SECRET_TOKEN = 'e2e-flagship-secret-token-8d41c6e2';
  /** What the environment carries instead: the emulator refuses it, so any use of it would fail. */
  const REFUSED_ENV_TOKEN = 'e2e-refused-env-token-77b0a913';
  let emu2: TestEmulator;
  let secretStack: EngineStack;

  beforeAll(async () => {
    emu2 = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [SECRET_TOKEN] });
    secretStack = await engineStack({
      projectDir: REPO,
      inPlace: true,
      emu: emu2,
      // As with a real service: no control API to publish DNS in.
      emulatorDns: false,
      token: REFUSED_ENV_TOKEN,
      config: { 'edgeguard:apiToken': { value: SECRET_TOKEN, secret: true } },
    });
  }, 60_000);
  afterAll(async () => {
    await secretStack?.dispose();
    await emu2?.close();
  });

  test('up uses the configured token for the resources and the read helpers, and never shows it; the hostname waits for its record', async () => {
    const up = await secretStack.up();
    // No command and no validation: the record is the user's DNS provider's to publish.
    expect(up.summary.resourceChanges).toEqual({ create: 8 });
    const out = outputsOf(up);
    expect(out.customHostname).toMatchObject({ status: 'pending', ownershipTxtRecord: { published: false } });
    expect(await dnsRecords(emu2)).toEqual([]);
    expect([...out.maliciousScripts].sort()).toEqual([...DEMO_MALICIOUS].sort());
    expect(out.poolsCovered).toBe(60);
    expect(out.legacyEmailMigration.poolsCleared).toBe(60);

    // Every request (provider and read helpers alike) carried the configured token: none was refused.
    const served = await emu2.requests(0);
    expect(served.length).toBeGreaterThan(5);
    expect(served.filter((r) => r.credential !== 'token' || r.status !== 200)).toEqual([]);

    expectNoCredential(secretStack, SECRET_TOKEN);
    const stackFile = fs.readFileSync(path.join(secretStack.workDir, `Pulumi.${secretStack.stack.name}.yaml`), 'utf8');
    expect(stackFile).toMatch(/edgeguard:apiToken:\s+secure: v1:/);
  }, 180_000);
});
