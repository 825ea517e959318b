import * as pulumi from '@pulumi/pulumi';
import { CustomHostnameValidation } from '../../../provider/resources/custom-hostname-validation';
import { UNKNOWN } from '../../../provider/runtime/check';
import {
  runtime as described,
  type CustomHostnameValidationInputs,
  type CustomHostnameValidationOutputs,
} from '../../../provider/runtime/custom-hostname-validation';
import { provider as runtime } from '../../../provider/dynamic/runtime/custom-hostname-validation';
import type { RuntimeDiff } from '../../../provider/runtime/contract';
import { decideDiff } from '../../../provider/runtime/host';
import { validationInputs as inputs, ZONE } from '../../helpers/inputs';

/**
 * `CustomHostnameValidation`: check and diff tables and the class's registration (its methods
 * against the emulator: tests/service/provider/custom-hostname-validation.test.ts).
 */

const provider = runtime as Required<pulumi.dynamic.ResourceProvider>;

describe('check', () => {
  test('valid inputs get the default timeout and lowercase ids', async () => {
    expect(await provider.check({}, inputs({ customHostnameId: 'F'.repeat(32) }))).toEqual({
      inputs: { zoneId: ZONE, customHostnameId: 'f'.repeat(32), timeoutSeconds: 600 },
    });
  });

  test.each([
    [
      'a short hostname id',
      'customHostnameId',
      { customHostnameId: 'abc' },
      /^must be the custom hostname's id .*: 32 hexadecimal characters \(got "abc"\)/,
    ],
    ['no hostname id', 'customHostnameId', { customHostnameId: undefined }, /32 hexadecimal characters/],
    ['a bad zone id', 'zoneId', { zoneId: 'zone' }, /the zone's id: 32 hexadecimal characters \(got "zone"\)/],
    ['a zero timeout', 'timeoutSeconds', { timeoutSeconds: 0 }, /^must be at least 1 second/],
    ['a timeout over an hour', 'timeoutSeconds', { timeoutSeconds: 3601 }, /^must be at most 3600 seconds/],
    ['a fractional timeout', 'timeoutSeconds', { timeoutSeconds: 2.5 }, /^must be a whole number of seconds/],
    ['a timeout as text', 'timeoutSeconds', { timeoutSeconds: '60' }, /^must be a number of seconds \(got "60"\)/],
  ])('%s fails on %s', async (_name, property, overrides, reason) => {
    const failures = (await provider.check({}, inputs(overrides))).failures ?? [];
    expect(failures).toHaveLength(1);
    expect(failures[0]!.property).toBe(property);
    expect(failures[0]!.reason).toMatch(reason);
  });

  test('a hostname id unknown during preview is let through', async () => {
    const news = inputs({ customHostnameId: UNKNOWN });
    expect(await provider.check({}, news)).toEqual({ inputs: news });
  });
});

describe('diff', () => {
  const olds: CustomHostnameValidationOutputs = {
    zoneId: ZONE,
    customHostnameId: 'f'.repeat(32),
    timeoutSeconds: 600,
    hostname: 'shop.customer.net',
    status: 'active',
    sslStatus: 'active',
    certificateAuthorityInUse: 'google',
    verificationErrors: [],
  };
  const news: CustomHostnameValidationInputs = { zoneId: ZONE, customHostnameId: 'f'.repeat(32), timeoutSeconds: 600 };

  test.each<[string, Partial<CustomHostnameValidationOutputs>, Partial<CustomHostnameValidationInputs>, RuntimeDiff]>([
    ['nothing changed, active', {}, {}, { changed: [], replaces: [] }],
    [
      'another hostname',
      {},
      { customHostnameId: 'e'.repeat(32) },
      { changed: ['customHostnameId'], replaces: ['customHostnameId'] },
    ],
    [
      'a hostname unknown in preview',
      {},
      { customHostnameId: UNKNOWN },
      { changed: ['customHostnameId'], replaces: ['customHostnameId'] },
    ],
    ['another zone', {}, { zoneId: 'c0000000000000000000000000000002' }, { changed: ['zoneId'], replaces: ['zoneId'] }],
    ['another timeout', {}, { timeoutSeconds: 60 }, { changed: ['timeoutSeconds'], replaces: [] }],
    ['moved (found by refresh)', { status: 'moved' }, {}, { changed: ['status'], replaces: [] }],
    [
      'pending (a timeout kept in the state)',
      { status: 'pending', sslStatus: 'pending_validation' },
      {},
      { changed: ['status'], replaces: [] },
    ],
    ['caa_error', { status: 'caa_error', sslStatus: 'caa_error' }, {}, { changed: ['status'], replaces: [] }],
    [
      'active with the certificate pending',
      { sslStatus: 'pending_validation' },
      {},
      { changed: ['sslStatus'], replaces: [] },
    ],
  ])('%s', (_name, oldOverrides, newOverrides, expected) => {
    expect(decideDiff(described, { ...olds, ...oldOverrides }, { ...news, ...newOverrides })).toEqual(expected);
  });
});

describe('resource class', () => {
  test('registers its inputs under edgeguard:CustomHostnameValidation with the one-line provider module', async () => {
    const registered: pulumi.runtime.MockResourceArgs[] = [];
    await pulumi.runtime.setMocks({
      newResource: (args) => {
        registered.push(args);
        return { id: 'f'.repeat(32), state: { ...args.inputs, status: 'active' } };
      },
      call: () => ({}),
    });
    const validation = new CustomHostnameValidation('wait', { zoneId: ZONE, customHostnameId: 'f'.repeat(32) });
    expect(await new Promise((resolve) => validation.status.apply(resolve))).toBe('active');
    const [declaration] = registered;
    expect(declaration?.type).toBe('pulumi-nodejs:dynamic/edgeguard:CustomHostnameValidation');
    expect(Object.keys(declaration?.inputs ?? {}).sort()).toEqual(['__provider', 'customHostnameId', 'zoneId']);
    expect(declaration?.inputs.__provider).toBe(
      "exports.handler = () => require('node:module').createRequire(process.cwd() + '/program.js')('pulumi-edgeguard/runtime/custom-hostname-validation').provider;",
    );
  });
});
