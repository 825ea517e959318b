import { ACCOUNT_ID, ZONE_ID } from '../../helpers/emulator';
import {
  loadVendorShapes,
  VENDOR_OPERATIONS,
  type CheckedRequest,
  type VendorShapes,
} from '../../helpers/vendor-shapes';

/**
 * The vendor-shape checker (`tests/helpers/vendor-shapes.ts`) on hand-made requests and answers:
 * each good one passes, and each bad one is caught, naming the operation and the field. The shapes
 * are the vendor SDK's declared types (npm `cloudflare` 7.1.0), generated here from its `.d.ts`.
 */

const Z = ZONE_ID;
const A = ACCOUNT_ID;
const ID = 'f0000000000000000000000000000001';
const PS = `/client/v4/zones/${Z}/page_shield`;
const POLICY = {
  action: 'log',
  description: 'checkout',
  enabled: true,
  expression: 'http.host eq "example.com"',
  value: "script-src 'self'",
};
const ALERT = {
  name: 'Pool health',
  alert_type: 'load_balancing_health_alert',
  enabled: true,
  mechanisms: { email: [{ id: 'ops@example.com' }], webhooks: [{ id: '0da2b59e-f118-439d-8097-bdfb215203c9' }] },
  filters: { pool_id: [ID], new_health: ['Unhealthy'], event_source: ['pool'] },
};

let shapes: VendorShapes;
beforeAll(() => {
  shapes = loadVendorShapes();
}, 120_000);

test('every operation EdgeGuard uses has a declared params type, and a response type unless it answers 204', () => {
  expect(new Set(VENDOR_OPERATIONS.map((operation) => operation.id)).size).toBe(27);
  for (const operation of VENDOR_OPERATIONS) {
    expect(shapes.paramsSchema(operation.id)).toHaveProperty('$schema');
    if (operation.answer !== 'empty') expect(shapes.responseSchema(operation.id)).toHaveProperty('$schema');
  }
});

test.each<[string, CheckedRequest, string]>([
  ['settings', { method: 'GET', path: PS }, 'pageShield.get'],
  ['a settings update', { method: 'PUT', path: PS, body: { enabled: true } }, 'pageShield.update'],
  [
    'a scripts list at the bound, with patterns starred at their ends',
    {
      method: 'GET',
      path: `${PS}/scripts`,
      query: {
        per_page: '100',
        page: '2',
        page_url: 'example.com/checkout*,*/pay',
        hosts: '*.example.com',
        exclude_cdn_cgi: 'false',
      },
    },
    'pageShield.scripts.list',
  ],
  ['a script', { method: 'GET', path: `${PS}/scripts/${ID}` }, 'pageShield.scripts.get'],
  [
    'a cookies list',
    { method: 'GET', path: `${PS}/cookies`, query: { hosts: 'example.com', per_page: '1' } },
    'pageShield.cookies.list',
  ],
  ['a policy create', { method: 'POST', path: `${PS}/policies`, body: POLICY }, 'pageShield.policies.create'],
  [
    'a partial policy update',
    { method: 'PUT', path: `${PS}/policies/${ID}`, body: { enabled: false } },
    'pageShield.policies.update',
  ],
  ['a policy delete', { method: 'DELETE', path: `${PS}/policies/${ID}`, body: null }, 'pageShield.policies.delete'],
  [
    'a branded custom hostname, the CA left out',
    {
      method: 'POST',
      path: `/client/v4/zones/${Z}/custom_hostnames`,
      body: { hostname: 'shop.example.net', ssl: { method: 'txt', type: 'dv', cloudflare_branding: true } },
    },
    'customHostnames.create',
  ],
  [
    'a custom hostname list by hostname.exact',
    {
      method: 'GET',
      path: `/client/v4/zones/${Z}/custom_hostnames`,
      query: { 'hostname.exact': 'shop.example.net', per_page: '50' },
    },
    'customHostnames.list',
  ],
  [
    'a custom hostname edit',
    {
      method: 'PATCH',
      path: `/client/v4/zones/${Z}/custom_hostnames/${ID}`,
      body: { ssl: { certificate_authority: 'lets_encrypt' } },
    },
    'customHostnames.edit',
  ],
  [
    'the pools bulk PATCH',
    { method: 'PATCH', path: `/client/v4/accounts/${A}/load_balancers/pools`, body: { notification_email: '' } },
    'loadBalancers.pools.bulkEdit',
  ],
  [
    'an alert policy create',
    { method: 'POST', path: `/client/v4/accounts/${A}/alerting/v3/policies`, body: ALERT },
    'alerting.policies.create',
  ],
  [
    'an alert policy update by UUID',
    {
      method: 'PUT',
      path: `/client/v4/accounts/${A}/alerting/v3/policies/0da2b59e-f118-439d-8097-bdfb215203c9`,
      body: ALERT,
    },
    'alerting.policies.update',
  ],
])('a good request passes: %s', (_name, request, operation) => {
  expect(shapes.match(request.method, request.path)?.operation.id).toBe(operation);
  expect(shapes.requestProblems(request)).toEqual([]);
});

