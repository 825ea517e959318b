import { UNKNOWN } from '../../../provider/runtime/check';
import { changedProperties, type CspPolicyInputs, type CspPolicyOutputs } from '../../../provider/runtime/csp-policy';
import { provider } from '../../../provider/dynamic/runtime/csp-policy';
import { CSP_POLICY as GOOD } from '../../helpers/inputs';

/**
 * `CspPolicy`: check and diff as pure functions with exact expectations (its methods against the
 * emulator: tests/service/provider/csp-policy.test.ts).
 */

const OTHER_ZONE = 'c0000000000000000000000000000002';

const check = (news: Record<string, unknown>) => provider.check({}, news);

describe('check', () => {
  test('valid inputs come back parsed, with enabled defaulting to true and the texts as written', async () => {
    await expect(check(GOOD)).resolves.toEqual({ inputs: { ...GOOD, enabled: true } });
    await expect(check({ ...GOOD, enabled: false, action: 'log', description: '' })).resolves.toEqual({
      inputs: { ...GOOD, enabled: false, action: 'log', description: '' },
    });
  });

  test.each([
    [
      'a bad action',
      { action: 'block' },
      'action',
      'got "block"; it must be: "log" (report the scripts the value does not allow) or "allow" (block them)',
    ],
    [
      'a missing action',
      { action: undefined },
      'action',
      'is required: "log" (report the scripts the value does not allow) or "allow" (block them)',
    ],
    [
      'an unknown expression field',
      { expression: 'http.hots eq a.com' },
      'expression',
      'invalid field "http.hots" at position 0: unknown field; the only supported field is http.host, as in http.host eq "shop.example.com"',
    ],
    [
      'an unknown expression operator',
      { expression: 'http.host == a.com' },
      'expression',
      'invalid operator "==" at position 10: unknown operator; use eq, the only supported operator, as in http.host eq "shop.example.com"',
    ],
    [
      'a bad expression hostname',
      { expression: 'http.host eq "a..com"' },
      'expression',
      'invalid hostname "a..com" at position 15: two dots in a row leave an empty label',
    ],
    [
      'a scheme without //',
      { value: "script-src 'self' https:/cdn.example.com" },
      'value',
      'invalid source "https:/cdn.example.com" at position 18: a scheme must be followed by "://" (write https://cdn.example.com)',
    ],
    [
      'an unquoted keyword',
      { value: 'script-src self' },
      'value',
      'invalid source "self" at position 11: keywords and hashes must be in single quotes (write \'self\')',
    ],
    [
      'a port out of range',
      { value: "script-src 'self' cdn.example.com:99999" },
      'value',
      'invalid source "cdn.example.com:99999" at position 18: the port 99999 is out of range; a port is 1 to 65535, or * for any',
    ],
    [
      'a wildcard inside a label',
      { value: "script-src 'self' *cdn.example.com" },
      'value',
      'invalid source "*cdn.example.com" at position 18: a wildcard must be a whole label followed by a dot, as in *.example.com',
    ],
    [
      'a nonce, which the service refuses',
      { value: "script-src 'self' 'nonce-r4nd0m'" },
      'value',
      `invalid source "'nonce-r4nd0m'" at position 18: the service does not support nonces; use a hash`,
    ],
    [
      'a directive the service refuses',
      { value: "script-src 'self'; script-src-elem cdn.example.com" },
      'value',
      'invalid directive "script-src-elem" at position 19: the service does not support script-src-elem; write script-src',
    ],
    ['a missing zoneId', { zoneId: undefined }, 'zoneId', "is required: the zone's id: 32 hexadecimal characters"],
    ['a short zoneId', { zoneId: 'abc' }, 'zoneId', 'must be the zone\'s id: 32 hexadecimal characters (got "abc")'],
    [
      'a zoneId that is not a string',
      { zoneId: 42 },
      'zoneId',
      "must be the zone's id: 32 hexadecimal characters (got 42)",
    ],
    ['enabled as a string', { enabled: 'yes' }, 'enabled', 'must be true or false (got "yes")'],
    [
      'a missing description',
      { description: undefined },
      'description',
      'is required (it may be empty): what the policy is for',
    ],
    [
      'a description too long',
      { description: 'x'.repeat(1025) },
      'description',
      'must be at most 1024 characters (got 1025); shorten it',
    ],
    [
      'a missing value',
      { value: undefined },
      'value',
      "is required: the CSP directive, as in script-src 'self' cdn.example.com",
    ],
  ])('%s fails on its property', async (_name, patch, property, reason) => {
    const news = { ...GOOD, ...patch };
    await expect(check(news)).resolves.toEqual({ inputs: news, failures: [{ property, reason }] });
  });

  test("the service's directives beyond fetch ones are valid: frame-ancestors, upgrade-insecure-requests", async () => {
    const value =
      "script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'self'; upgrade-insecure-requests";
    await expect(check({ ...GOOD, value })).resolves.toEqual({ inputs: { ...GOOD, value, enabled: true } });
  });

  test('several bad properties give one failure each', async () => {
    const result = await check({ ...GOOD, action: 'deny', value: 'script-src self' });
    expect(result.failures?.map((f) => f.property)).toEqual(['action', 'value']);
  });

  test('preview unknowns are let through, and the known parts are still checked', async () => {
    const unknowns = { ...GOOD, zoneId: UNKNOWN, expression: UNKNOWN, value: UNKNOWN };
    await expect(check(unknowns)).resolves.toEqual({ inputs: unknowns });
    const knownBad = { ...unknowns, action: 'deny' };
    const result = await check(knownBad);
    expect(result.failures?.map((f) => f.property)).toEqual(['action']);
  });
});

