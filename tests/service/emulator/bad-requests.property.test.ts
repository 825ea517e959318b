import fc from 'fast-check';
import { ACCOUNT_ID, call, startTestEmulator, TEST_TOKEN, ZONE_ID, type TestEmulator } from '../../helpers/emulator';

/**
 * Issue 2's promise, by property: a bad request to any endpoint — malformed JSON, JSON that is
 * not an object, a body missing its required fields, a required field of the wrong type, a
 * malformed or unknown identifier, out-of-range paging — is answered with a 4xx envelope and
 * changes no state (the whole stored state is compared before and after).
 */

const POOL_ID = 'b0000000000000000000000000000001';
let emu: TestEmulator;
let policyId: string;
let alertId: string;
let hostnameId: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  const seeded = await emu.control('POST', 'seed', {
    pools: [{ id: POOL_ID, account_id: ACCOUNT_ID, name: 'eu-west', notification_email: 'noc@example.com' }],
    scripts: [{ zone_id: ZONE_ID, url: 'https://cdn.example.net/a.js', host: 'www.example.com' }],
  });
  expect(seeded.status).toBe(200);
  policyId = (
    await emu.api('POST', `zones/${ZONE_ID}/page_security/policies`, {
      body: {
        description: '',
        action: 'log',
        expression: 'http.host eq "www.example.com"',
        value: "script-src 'self'",
      },
    })
  ).body.result.id;
  alertId = (
    await emu.api('POST', `accounts/${ACCOUNT_ID}/alerting/v3/policies`, {
      body: {
        name: 'lb',
        enabled: true,
        alert_type: 'load_balancing_health_alert',
        mechanisms: { email: [{ id: 'noc@example.com' }] },
        filters: { pool_id: [POOL_ID] },
      },
    })
  ).body.result.id;
  hostnameId = (
    await emu.api('POST', `zones/${ZONE_ID}/custom_hostnames`, {
      body: { hostname: 'shop.customer.example', ssl: { method: 'txt', type: 'dv', certificate_authority: '' } },
    })
  ).body.result.id;
  expect([policyId, alertId, hostnameId].every((id) => /^[0-9a-f]{32}$/.test(id))).toBe(true);
});
afterAll(async () => emu.close());

interface Target {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path template: `{zone}`, `{account}`, `{policy}`, `{alert}`, `{hostname}`, `{pool}` are identifiers. */
  path: string;
  /** Required body fields and a value of the wrong type for each (no body for GET/DELETE). */
  required?: Record<string, fc.Arbitrary<unknown>>;
  /** Whether the route pages (page/per_page). */
  paged?: boolean;
  /** The body's fields are all optional (`{}` is valid), so only wrong types make it bad. */
  allOptional?: boolean;
}

const notString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.constant({}),
);
const notBoolean = fc.oneof(
  fc.integer(),
  fc.constant(null),
  fc.constant('yes'),
  fc.array(fc.boolean(), { maxLength: 2 }),
);
const notObject = fc.oneof(fc.integer(), fc.constant('x'), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }));
const notArray = fc.oneof(fc.integer(), fc.constant('x'), fc.constant(null), fc.constant({}));

