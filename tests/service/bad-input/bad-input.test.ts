import * as net from 'node:net';
import type * as pulumi from '@pulumi/pulumi';
import { provider as cspPolicy } from '../../../provider/dynamic/runtime/csp-policy';
import { provider as customHostname } from '../../../provider/dynamic/runtime/custom-hostname';
import { provider as customHostnameValidation } from '../../../provider/dynamic/runtime/custom-hostname-validation';
import { provider as healthNotification } from '../../../provider/dynamic/runtime/health-notification';
import { provider as pageSecuritySetting } from '../../../provider/dynamic/runtime/page-security-setting';
import { provider as poolNotificationMigration } from '../../../provider/dynamic/runtime/pool-notification-migration';
import { APIConnectionError, AuthenticationError, PermissionDeniedError } from '../../../provider/client/errors';
import { SettingsError } from '../../../provider/settings';
import {
  ACCOUNT_ID,
  startTestEmulator,
  TEST_TOKEN,
  ZONE_ID,
  type CallOptions,
  type TestEmulator,
} from '../../helpers/emulator';

/**
 * Bad input, table-driven, at every layer a user can get it wrong: the resources' `check` (what
 * `pulumi preview` runs before any API call), the settings as the provider runtime reads them, and
 * the service API itself (the emulator). Each case says exactly which property, setting or field is
 * wrong, how to fix it where there is a fix, and that nothing was written: `check` and the settings
 * send no request at all, and the API refuses without changing its state.
 */

const SCOPED_TOKEN = 'scoped-to-other-zone-7f3e';
const BAD_TOKEN = 'not-a-valid-token-0c9d';
const EMAIL = 'ops@example.com';
const KEY = 'bad-input-api-key-4d21';
const OTHER_ZONE = 'c0000000000000000000000000000002';
const POOL_ID = 'b0000000000000000000000000000001';

let emu: TestEmulator;
/** A loopback port where nothing listens. */
let closedPort: number;
const savedEnv: Record<string, string | undefined> = {};