describe('diff', () => {
  const olds: CspPolicyOutputs = { policyId: 'p'.repeat(32), ...GOOD, action: 'allow', enabled: true };
  const news = (patch: Partial<Record<keyof CspPolicyInputs, unknown>>): CspPolicyInputs =>
    ({ ...olds, ...patch }) as CspPolicyInputs;

  test.each([
    ['nothing', {}, []],
    ['reordered sources', { value: "script-src https://js.example.net/app.js cdn.example.com 'self'" }, []],
    [
      'extra whitespace and a trailing ;',
      { value: "  script-src\t'self'   cdn.example.com\nhttps://js.example.net/app.js ; " },
      [],
    ],
    [
      'a repeated source and other case',
      { value: "SCRIPT-SRC 'SELF' CDN.example.com cdn.example.com https://js.example.net/app.js" },
      [],
    ],
    ['the hostname unquoted, in other case', { expression: 'http.host   eq SHOP.example.com' }, []],
    ['a source added', { value: `${GOOD.value} https://other.example.org` }, ['value']],
    ['a source removed', { value: "script-src 'self' cdn.example.com" }, ['value']],
    ['a path changed case', { value: "script-src 'self' cdn.example.com https://js.example.net/App.js" }, ['value']],
    ['another hostname', { expression: 'http.host eq "www.example.com"' }, ['expression']],
    ['another action', { action: 'log' }, ['action']],
    ['another description', { description: 'shop' }, ['description']],
    ['enabled off', { enabled: false }, ['enabled']],
    ['another zone', { zoneId: OTHER_ZONE }, ['zoneId']],
    ['an unknown value', { value: UNKNOWN }, ['value']],
    ['an unknown expression', { expression: UNKNOWN }, ['expression']],
    ['upgrade-insecure-requests added', { value: `${GOOD.value}; upgrade-insecure-requests` }, ['value']],
  ])('%s: %j changes %j', (_name, patch, changed) => {
    expect(changedProperties(olds, news(patch))).toEqual(changed);
  });

  test('a value in the state that the grammar now refuses is compared as written, without failing', () => {
    const refused = "script-src 'self' 'nonce-r4nd0m' 'strict-dynamic'";
    const stored = { ...olds, value: refused };
    expect(changedProperties(stored, news({ value: refused }))).toEqual([]);
    expect(changedProperties(stored, news({ value: "script-src 'self'" }))).toEqual(['value']);
    expect(changedProperties(olds, news({ value: refused }))).toEqual(['value']);
  });

  test('a zoneId change replaces; other changes update in place; no change is no change', async () => {
    await expect(provider.diff('id', olds, news({ zoneId: OTHER_ZONE, value: "script-src 'none'" }))).resolves.toEqual({
      changes: true,
      replaces: ['zoneId'],
    });
    await expect(provider.diff('id', olds, news({ value: "script-src 'none'" }))).resolves.toEqual({
      changes: true,
      replaces: [],
    });
    await expect(
      provider.diff('id', olds, news({ value: "script-src cdn.example.com https://js.example.net/app.js 'self'" })),
    ).resolves.toEqual({
      changes: false,
      replaces: [],
    });
  });
});
