import * as pulumi from '@pulumi/pulumi';
import { CustomHostname } from '../../../provider/resources/custom-hostname';
import { UNKNOWN } from '../../../provider/runtime/check';
import {
  runtime as described,
  type CustomHostnameInputs,
  type CustomHostnameOutputs,
} from '../../../provider/runtime/custom-hostname';
import { provider as runtime } from '../../../provider/dynamic/runtime/custom-hostname';
import type { RuntimeDiff } from '../../../provider/runtime/contract';
import { decideDiff } from '../../../provider/runtime/host';
import { customHostnameInputs as inputs, hostnameOfLength, ZONE } from '../../helpers/inputs';

/**
 * `CustomHostname`: check and diff tables, the pacing settings and the class's registration (its
 * methods against the emulator: tests/service/provider/custom-hostname.test.ts).
 */

const provider = runtime as Required<pulumi.dynamic.ResourceProvider>;

describe('check', () => {
  test('valid inputs get their defaults and a lowercased hostname', async () => {
    expect(await provider.check({}, inputs({ hostname: 'Shop.Customer.NET' }))).toEqual({
      inputs: {
        zoneId: ZONE,
        hostname: 'shop.customer.net',
        ssl: { method: 'txt', type: 'dv', certificateAuthority: '' },
        branding: false,
        waitForActive: false,
        waitTimeoutSeconds: 300,
      },
    });
  });

  test('a 65-character hostname without branding fails, naming error 1469 and branding', async () => {
    const hostname = hostnameOfLength(65);
    const result = await provider.check({}, inputs({ hostname }));
    expect(result.failures).toEqual([
      {
        property: 'hostname',
        reason:
          `"${hostname}" is 65 characters long, over the 64-character limit of a certificate Common Name (RFC 5280): the service refuses it with error 1469. ` +
          'Set branding to true (the Common Name is then a shared service hostname and this hostname goes into the Subject Alternative Name), ' +
          'or use a hostname of at most 64 characters',
      },
    ]);
  });

  test('the test hostnames have the length asked for', () => {
    expect([63, 64, 65, 94, 120].map((n) => hostnameOfLength(n).length)).toEqual([63, 64, 65, 94, 120]);
  });

  test.each([
    ['65 characters with branding', { hostname: hostnameOfLength(65), branding: true }],
    ['64 characters without branding', { hostname: hostnameOfLength(64) }],
    ['a wildcard', { hostname: '*.customer.net' }],
    ['every certificate authority', { ssl: { method: 'http', type: 'dv', certificateAuthority: 'lets_encrypt' } }],
    ['a wait of an hour', { waitForActive: true, waitTimeoutSeconds: 3600 }],
  ])('%s passes', async (_name, overrides) => {
    expect((await provider.check({}, inputs(overrides))).failures).toBeUndefined();
  });

  test.each([
    [
      'a wildcard counts its "*." toward 64',
      'hostname',
      { hostname: `*.${hostnameOfLength(63)}` },
      /is 65 characters long.*error 1469.*branding/,
    ],
    [
      'a space',
      'hostname',
      { hostname: 'shop customer.net' },
      /^invalid hostname "shop customer\.net" at position 4: the character " " is not allowed/,
    ],
    ['an underscore', 'hostname', { hostname: 'shop_1.customer.net' }, /the character "_" is not allowed/],
    ['a single label', 'hostname', { hostname: 'localhost' }, /needs at least two/],
    ['a wildcard inside', 'hostname', { hostname: 'shop.*.customer.net' }, /can only be the whole first label/],
    ['no hostname', 'hostname', { hostname: undefined }, /^is required: a DNS name/],
    ['a short zone id', 'zoneId', { zoneId: 'c0ffee' }, /32 hexadecimal characters \(got "c0ffee"\)/],
    [
      'an unknown ssl.method',
      'ssl.method',
      { ssl: { method: 'email', type: 'dv' } },
      /^must be one of "txt", "http" \(got "email"\)/,
    ],
    ['an unknown ssl.type', 'ssl.type', { ssl: { method: 'txt', type: 'ev' } }, /^must be one of "dv" \(got "ev"\)/],
    [
      'an unknown certificate authority',
      'ssl.certificateAuthority',
      { ssl: { method: 'txt', type: 'dv', certificateAuthority: 'digicert' } },
      /^must be one of "", "google", "lets_encrypt" \(got "digicert"\)/,
    ],
    ['no ssl', 'ssl', { ssl: undefined }, /^is required: the certificate settings/],
    ['branding as a string', 'branding', { branding: 'yes' }, /^must be true or false \(got "yes"\)/],
    ['a zero timeout', 'waitTimeoutSeconds', { waitTimeoutSeconds: 0 }, /^must be at least 1 second/],
    ['a fractional timeout', 'waitTimeoutSeconds', { waitTimeoutSeconds: 1.5 }, /^must be a whole number/],
  ])('%s fails on %s', async (_name, property, overrides, reason) => {
    const failures = (await provider.check({}, inputs(overrides))).failures ?? [];
    expect(failures).toHaveLength(1);
    expect(failures[0]!.property).toBe(property);
    expect(failures[0]!.reason).toMatch(reason);
  });

  test('every bad field is reported at once, the length rule only once hostname and branding are valid', async () => {
    const failures =
      (
        await provider.check(
          {},
          inputs({ zoneId: 'x', hostname: hostnameOfLength(70), ssl: { method: 'dns', type: 'dv' }, branding: 1 }),
        )
      ).failures ?? [];
    expect(failures.map((f) => f.property)).toEqual(['zoneId', 'ssl.method', 'branding']);
  });

  test.each([
    ['the hostname', { hostname: UNKNOWN }],
    ['branding, with a long hostname', { hostname: hostnameOfLength(80), branding: UNKNOWN }],
    ['the zone id', { zoneId: UNKNOWN }],
    ['ssl.method', { ssl: { method: UNKNOWN, type: 'dv' } }],
    ['the whole ssl', { ssl: UNKNOWN }],
    ['the timeout', { waitTimeoutSeconds: UNKNOWN }],
  ])('a preview unknown in %s is let through', async (_name, overrides) => {
    const news = inputs(overrides);
    expect(await provider.check({}, news)).toEqual({ inputs: news });
  });
});