beforeAll(async () => {
  // The provider runtime falls back to EDGEGUARD_* variables: none may leak in from the shell.
  for (const name of Object.keys(process.env).filter((key) => key.startsWith('EDGEGUARD_'))) {
    savedEnv[name] = process.env[name];
    delete process.env[name];
  }
  emu = await startTestEmulator({ email: EMAIL, key: KEY });
  const seeded = await emu.control('POST', 'seed', {
    zones: [{ id: OTHER_ZONE, name: 'other.example', account_id: ACCOUNT_ID }],
    tokens: [{ value: SCOPED_TOKEN, zones: [OTHER_ZONE] }],
    pools: [{ account_id: ACCOUNT_ID, name: 'eu-west', notification_email: 'legacy@example.com' }],
  });
  expect(seeded.status).toBe(200);
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closedPort = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
afterAll(async () => {
  Object.assign(process.env, savedEnv);
  await emu?.close();
});

/** The stack configuration the runtime is given, as the engine's `configure` passes it. */
async function configureWith(
  provider: pulumi.dynamic.ResourceProvider,
  settings: Record<string, string>,
): Promise<void> {
  const config = Object.fromEntries(Object.entries(settings).map(([key, value]) => [`edgeguard:${key}`, value]));
  await provider.configure!({
    config: {
      get: (key: string) => config[key],
      require: (key: string) => {
        const value = config[key];
        if (value === undefined) throw new Error(`missing ${key}`);
        return value;
      },
    },
  });
}

const configured = () => ({ baseUrl: emu.baseUrl, apiToken: TEST_TOKEN });

// ---------------------------------------------------------------------------------------------
// 1. The resources' check: one failure, on exactly this property, saying how to fix it.

const Z = ZONE_ID;
const csp = {
  zoneId: Z,
  description: 'Shop scripts',
  action: 'log',
  expression: 'http.host eq "shop.example.com"',
  value: "script-src 'self' js.stripe.com",
};
const hostname = { zoneId: Z, hostname: 'shop.customer.example', ssl: { method: 'txt', type: 'dv' } };
const validation = { zoneId: Z, customHostnameId: 'f'.repeat(32) };
const notification = { accountId: ACCOUNT_ID, name: 'Pool health', poolIds: [POOL_ID] };
const migration = { accountId: ACCOUNT_ID };

const RUNTIMES = {
  cspPolicy,
  customHostname,
  customHostnameValidation,
  healthNotification,
  pageSecuritySetting,
  poolNotificationMigration,
};

interface CheckCase {
  resource: keyof typeof RUNTIMES;
  news: Record<string, unknown>;
  /** The property the single failure must name, exactly as `check` reports it. */
  property: string;
  /** What the reason must say: the fix, or what is accepted instead. */
  fix: RegExp;
}

const CHECK_CASES: Record<string, CheckCase> = {
  'a CSP source without a host': {
    resource: 'cspPolicy',
    news: { ...csp, value: "script-src 'self' http://" },
    property: 'value',
    fix: /invalid source "http:\/\/" at position 18: the host is missing/,
  },
  'a CSP source with an empty label': {
    resource: 'cspPolicy',
    news: { ...csp, value: 'script-src js..stripe.com' },
    property: 'value',
    fix: /"js\.\.stripe\.com" at position 11: two dots in a row/,
  },
  'an empty CSP value': {
    resource: 'cspPolicy',
    news: { ...csp, value: '' },
    property: 'value',
    fix: /write at least one, such as script-src 'self'/,
  },
  'an expression with an unknown operator': {
    resource: 'cspPolicy',
    news: { ...csp, expression: 'http.host contains "shop"' },
    property: 'expression',
    fix: /use eq, the only supported operator, as in http\.host eq "shop\.example\.com"/,
  },
  'an empty expression': {
    resource: 'cspPolicy',
    news: { ...csp, expression: '' },
    property: 'expression',
    fix: /the expression is empty; write http\.host eq/,
  },
  'an unknown action': {
    resource: 'cspPolicy',
    news: { ...csp, action: 'block' },
    property: 'action',
    fix: /got "block"; it must be: "log" .* or "allow"/,
  },
  'a malformed zone id (CSP policy)': {
    resource: 'cspPolicy',
    news: { ...csp, zoneId: 'example.com' },
    property: 'zoneId',
    fix: /32 hexadecimal characters \(got "example\.com"\)/,
  },
  'a description over 1024 characters': {
    resource: 'cspPolicy',
    news: { ...csp, description: 'x'.repeat(1025) },
    property: 'description',
    fix: /at most 1024 characters \(got 1025\); shorten it/,
  },
  'enabled as a string': {
    resource: 'cspPolicy',
    news: { ...csp, enabled: 'yes' },
    property: 'enabled',
    fix: /must be true or false \(got "yes"\)/,
  },
  'a CSP policy to adopt named by something other than its id': {
    resource: 'cspPolicy',
    news: { ...csp, adoptId: 'Shop scripts' },
    property: 'adoptId',
    fix: /must be the id of the existing CSP policy to adopt: 32 hexadecimal characters \(got "Shop scripts"\)/,
  },
  'a hostname to adopt named by its hostname instead of its id': {
    resource: 'customHostname',
    news: { ...hostname, adoptId: 'shop.customer.example' },
    property: 'adoptId',
    fix: /must be the id of the existing custom hostname to adopt: 32 hexadecimal characters/,
  },
  'a notification policy to adopt with an id one character short': {
    resource: 'healthNotification',
    news: { ...notification, adoptId: POOL_ID.slice(1) },
    property: 'adoptId',
    fix: /must be the id of the existing notification policy to adopt: 32 hexadecimal characters/,
  },
  'a hostname over 64 characters without branding': {
    resource: 'customHostname',
    news: { ...hostname, hostname: `${'a'.repeat(48)}.customer.example` },
    property: 'hostname',
    fix: /is 65 characters long.*error 1469\. Set branding to true/,
  },
  'an underscore in a hostname': {
    resource: 'customHostname',
    news: { ...hostname, hostname: 'shop_eu.customer.example' },
    property: 'hostname',
    fix: /the character "_" is not allowed; a hostname holds only letters, digits, hyphens and dots/,
  },
  'a space in a hostname': {
    resource: 'customHostname',
    news: { ...hostname, hostname: 'shop customer.example' },
    property: 'hostname',
    fix: /the character " " is not allowed/,
  },
  'an empty hostname': {
    resource: 'customHostname',
    news: { ...hostname, hostname: '' },
    property: 'hostname',
    fix: /the hostname is empty/,
  },
  'a wildcard inside a hostname': {
    resource: 'customHostname',
    news: { ...hostname, hostname: 'shop.*.example' },
    property: 'hostname',
    fix: /can only be the whole first label, as in \*\.example\.com/,
  },
  'an unknown ssl method': {
    resource: 'customHostname',
    news: { ...hostname, ssl: { method: 'email', type: 'dv' } },
    property: 'ssl.method',
    fix: /must be one of "txt", "http" \(got "email"\)/,
  },
  'an unknown certificate authority': {
    resource: 'customHostname',
    news: { ...hostname, ssl: { method: 'txt', type: 'dv', certificateAuthority: 'digicert' } },
    property: 'ssl.certificateAuthority',
    fix: /must be one of "", "google", "lets_encrypt" \(got "digicert"\)/,
  },
  'a wait of 0 seconds': {
    resource: 'customHostname',
    news: { ...hostname, waitTimeoutSeconds: 0 },
    property: 'waitTimeoutSeconds',
    fix: /must be at least 1 second/,
  },
  'a zone id one character short': {
    resource: 'customHostname',
    news: { ...hostname, zoneId: Z.slice(1) },
    property: 'zoneId',
    fix: /32 hexadecimal characters/,
  },
  'a validation of a hostname named by its name instead of its id': {
    resource: 'customHostnameValidation',
    news: { ...validation, customHostnameId: 'shop.customer.example' },
    property: 'customHostnameId',
    fix: /must be the custom hostname's id \(a CustomHostname's customHostnameId\): 32 hexadecimal characters \(got "shop\.customer\.example"\)/,
  },
  'a validation timeout over an hour': {
    resource: 'customHostnameValidation',
    news: { ...validation, timeoutSeconds: 7200 },
    property: 'timeoutSeconds',
    fix: /must be at most 3600 seconds/,
  },
  'no pool ids': {
    resource: 'healthNotification',
    news: { ...notification, poolIds: [] },
    property: 'poolIds',
    fix: /must name at least one pool/,
  },
  'a malformed pool id': {
    resource: 'healthNotification',
    news: { ...notification, poolIds: [POOL_ID, 'eu-west'] },
    property: 'poolIds[1]',
    fix: /must be a pool id: 32 hexadecimal characters \(got "eu-west"\)/,
  },
  'an empty pool id': {
    resource: 'healthNotification',
    news: { ...notification, poolIds: [''] },
    property: 'poolIds[0]',
    fix: /32 hexadecimal characters \(got ""\)/,
  },
  'a bad newHealth value': {
    resource: 'healthNotification',
    news: { ...notification, newHealth: ['Unhealthy', 'Degraded'] },
    property: 'newHealth[1]',
    fix: /must be "Unhealthy" or "Healthy" \(got "Degraded"\)/,
  },
  'an empty newHealth': {
    resource: 'healthNotification',
    news: { ...notification, newHealth: [] },
    property: 'newHealth',
    fix: /leave newHealth out to alert on both/,
  },
  'a bad eventSource value': {
    resource: 'healthNotification',
    news: { ...notification, eventSource: ['load_balancer'] },
    property: 'eventSource[0]',
    fix: /must be "pool" or "origin"/,
  },
  'a malformed alert e-mail': {
    resource: 'healthNotification',
    news: { ...notification, emails: ['noc at example.com'] },
    property: 'emails[0]',
    fix: /must be an e-mail address like ops@example\.com/,
  },
  'a blank notification name': {
    resource: 'healthNotification',
    news: { ...notification, name: '   ' },
    property: 'name',
    fix: /must not be empty: give the notification a name/,
  },
  'a malformed account id (notification)': {
    resource: 'healthNotification',
    news: { ...notification, accountId: 'acme' },
    property: 'accountId',
    fix: /32 hexadecimal characters \(got "acme"\)/,
  },
  'page security enabled as a string': {
    resource: 'pageSecuritySetting',
    news: { zoneId: Z, enabled: 'true' },
    property: 'enabled',
    fix: /must be true or false \(got "true"\)/,
  },
  'page security without a zone': {
    resource: 'pageSecuritySetting',
    news: { enabled: true },
    property: 'zoneId',
    fix: /is required: the zone's id: 32 hexadecimal characters/,
  },
  'a page size over the API maximum': {
    resource: 'poolNotificationMigration',
    news: { ...migration, perPage: 5000 },
    property: 'perPage',
    fix: /an integer from 1 to 1000 .*the API takes at most 1000\) \(got 5000\)/,
  },
  'an empty account id (migration)': {
    resource: 'poolNotificationMigration',
    news: { accountId: '' },
    property: 'accountId',
    fix: /32 hexadecimal characters \(got ""\)/,
  },
  'zero rounds': {
    resource: 'poolNotificationMigration',
    news: { ...migration, maxRounds: 0 },
    property: 'maxRounds',
    fix: /an integer from 1 to 10/,
  },
};

