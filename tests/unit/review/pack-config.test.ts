import type { ResourceValidationArgs } from '@pulumi/policy';
import type { StackValidationArgs } from '@pulumi/policy';
import { hearingPolicy, HEARING_POLICY_NAME } from '../../../provider/pack/policies';
import { ACCEPTED_KEY, acceptanceOf } from '../../../provider/review/pack-config';

/**
 * The pack hears the resources the program declares through `@pulumi/policy`'s own interface
 * (`hearingPolicy` of `provider/pack/policies.ts`, issue 43): a resource policy whose
 * `validateResource` `@pulumi/policy` calls in the engine's `Analyze` of each resource, with its
 * inputs behind `@pulumi/policy`'s proxy that throws on a value unknown at the preview. The read
 * ahead judges a zone ahead once the program declares its resources, and not when it declares one
 * of the zone's policies otherwise (tests/service/review/read-ahead.test.ts); through the real
 * engine, tests/engine/review/payment-review.test.ts.
 */

// @pulumi/policy's proxy of a resource's inputs, as its Analyze handler gives them to a policy.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const proxy = require('@pulumi/policy/proxy') as {
  unknownCheckingProxy<T extends object>(inputs: T): T;
  unknownStringValue: unknown;
};

const INPUTS = {
  zoneId: 'c0ffee',
  action: 'allow',
  expression: 'http.host eq "checkout.example.com"',
  value: "script-src 'self'",
  enabled: true,
};

/** The policy's validation of a resource of `type` with `inputs`, as @pulumi/policy calls it; what it heard. */
function heardOf(type: string, inputs: Record<string, unknown>, hear?: () => void) {
  const heard: Array<[string, string, Record<string, unknown>]> = [];
  const reported: string[] = [];
  const policy = hearingPolicy((urn, type, inputs) => {
    hear?.();
    heard.push([urn, type, inputs]);
  });
  const urn = `urn:pulumi:dev::shop::${type}::checkout`;
  const args = {
    type,
    urn,
    name: 'checkout',
    props: proxy.unknownCheckingProxy({ ...inputs }),
  } as unknown as ResourceValidationArgs;
  (policy.validateResource as (args: ResourceValidationArgs, report: (message: string) => void) => void)(
    args,
    (message) => reported.push(message),
  );
  expect(reported).toEqual([]);
  return { urn, heard };
}

test("a CSP policy's inputs are heard, of both kinds of resource, as @pulumi/policy gives them; it reports nothing", () => {
  expect(hearingPolicy(() => undefined)).toMatchObject({ name: HEARING_POLICY_NAME, enforcementLevel: 'advisory' });
  for (const type of ['pulumi-nodejs:dynamic/edgeguard:CspPolicy', 'edgeguard:index:CspPolicy']) {
    const { urn, heard } = heardOf(type, { ...INPUTS, __provider: 'exports.handler = ...' });
    // What the judging ahead compares, not a dynamic resource's serialized provider.
    expect(heard).toEqual([[urn, type, INPUTS]]);
  }
});

test('a value unknown at the preview is heard as unknown, not thrown; another resource is heard without its inputs', () => {
  const type = 'edgeguard:index:CspPolicy';
  const { heard } = heardOf(type, { ...INPUTS, value: proxy.unknownStringValue });
  expect(heard[0]![2]).toEqual({ ...INPUTS, value: '<unknown at preview>' });
  const inventory = 'pulumi-nodejs:dynamic/edgeguard:ScriptInventory';
  expect(heardOf(inventory, { zoneId: 'c0ffee', __provider: 'exports.handler = ...' }).heard[0]![2]).toEqual({});
});

test('a hearing that throws leaves the analysis alone', () => {
  expect(() =>
    heardOf('edgeguard:index:CspPolicy', INPUTS, () => {
      throw new Error('boom');
    }),
  ).not.toThrow();
});

describe("the accepted scripts and connections of a policy's configuration (acceptanceOf)", () => {
  const accepting = (kind: 'scripts' | 'connections', items: unknown[]) =>
    acceptanceOf({ getConfig: () => ({ [ACCEPTED_KEY[kind]]: items }) } as unknown as StackValidationArgs, kind);

  test.each(['scripts', 'connections'] as const)(
    '%s: a prefix accepts what is under it by origin and path, as the inventory does, not by text',
    (kind) => {
      const accepted = accepting(kind, [
        { prefix: 'https://cdn.example.com', reason: 'our CDN' },
        { prefix: 'https://api.example.com/v1/', reason: 'our API' },
        { url: 'https://pay.example.com/sdk.js', reason: 'the payment SDK' },
      ]);
      expect(accepted('https://cdn.example.com/x.js')).toBe('our CDN');
      expect(accepted('https://cdn.example.com/')).toBe('our CDN');
      // Another host whose name begins with the prefix's, another port, another scheme.
      expect(accepted('https://cdn.example.com.evil.net/x.js')).toBeUndefined();
      expect(accepted('https://cdn.example.com:8443/x.js')).toBeUndefined();
      expect(accepted('http://cdn.example.com/x.js')).toBeUndefined();
      // A path prefix covers whole segments, percent-decoded.
      expect(accepted('https://api.example.com/v1/pay')).toBe('our API');
      expect(accepted('https://api.example.com/v1%2Fpay')).toBe('our API');
      expect(accepted('https://api.example.com/v10/pay')).toBeUndefined();
      expect(accepted('https://pay.example.com/sdk.js')).toBe('the payment SDK');
      expect(accepted('https://pay.example.com/sdk.js.evil.net')).toBeUndefined();
      expect(accepted('not a url')).toBeUndefined();
    },
  );

  test('a prefix that is no URL, or that ends inside a path segment, is refused naming the entry', () => {
    expect(() => accepting('scripts', [{ prefix: 'cdn.example.com', reason: 'r' }])).toThrow(
      'acceptedScripts[0].prefix: "cdn.example.com" is not an absolute URL with a host',
    );
    expect(() =>
      accepting('connections', [
        { url: 'https://a.example.com/', reason: 'r' },
        { prefix: 'https://api.example.com/v1', reason: 'r' },
      ]),
    ).toThrow('acceptedConnections[1].prefix: "https://api.example.com/v1" does not end in "/"');
  });
});