describe('diff', () => {
  const olds: CustomHostnameOutputs = {
    zoneId: ZONE,
    hostname: 'shop.customer.net',
    ssl: { method: 'txt', type: 'dv', certificateAuthority: '' },
    branding: false,
    waitForActive: false,
    waitTimeoutSeconds: 300,
    customHostnameId: 'f'.repeat(32),
    status: 'active',
    sslStatus: 'active',
    certificateAuthorityInUse: 'google',
    verificationErrors: [],
    ownershipRecordName: '_edgeguard-custom-hostname.shop.customer.net',
    ownershipRecordValue: 'token',
    createdAt: '2025-01-01T00:00:00.000Z',
  };
  const news: CustomHostnameInputs = {
    zoneId: olds.zoneId,
    hostname: olds.hostname,
    ssl: olds.ssl,
    branding: false,
    waitForActive: false,
    waitTimeoutSeconds: 300,
  };

  test.each<[string, Partial<CustomHostnameOutputs>, Partial<CustomHostnameInputs>, RuntimeDiff]>([
    ['nothing changed', {}, {}, { changed: [], replaces: [], deleteBeforeReplace: false }],
    [
      'the hostname in another case',
      {},
      { hostname: 'Shop.Customer.Net' },
      { changed: [], replaces: [], deleteBeforeReplace: false },
    ],
    [
      'a requested "" against a state without it',
      { ssl: { method: 'txt', type: 'dv', certificateAuthority: '' } },
      { ssl: { method: 'txt', type: 'dv', certificateAuthority: '' } },
      { changed: [], replaces: [], deleteBeforeReplace: false },
    ],
    [
      'another hostname',
      {},
      { hostname: 'www.customer.net' },
      { changed: ['hostname'], replaces: ['hostname'], deleteBeforeReplace: false },
    ],
    [
      'another zone',
      {},
      { zoneId: 'c0000000000000000000000000000002' },
      { changed: ['zoneId'], replaces: ['zoneId'], deleteBeforeReplace: true },
    ],
    [
      'branding turned on',
      {},
      { branding: true },
      { changed: ['branding'], replaces: ['branding'], deleteBeforeReplace: true },
    ],
    [
      'a hostname unknown in preview',
      {},
      { hostname: UNKNOWN },
      { changed: ['hostname'], replaces: ['hostname'], deleteBeforeReplace: false },
    ],
    [
      'another certificate authority',
      {},
      { ssl: { method: 'txt', type: 'dv', certificateAuthority: 'lets_encrypt' } },
      { changed: ['ssl'], replaces: [], deleteBeforeReplace: false },
    ],
    [
      'a requested "" against an authority in the state (named earlier, adopted or imported): the one in use satisfies it',
      { ssl: { method: 'txt', type: 'dv', certificateAuthority: 'lets_encrypt' } },
      { ssl: { method: 'txt', type: 'dv', certificateAuthority: '' } },
      { changed: [], replaces: [], deleteBeforeReplace: false },
    ],
    [
      'another authority named where one was named',
      { ssl: { method: 'txt', type: 'dv', certificateAuthority: 'lets_encrypt' } },
      { ssl: { method: 'txt', type: 'dv', certificateAuthority: 'google' } },
      { changed: ['ssl'], replaces: [], deleteBeforeReplace: false },
    ],
    [
      'another ssl.method',
      {},
      { ssl: { method: 'http', type: 'dv', certificateAuthority: '' } },
      { changed: ['ssl'], replaces: [], deleteBeforeReplace: false },
    ],
    [
      'waitTimeoutSeconds',
      {},
      { waitTimeoutSeconds: 60 },
      { changed: ['waitTimeoutSeconds'], replaces: [], deleteBeforeReplace: false },
    ],
    ['status moved', { status: 'moved' }, {}, { changed: ['status'], replaces: [], deleteBeforeReplace: false }],
    [
      'status caa_error',
      { status: 'caa_error' },
      {},
      { changed: ['status'], replaces: [], deleteBeforeReplace: false },
    ],
    ['status blocked', { status: 'blocked' }, {}, { changed: ['status'], replaces: [], deleteBeforeReplace: false }],
    ['status pending', { status: 'pending' }, {}, { changed: [], replaces: [], deleteBeforeReplace: false }],
    [
      'status pending while waitForActive asks for active',
      { status: 'pending', waitForActive: true },
      { waitForActive: true },
      { changed: ['status'], replaces: [], deleteBeforeReplace: false },
    ],
  ])('%s', (_name, oldOverrides, newOverrides, expected) => {
    expect(decideDiff(described, { ...olds, ...oldOverrides }, { ...news, ...newOverrides })).toEqual(expected);
  });
});