describe('check (what preview runs): one failure on the exact property, with the fix, and no request', () => {
  test.each(Object.entries(CHECK_CASES))('%s', async (_name, { resource, news, property, fix }) => {
    const runtime = RUNTIMES[resource];
    await configureWith(runtime, configured());
    const mark = emu.mark();
    const result = await runtime.check({}, news);
    expect(result.failures?.map((failure) => failure.property)).toEqual([property]);
    expect(result.failures![0]!.reason).toMatch(fix);
    expect(await emu.requests(mark)).toEqual([]);
  });

  test('the same inputs with the mistakes corrected pass check (the cases above fail for their one reason)', async () => {
    for (const [resource, news] of [
      ['cspPolicy', csp],
      ['customHostname', hostname],
      ['customHostnameValidation', validation],
      ['healthNotification', notification],
      ['pageSecuritySetting', { zoneId: Z, enabled: true }],
      ['poolNotificationMigration', migration],
    ] as const) {
      expect(await RUNTIMES[resource].check({}, news)).not.toHaveProperty('failures');
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 2. The settings, as the provider runtime reads them when the engine calls create.

interface RuntimeCase {
  settings: () => Record<string, string>;
  /** Which runtime's create is called, with valid inputs. */
  create: () => Promise<unknown>;
  /** The error's class. */
  error: new (...args: never[]) => Error;
  /** What the message must name exactly (a setting, a header, the address). */
  names: () => string;
  fix: RegExp;
}

const createPageSecurity = () => pageSecuritySetting.create({ zoneId: Z, enabled: true });

const RUNTIME_CASES: Record<string, RuntimeCase> = {
  'no credentials at all': {
    settings: () => ({ baseUrl: emu.baseUrl }),
    create: createPageSecurity,
    error: SettingsError,
    names: () => 'edgeguard:apiToken (or EDGEGUARD_API_TOKEN)',
    fix: /no credentials: set edgeguard:apiToken \(or EDGEGUARD_API_TOKEN\) as a secret, or edgeguard:apiEmail \(or EDGEGUARD_API_EMAIL\) and edgeguard:apiKey/,
  },
  'an e-mail without its key': {
    settings: () => ({ baseUrl: emu.baseUrl, apiEmail: EMAIL }),
    create: createPageSecurity,
    error: SettingsError,
    names: () => 'edgeguard:apiKey (or EDGEGUARD_API_KEY)',
    fix: /is missing: an e-mail and an API key go together \(or set edgeguard:apiToken/,
  },
  'no service address': {
    settings: () => ({ apiToken: TEST_TOKEN }),
    create: createPageSecurity,
    error: SettingsError,
    names: () => 'edgeguard:baseUrl (or EDGEGUARD_BASE_URL)',
    fix: /no service address: set edgeguard:baseUrl \(or EDGEGUARD_BASE_URL\), for example http:\/\/127\.0\.0\.1:8787\/client\/v4/,
  },
  'an address without the version segment': {
    settings: () => ({ baseUrl: emu.baseUrl.replace(/\/v4$/, ''), apiToken: TEST_TOKEN }),
    create: createPageSecurity,
    error: SettingsError,
    names: () => 'edgeguard:baseUrl (or EDGEGUARD_BASE_URL)',
    fix: /must end with the API version segment \/v4/,
  },
  'an address that is not a URL': {
    settings: () => ({ baseUrl: '127.0.0.1:8787/client/v4', apiToken: TEST_TOKEN }),
    create: createPageSecurity,
    error: SettingsError,
    names: () => 'edgeguard:baseUrl (or EDGEGUARD_BASE_URL)',
    fix: /must be an http\(s\) URL/,
  },
  'a vendor token with upper case': {
    settings: () => ({ ...configured(), vendor: 'EdgeGuard' }),
    create: createPageSecurity,
    error: SettingsError,
    names: () => 'edgeguard:vendor (or EDGEGUARD_VENDOR)',
    fix: /must be lowercase letters, digits and underscores/,
  },
  'an issuance limit of 0': {
    settings: () => ({ ...configured(), issuanceLimit: '0' }),
    create: () =>
      customHostname.create({
        ...hostname,
        ssl: { ...hostname.ssl, certificateAuthority: '' },
        branding: false,
        waitForActive: false,
        waitTimeoutSeconds: 300,
      }),
    error: SettingsError,
    names: () => 'edgeguard:issuanceLimit (or EDGEGUARD_ISSUANCE_LIMIT)',
    fix: /must be a whole number of at least 1 \(default 15\)/,
  },
  'an unreachable base address': {
    settings: () => ({ baseUrl: `http://127.0.0.1:${closedPort}/client/v4`, apiToken: TEST_TOKEN }),
    create: createPageSecurity,
    error: APIConnectionError,
    names: () => `127.0.0.1:${closedPort}`,
    fix: /got no response: ECONNREFUSED/,
  },
  'a token the service does not know': {
    settings: () => ({ baseUrl: emu.baseUrl, apiToken: BAD_TOKEN }),
    create: createPageSecurity,
    error: AuthenticationError,
    names: () => 'Authorization',
    fix: /HTTP 401: \[10000\] Authorization: the API token is not valid/,
  },
  'e-mail + key for page security': {
    settings: () => ({ baseUrl: emu.baseUrl, apiEmail: EMAIL, apiKey: KEY }),
    create: createPageSecurity,
    error: PermissionDeniedError,
    names: () => 'X-Auth-Email/X-Auth-Key',
    fix: /HTTP 403: \[9109\] page security operations require an API token/,
  },
  'a token scoped to another zone': {
    settings: () => ({ baseUrl: emu.baseUrl, apiToken: SCOPED_TOKEN }),
    create: createPageSecurity,
    error: PermissionDeniedError,
    names: () => `zone ${Z}`,
    fix: /HTTP 403: \[9109\] the API token has no access to zone/,
  },
};

/** The errors the cases above met, by case name, for the test after them. */
const runtimeFailures = new Map<string, Error>();

describe('settings through the provider runtime: the error names the setting or credential, says how to fix it, and nothing is written', () => {
  test.each(Object.entries(RUNTIME_CASES))(
    '%s',
    async (name, { settings, create, error, names, fix }) => {
      const before = (await emu.control('GET', 'state')).body.result;
      await configureWith(pageSecuritySetting, settings());
      await configureWith(customHostname, settings());
      const mark = emu.mark();
      const failure = await create().then(
        () => undefined,
        (thrown: Error) => thrown,
      );
      expect(failure).toBeInstanceOf(error);
      runtimeFailures.set(name, failure!);
      expect(failure!.message).toContain(names());
      expect(failure!.message).toMatch(fix);
      // The page security create reads before it writes, and fails on that read: no write is sent.
      expect((await emu.requests(mark)).filter((r) => r.method !== 'GET')).toEqual([]);
      expect((await emu.control('GET', 'state')).body.result).toEqual(before);
    },
    60_000,
  );

  // A connection failure names the address and the code, and also the setting the address came
  // from, so a user whose service is unreachable is told to look at edgeguard:baseUrl /
  // EDGEGUARD_BASE_URL rather than at the network alone.
  test('a connection failure names the edgeguard:baseUrl setting to check', () => {
    const failure = runtimeFailures.get('an unreachable base address');
    expect(failure).toBeInstanceOf(APIConnectionError);
    expect(failure!.message).toMatch(/edgeguard:baseUrl \(or EDGEGUARD_BASE_URL\)/);
  });
});

// ---------------------------------------------------------------------------------------------
// 3. The service API (the emulator): refused with the exact field, no change of state.

interface ApiCase {
  method: string;
  path: () => string;
  options: CallOptions;
  status: number;
  code: number;
  /** The field each `errors[]` entry names (the text before its first `: `), in order; `null`: none. */
  fields: Array<string | null>;
  fix: RegExp;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const json = (body: unknown, token = TEST_TOKEN): CallOptions => ({ headers: bearer(token), body });
const createHostnameBody = (
  name: string,
  ssl: Record<string, unknown> = { method: 'txt', type: 'dv', certificate_authority: '' },
) => ({ hostname: name, ssl });
const alertBody = (filters: Record<string, unknown>, alertType = 'load_balancing_health_alert') => ({
  name: 'Pool health',
  enabled: true,
  alert_type: alertType,
  mechanisms: {},
  filters,
});

const API_CASES: Record<string, ApiCase> = {
  'e-mail + key for page security': {
    method: 'PUT',
    path: () => `zones/${Z}/page_security`,
    options: { headers: { 'x-auth-email': EMAIL, 'x-auth-key': KEY }, body: { enabled: true } },
    status: 403,
    code: 9109,
    fields: [null],
    fix: /page security operations require an API token; X-Auth-Email\/X-Auth-Key is not accepted here/,
  },
  'a token scoped to another zone': {
    method: 'PUT',
    path: () => `zones/${Z}/page_security`,
    options: json({ enabled: true }, SCOPED_TOKEN),
    status: 403,
    code: 9109,
    fields: [null],
    fix: new RegExp(`the API token has no access to zone ${Z}`),
  },
  'a token the service does not know': {
    method: 'PUT',
    path: () => `zones/${Z}/page_security`,
    options: json({ enabled: true }, BAD_TOKEN),
    status: 401,
    code: 10000,
    fields: ['Authorization'],
    fix: /the API token is not valid/,
  },
  'no credentials': {
    method: 'PUT',
    path: () => `zones/${Z}/page_security`,
    options: { headers: {}, body: { enabled: true } },
    status: 401,
    code: 10000,
    fields: ['no credentials'],
    fix: /send "Authorization: Bearer <API token>" or X-Auth-Email and X-Auth-Key/,
  },
  'a malformed zone id': {
    method: 'PUT',
    path: () => 'zones/example.com/page_security',
    options: json({ enabled: true }),
    status: 400,
    code: 7003,
    fields: ['zone_id'],
    fix: /must be 32 lowercase hexadecimal characters \(got "example\.com"\)/,
  },
  'enabled as a string': {
    method: 'PUT',
    path: () => `zones/${Z}/page_security`,
    options: json({ enabled: 'yes' }),
    status: 400,
    code: 1004,
    fields: ['enabled'],
    fix: /must be a JSON boolean, true or false \(got "yes"\)/,
  },
  'a hostname over 64 characters': {
    method: 'POST',
    path: () => `zones/${Z}/custom_hostnames`,
    options: json(createHostnameBody(`${'a'.repeat(48)}.customer.example`)),
    status: 400,
    code: 1469,
    fields: ['hostname'],
    fix: /is 65 characters long, over the 64-character limit .*; set edgeguard_branding to true/,
  },
  'an underscore in a hostname': {
    method: 'POST',
    path: () => `zones/${Z}/custom_hostnames`,
    options: json(createHostnameBody('shop_eu.customer.example')),
    status: 400,
    code: 1004,
    fields: ['hostname'],
    fix: /only letters, digits, hyphens and dots/,
  },
  'an unknown ssl method': {
    method: 'POST',
    path: () => `zones/${Z}/custom_hostnames`,
    options: json(createHostnameBody('ok.customer.example', { method: 'email', type: 'dv' })),
    status: 400,
    code: 1004,
    fields: ['ssl.method'],
    fix: /must be one of "txt", "http" \(got "email"\)/,
  },
  'an unknown action': {
    method: 'POST',
    path: () => `zones/${Z}/page_security/policies`,
    options: json({
      description: '',
      action: 'block',
      expression: 'http.host eq "shop.example.com"',
      value: "script-src 'self'",
    }),
    status: 400,
    code: 1004,
    fields: ['action'],
    fix: /must be one of "log", "allow" \(got "block"\)/,
  },
  'a bad expression and a bad CSP value at once': {
    method: 'POST',
    path: () => `zones/${Z}/page_security/policies`,
    options: json({
      description: '',
      action: 'log',
      expression: 'http.host contains "shop"',
      value: "script-src 'self' http://",
    }),
    status: 400,
    code: 1004,
    fields: ['expression', 'value'],
    fix: /use eq, the only supported operator/,
  },
  'a page size over 1000 for the bulk edit': {
    method: 'PATCH',
    path: () => `accounts/${ACCOUNT_ID}/load_balancers/pools?per_page=5000&page=1`,
    options: json({ notification_email: '' }),
    status: 400,
    code: 1004,
    fields: ['per_page'],
    fix: /must be a whole number from 1 to 1000/,
  },
  'a bulk edit to something that is not an e-mail': {
    method: 'PATCH',
    path: () => `accounts/${ACCOUNT_ID}/load_balancers/pools`,
    options: json({ notification_email: 'not-an-email' }),
    status: 400,
    code: 1004,
    fields: ['notification_email'],
    fix: /or "" to remove the legacy recipient/,
  },
  'an unknown alert type': {
    method: 'POST',
    path: () => `accounts/${ACCOUNT_ID}/alerting/v3/policies`,
    options: json(alertBody({ pool_id: [POOL_ID] }, 'pool_down')),
    status: 400,
    code: 1004,
    fields: ['alert_type'],
    fix: /"load_balancing_health_alert" \(got "pool_down"\)/,
  },
  'a bad new_health filter': {
    method: 'POST',
    path: () => `accounts/${ACCOUNT_ID}/alerting/v3/policies`,
    options: json(alertBody({ pool_id: [POOL_ID], new_health: ['Degraded'] })),
    status: 400,
    code: 1004,
    fields: ['filters.new_health[0]'],
    fix: /must be "Unhealthy" or "Healthy" \(got "Degraded"\)/,
  },
  'a body that is not JSON': {
    method: 'POST',
    path: () => `zones/${Z}/page_security/policies`,
    options: { headers: { ...bearer(TEST_TOKEN), 'content-type': 'text/plain' }, rawBody: 'action=log' },
    status: 415,
    code: 6003,
    fields: ['Content-Type'],
    fix: /must be application\/json \(got "text\/plain"\)/,
  },
  'malformed JSON': {
    method: 'POST',
    path: () => `zones/${Z}/page_security/policies`,
    options: { headers: { ...bearer(TEST_TOKEN), 'content-type': 'application/json' }, rawBody: '{"description":' },
    status: 400,
    code: 6007,
    fields: ['body'],
    fix: /malformed JSON/,
  },
};

describe('the service API: refused with the exact field, and its state unchanged', () => {
  test.each(Object.entries(API_CASES))('%s', async (_name, { method, path, options, status, code, fields, fix }) => {
    const before = (await emu.control('GET', 'state')).body.result;
    const mark = emu.mark();
    const reply = await emu.api(method, path(), options);
    expect(reply.status).toBe(status);
    expect(reply.body.success).toBe(false);
    const errors = reply.body.errors as Array<{ code: number; message: string }>;
    expect(errors.map((e) => e.code)).toEqual(fields.map(() => code));
    expect(errors.map((e) => /^([\w.[\] -]+?): /.exec(e.message)?.[1] ?? null)).toEqual(fields);
    expect(errors[0]!.message).toMatch(fix);
    expect((await emu.requests(mark)).map((r) => `${r.method} ${r.status}`)).toEqual([`${method} ${status}`]);
    expect((await emu.control('GET', 'state')).body.result).toEqual(before);
  });
});

test('the table holds at least 30 cases, across every resource, the settings and the API', () => {
  const resources = new Set(Object.values(CHECK_CASES).map((c) => c.resource));
  expect([...resources].sort()).toEqual(Object.keys(RUNTIMES).sort());
  const total = Object.keys(CHECK_CASES).length + Object.keys(RUNTIME_CASES).length + Object.keys(API_CASES).length;
  process.stdout.write(
    `bad-input cases: ${Object.keys(CHECK_CASES).length} check, ${Object.keys(RUNTIME_CASES).length} settings/runtime, ${Object.keys(API_CASES).length} API = ${total}\n`,
  );
  expect(total).toBeGreaterThanOrEqual(30);
});