/** The template with real identifiers, one of them replaced when `bad` is given. */
function fill(template: string, bad?: { slot: string; id: string }): string {
  const ids: Record<string, string> = {
    zone: ZONE_ID,
    account: ACCOUNT_ID,
    policy: policyId,
    alert: alertId,
    hostname: hostnameId,
    pool: POOL_ID,
  };
  return template.replace(/\{(\w+)\}/g, (_, slot: string) =>
    bad?.slot === slot ? encodeURIComponent(bad.id) : ids[slot]!,
  );
}
/** Policy values the service refuses: bad grammar, parts of CSP it does not take, too long. */
const badCspValue = fc.oneof(
  fc.constantFrom(
    'script-src https//x',
    "script-src 'nonce-r4nd0m'",
    "script-src 'strict-dynamic'",
    "script-src 'self'; report-uri /csp",
    'script-src-elem cdn.example.com',
    "upgrade-insecure-requests 'self'",
  ),
  fc.integer({ min: 6001, max: 20_000 }).map((length) => "script-src 'self'".padEnd(length, ' ')),
);
const targets: Target[] = [
  { method: 'GET', path: `zones/{zone}/page_security` },
  { method: 'PUT', path: `zones/{zone}/page_security`, required: { enabled: notBoolean } },
  { method: 'GET', path: `zones/{zone}/page_security/scripts`, paged: true },
  { method: 'GET', path: `zones/{zone}/page_security/connections`, paged: true },
  { method: 'GET', path: `zones/{zone}/page_security/cookies`, paged: true },
  { method: 'GET', path: `zones/{zone}/page_security/policies` },
  {
    method: 'POST',
    path: `zones/{zone}/page_security/policies`,
    required: {
      description: notString,
      action: fc.oneof(notString, fc.constant('block')),
      expression: fc.oneof(notString, fc.constant('http.hots eq a.com')),
      value: fc.oneof(notString, badCspValue),
    },
  },
  {
    method: 'PUT',
    path: `zones/{zone}/page_security/policies/{policy}`,
    required: {
      description: notString,
      action: fc.oneof(notString, fc.constant('deny')),
      expression: notString,
      value: fc.oneof(notString, fc.constant("script-src 'selfish'"), badCspValue),
    },
  },
  { method: 'GET', path: `zones/{zone}/custom_hostnames`, paged: true },
  {
    method: 'POST',
    path: `zones/{zone}/custom_hostnames`,
    required: {
      hostname: fc.oneof(notString, fc.constant('bad host!.example'), fc.constant(`${'a'.repeat(60)}.example.com`)),
      ssl: notObject,
    },
  },
  {
    method: 'PATCH',
    path: `zones/{zone}/custom_hostnames/{hostname}`,
    required: { ssl: notObject },
    allOptional: true,
  },
  { method: 'GET', path: `accounts/{account}/load_balancers/pools` },
  {
    method: 'PATCH',
    path: `accounts/{account}/load_balancers/pools`,
    required: { notification_email: fc.oneof(notString, fc.constant('not-an-address')) },
  },
  {
    method: 'PATCH',
    path: `accounts/{account}/load_balancers/pools/{pool}`,
    required: { notification_email: fc.oneof(notString, fc.constant('@nope')) },
  },
  { method: 'GET', path: `accounts/{account}/alerting/v3/policies` },
  {
    method: 'POST',
    path: `accounts/{account}/alerting/v3/policies`,
    required: {
      name: notString,
      enabled: notBoolean,
      alert_type: fc.oneof(notString, fc.constant('billing_usage_alert')),
      mechanisms: notObject,
      filters: fc.oneof(notObject, fc.constant({ pool_id: notArray })),
    },
  },
  {
    method: 'PUT',
    path: `accounts/{account}/alerting/v3/policies/{alert}`,
    required: {
      name: notString,
      enabled: notBoolean,
      alert_type: notString,
      mechanisms: notObject,
      filters: notObject,
    },
  },
];

/** A valid-looking body for `target` with exactly one required field made wrong. */
function wrongField(target: Target): fc.Arbitrary<unknown> {
  const fields = Object.keys(target.required!);
  return fc
    .constantFrom(...fields)
    .chain((field) => target.required![field]!.map((wrong) => ({ field, wrong })))
    .map(({ field, wrong }) => {
      const body: Record<string, unknown> = {
        description: 'ok',
        action: 'log',
        expression: 'http.host eq "www.example.com"',
        value: "script-src 'self'",
        enabled: true,
        hostname: 'ok.customer.example',
        ssl: { method: 'txt', type: 'dv', certificate_authority: '' },
        notification_email: '',
        name: 'ok',
        alert_type: 'load_balancing_health_alert',
        mechanisms: {},
        filters: { pool_id: [POOL_ID] },
      };
      body[field] = wrong;
      return JSON.stringify(body);
    });
}

/** A body with none of the required fields (random other keys). */
function missingFields(target: Target): fc.Arbitrary<string> {
  const required = new Set(Object.keys(target.required!));
  return fc
    .dictionary(
      fc.string({ minLength: 1, maxLength: 12 }).filter((key) => !required.has(key) && key !== '__proto__'),
      fc.jsonValue({ maxDepth: 2 }),
      { maxKeys: 4 },
    )
    .map((body) => JSON.stringify(body));
}

const malformedJson = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }).filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return true;
    }
  }),
  fc.constantFrom('{', '{"enabled": tru', '[1,', '{"a":1,}', 'nul'),
);
const nonObjectJson = fc
  .oneof(
    fc.integer(),
    fc.string({ maxLength: 10 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 3 }),
  )
  .map((value) => JSON.stringify(value));