describe('resource class', () => {
  test('registers the inputs with the one-line provider, and get reads by id with the zone', async () => {
    const registered: pulumi.runtime.MockResourceArgs[] = [];
    await pulumi.runtime.setMocks({
      newResource: (args) => {
        registered.push(args);
        return { id: args.id || 'f'.repeat(32), state: { ...args.inputs, status: 'pending' } };
      },
      call: () => ({}),
    });
    const declared = new CustomHostname('shop', {
      zoneId: ZONE,
      hostname: 'shop.customer.net',
      ssl: { method: 'txt', type: 'dv' },
      waitForActive: true,
    });
    const looked = CustomHostname.get('existing', 'e'.repeat(32), { zoneId: ZONE });
    const status = await new Promise((resolve) => declared.status.apply(resolve));
    const lookedId = await new Promise((resolve) => looked.id.apply(resolve));
    expect([status, lookedId]).toEqual(['pending', 'e'.repeat(32)]);

    const [lookup, declaration] = [
      registered.find((r) => r.name === 'existing'),
      registered.find((r) => r.name === 'shop'),
    ];
    expect(declaration?.type).toBe('pulumi-nodejs:dynamic/edgeguard:CustomHostname');
    expect(Object.keys(declaration?.inputs ?? {}).sort()).toEqual([
      '__provider',
      'hostname',
      'ssl',
      'waitForActive',
      'zoneId',
    ]);
    expect(declaration?.inputs.__provider).toBe(
      "exports.handler = () => require('node:module').createRequire(process.cwd() + '/program.js')('pulumi-edgeguard/runtime/custom-hostname').provider;",
    );
    expect(lookup).toMatchObject({ id: 'e'.repeat(32), inputs: { zoneId: ZONE } });
    expect(Object.keys(lookup?.inputs ?? {}).sort()).toEqual(['__provider', 'zoneId']);
  });
});