test.each<[string, CheckedRequest, RegExp]>([
  ['the spec path', { method: 'GET', path: `/client/v4/zones/${Z}/page_security` }, /no operation of the vendor's API/],
  [
    'enabled as the string "true"',
    { method: 'POST', path: `${PS}/policies`, body: { ...POLICY, enabled: 'true' } },
    /pageShield\.policies\.create .*body\.enabled: must be boolean/,
  ],
  [
    'an action it does not declare',
    { method: 'POST', path: `${PS}/policies`, body: { ...POLICY, action: 'block' } },
    /body\.action: "block" is not one of \["allow","log","add_reporting_directives"\]/,
  ],
  [
    'a create without value',
    { method: 'POST', path: `${PS}/policies`, body: { ...POLICY, value: undefined } },
    /body: must have required property 'value'/,
  ],
  [
    'the certificate authority ""',
    {
      method: 'POST',
      path: `/client/v4/zones/${Z}/custom_hostnames`,
      body: { hostname: 'a.example.net', ssl: { method: 'txt', type: 'dv', certificate_authority: '' } },
    },
    /body\.ssl\.certificate_authority: "" is not one of/,
  ],
  [
    'branding at the top level',
    {
      method: 'POST',
      path: `/client/v4/zones/${Z}/custom_hostnames`,
      body: { hostname: 'a.example.net', ssl: { method: 'txt', type: 'dv' }, cloudflare_branding: true },
    },
    /body\.cloudflare_branding: not declared/,
  ],
  [
    'per_page 1000 on scripts',
    { method: 'GET', path: `${PS}/scripts`, query: { per_page: '1000' } },
    /query\.per_page: 1000 is outside the schema's bounds 1\.\.100/,
  ],
  [
    'per_page 4 on custom hostnames',
    { method: 'GET', path: `/client/v4/zones/${Z}/custom_hostnames`, query: { per_page: '4' } },
    /query\.per_page: 4 is outside the schema's bounds 5\.\.50/,
  ],
  [
    'per_page that is no number',
    { method: 'GET', path: `${PS}/connections`, query: { per_page: 'ten' } },
    /query\.per_page: must be number/,
  ],
  [
    'cookies listed by status',
    { method: 'GET', path: `${PS}/cookies`, query: { status: 'active' } },
    /pageShield\.cookies\.list .*query\.status: not declared/,
  ],
  [
    'cookies listed with exclude_cdn_cgi',
    { method: 'GET', path: `${PS}/cookies`, query: { exclude_cdn_cgi: 'true' } },
    /query\.exclude_cdn_cgi: not declared/,
  ],
  [
    'the hostname of the 2024 schema',
    { method: 'GET', path: `/client/v4/zones/${Z}/custom_hostnames`, query: { hostname: 'a.example.net' } },
    /query\.hostname: must be object/,
  ],
  [
    'a page_url starred in its middle',
    { method: 'GET', path: `${PS}/scripts`, query: { page_url: 'example.com/*/pay' } },
    /query\.page_url: "example\.com\/\*\/pay" has a \* that is neither at its start nor at its end/,
  ],
  [
    'a parameter given twice',
    { method: 'GET', path: `${PS}/scripts`, query: { hosts: ['a.com', 'b.com'] } },
    /query\.hosts: given 2 times, declared once/,
  ],
  [
    'paging on the pools bulk PATCH',
    {
      method: 'PATCH',
      path: `/client/v4/accounts/${A}/load_balancers/pools`,
      query: { per_page: '25' },
      body: { notification_email: '' },
    },
    /query\.per_page: not declared/,
  ],
  [
    'an address on the pools bulk PATCH',
    { method: 'PATCH', path: `/client/v4/accounts/${A}/load_balancers/pools`, body: { notification_email: 'a@b.com' } },
    /body\.notification_email: "a@b\.com" is not ""/,
  ],
  [
    'a body on a GET',
    { method: 'GET', path: PS, body: { enabled: true } },
    /body: PageShieldGetParams declares no body on a GET/,
  ],
  [
    'a settings update with a field it does not declare',
    { method: 'PUT', path: PS, body: { enabled: true, use_edgeguard_reporting_endpoint: true } },
    /body\.use_edgeguard_reporting_endpoint: not declared/,
  ],
  [
    'an alert policy without a name',
    { method: 'POST', path: `/client/v4/accounts/${A}/alerting/v3/policies`, body: { ...ALERT, name: undefined } },
    /body: must have required property 'name'/,
  ],
])('a bad request is caught: %s', (_name, request, problem) => {
  const problems = shapes.requestProblems(JSON.parse(JSON.stringify(request)) as CheckedRequest);
  expect(problems).toContainEqual(expect.stringMatching(problem));
});

describe('answers', () => {
  const script = {
    id: ID,
    url: 'https://cdn.example.com/a.js',
    added_at: '2026-01-01T00:00:00.000Z',
    first_seen_at: '2026-01-01T00:00:00.000Z',
    last_seen_at: '2026-01-01T00:00:00.000Z',
    host: 'example.com',
    url_contains_cdn_cgi_path: false,
    hash: null,
    js_integrity_score: null,
  };

  test('a scripts list of the declared shape passes, nulls where nullable', () => {
    expect(shapes.answerProblems('pageShield.scripts.list', 200, { result: [script], success: true })).toEqual([]);
  });

  test.each<[string, string, number, unknown, RegExp]>([
    [
      'a script with status',
      'pageShield.scripts.list',
      200,
      { result: [{ ...script, status: 'active' }] },
      /result\[0\]\.status: not declared/,
    ],
    [
      'a script without url',
      'pageShield.scripts.get',
      200,
      { result: { ...script, url: undefined } },
      /result: must have required property 'url'/,
    ],
    [
      'a policy with enabled "true"',
      'pageShield.policies.get',
      200,
      { result: { id: ID, ...POLICY, enabled: 'true' } },
      /result\.enabled: must be boolean/,
    ],
    [
      'a policy delete answered 200',
      'pageShield.policies.delete',
      200,
      { result: { id: ID } },
      /expected HTTP 204 with no body/,
    ],
    [
      'a custom hostname delete in an envelope',
      'customHostnames.delete',
      200,
      { result: { id: ID }, success: true },
      /body\.result: not declared/,
    ],
    ['a list that is no array', 'loadBalancers.pools.list', 200, { result: {} }, /result must be an array/],
    [
      'a cookie with a null max_age_attribute',
      'pageShield.cookies.get',
      200,
      {
        result: {
          id: ID,
          first_seen_at: 'x',
          last_seen_at: 'x',
          host: 'h',
          name: 'n',
          type: 'first_party',
          max_age_attribute: null,
        },
      },
      /result\.max_age_attribute: must be number/,
    ],
  ])('a bad answer is caught: %s', (_name, operation, status, body, problem) => {
    expect(shapes.answerProblems(operation, status, body)).toContainEqual(expect.stringMatching(problem));
  });

  test.each<[string, string, number, unknown]>([
    ['a policy delete answered 204', 'pageShield.policies.delete', 204, undefined],
    ['a bare custom hostname delete', 'customHostnames.delete', 200, { id: ID }],
    [
      'an alert policy delete without result',
      'alerting.policies.delete',
      200,
      { success: true, errors: [], messages: [] },
    ],
    [
      'a custom hostname echoing ssl.cloudflare_branding',
      'customHostnames.get',
      200,
      {
        result: {
          id: ID,
          hostname: 'a.example.net',
          status: 'pending',
          ssl: { status: 'initializing', cloudflare_branding: true },
        },
      },
    ],
  ])('a good answer passes: %s', (_name, operation, status, body) => {
    expect(shapes.answerProblems(operation, status, body)).toEqual([]);
  });
});