/** An identifier that is not 32 lowercase hex characters. */
const malformedIdentifier = fc.oneof(
  fc
    .string({ minLength: 1, maxLength: 40 })
    .filter((s) => !/^[0-9a-f]{32}$/.test(s) && !/[/?#%]/.test(s) && s.trim() === s && s !== '.' && s !== '..'),
  fc.constantFrom('A'.repeat(32), 'g'.repeat(32), '0'.repeat(31), '0'.repeat(33)),
);
/** A path identifier that is malformed, or well-formed but unknown. */
const badIdentifier = fc.oneof(malformedIdentifier, fc.constant('f'.repeat(32)));

const badPaging = fc.oneof(
  fc.record({
    per_page: fc.oneof(
      fc.integer({ max: 0 }),
      fc.integer({ min: 1001, max: 10_000_000 }),
      fc.constantFrom('abc', '1.5', '-1', '', '0x10', '1e3'),
    ),
  }),
  fc.record({ page: fc.oneof(fc.integer({ max: 0 }), fc.constantFrom('two', '1.0', '', '-3')) }),
);

type BadRequest = {
  target: Target;
  path: string;
  body?: string;
  query?: Record<string, string | number>;
  contentType?: string;
};

const badRequest: fc.Arbitrary<BadRequest> = fc.constantFrom(...targets).chain((target) => {
  const slots = [...target.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const kinds: fc.Arbitrary<BadRequest>[] = [
    fc
      .record({ slot: fc.constantFrom(...slots), id: badIdentifier })
      .map((bad) => ({ target, path: fill(target.path, bad), ...(target.required ? { body: '{}' } : {}) })),
  ];
  if (target.required) {
    kinds.push(
      wrongField(target).map((body) => ({ target, path: fill(target.path), body: body as string })),
      ...(target.allOptional ? [] : [missingFields(target).map((body) => ({ target, path: fill(target.path), body }))]),
      malformedJson.map((body) => ({ target, path: fill(target.path), body })),
      nonObjectJson.map((body) => ({ target, path: fill(target.path), body })),
      fc
        .constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml')
        .map((contentType) => ({ target, path: fill(target.path), body: 'enabled=true', contentType })),
    );
  }
  if (target.paged) kinds.push(badPaging.map((query) => ({ target, path: fill(target.path), query })));
  return fc.oneof(...kinds);
});

async function state(): Promise<string> {
  const reply = await emu.control('GET', 'state');
  expect(reply.status).toBe(200);
  return JSON.stringify(reply.body.result);
}

test('no bad request gets a 5xx or changes state', async () => {
  await fc.assert(
    fc.asyncProperty(badRequest, async (bad) => {
      const before = await state();
      const response = await call(bad.target.method, `${emu.baseUrl}/${bad.path}`, {
        headers: {
          authorization: `Bearer ${TEST_TOKEN}`,
          ...(bad.body !== undefined ? { 'content-type': bad.contentType ?? 'application/json' } : {}),
        },
        ...(bad.body !== undefined ? { rawBody: bad.body } : {}),
        ...(bad.query ? { query: bad.query } : {}),
      });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(response.body).toEqual({ result: null, success: false, errors: expect.any(Array), messages: [] });
      expect(response.body.errors.length).toBeGreaterThan(0);
      for (const error of response.body.errors) {
        expect(Number.isInteger(error.code)).toBe(true);
        expect(typeof error.message).toBe('string');
      }
      expect(await state()).toBe(before);
    }),
    { numRuns: 400 },
  );
}, 120_000);

test('a bad control-API seed document gets a 400 and changes nothing', async () => {
  const badSeed = fc.oneof(
    fc.record({
      zones: fc.array(
        fc.record({ id: malformedIdentifier, name: fc.constant('x.example'), account_id: fc.constant(ACCOUNT_ID) }),
        { minLength: 1, maxLength: 2 },
      ),
    }),
    fc.record({
      pools: fc.array(
        fc.record({
          account_id: fc.constant(ACCOUNT_ID),
          name: fc.constant('p'),
          notification_email: fc.constant('not-an-email'),
        }),
        { minLength: 1, maxLength: 2 },
      ),
    }),
    fc.record({
      scripts: fc.array(
        fc.record({
          zone_id: fc.constant(ZONE_ID),
          url: fc.constant('https://x.example/a.js'),
          js_integrity_score: fc.oneof(fc.constant(-1), fc.constant(1000), fc.constant('high')),
        }),
        { minLength: 1, maxLength: 2 },
      ),
    }),
    fc.dictionary(
      fc
        .string({ minLength: 1, maxLength: 8 })
        .filter(
          (k) =>
            !['accounts', 'zones', 'tokens', 'scripts', 'connections', 'cookies', 'pools', '__proto__'].includes(k),
        ),
      fc.jsonValue({ maxDepth: 1 }),
      { minKeys: 1, maxKeys: 3 },
    ),
  );
  await fc.assert(
    fc.asyncProperty(badSeed, async (document) => {
      const before = await state();
      const reply = await emu.control('POST', 'seed', document);
      expect(reply.status).toBe(400);
      expect(reply.body.success).toBe(false);
      expect(await state()).toBe(before);
    }),
    { numRuns: 100 },
  );
}, 60_000);
