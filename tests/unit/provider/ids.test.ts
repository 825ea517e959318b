import { parsePluginId } from '../../../provider/plugin/ids';
import { PLUGIN_RESOURCES } from '../../../provider/plugin/resources';
import { provider as cspPolicy } from '../../../provider/dynamic/runtime/csp-policy';
import { provider as customHostname } from '../../../provider/dynamic/runtime/custom-hostname';
import { provider as healthNotification } from '../../../provider/dynamic/runtime/health-notification';
import { provider as pageSecuritySetting } from '../../../provider/dynamic/runtime/page-security-setting';
import { provider as poolNotificationMigration } from '../../../provider/dynamic/runtime/pool-notification-migration';

/**
 * One rule for identifiers on every resource: 32 hexadecimal characters in either case, stored in
 * the API's lower case (so the same id pasted in either case is no change), and anything else
 * refused at `check` with the same message shape, naming the property.
 */

const ZONE = '0123456789abcdef0123456789abcdef';
const ACCOUNT = 'fedcba9876543210fedcba9876543210';
const POOL = 'aaaabbbbccccddddeeeeffff00001111';

const cases = [
  {
    resource: 'PageSecuritySetting',
    provider: pageSecuritySetting,
    property: 'zoneId',
    what: "the zone's id",
    news: { zoneId: ZONE, enabled: true },
  },
  {
    resource: 'CspPolicy',
    provider: cspPolicy,
    property: 'zoneId',
    what: "the zone's id",
    news: {
      zoneId: ZONE,
      description: '',
      action: 'log',
      expression: 'http.host eq "shop.example.com"',
      value: "script-src 'self'",
    },
  },
  {
    resource: 'CustomHostname',
    provider: customHostname,
    property: 'zoneId',
    what: "the zone's id",
    news: { zoneId: ZONE, hostname: 'shop.customer.net', ssl: { method: 'txt', type: 'dv' } },
  },
  {
    resource: 'HealthNotification',
    provider: healthNotification,
    property: 'accountId',
    what: "the account's id",
    news: { accountId: ACCOUNT, name: 'Pool health', poolIds: [POOL] },
  },
  {
    resource: 'PoolNotificationMigration',
    provider: poolNotificationMigration,
    property: 'accountId',
    what: "the account's id",
    news: { accountId: ACCOUNT },
  },
];

describe.each(cases)('$resource', ({ provider, property, what, news }) => {
  const given = (news as Record<string, unknown>)[property] as string;

  test(`${property} in upper case is accepted and stored in lower case, as given in lower case`, async () => {
    const lower = await provider.check({}, news);
    const upper = await provider.check({}, { ...news, [property]: given.toUpperCase() });
    expect(upper.failures).toBeUndefined();
    expect(upper.inputs[property]).toBe(given);
    expect(upper.inputs).toEqual(lower.inputs);
  });

  test.each([
    ['one character short', given.slice(1), `"${given.slice(1)}"`],
    ['a character that is not hexadecimal', `g${given.slice(1)}`, `"g${given.slice(1)}"`],
    ['a number', 42, '42'],
  ])(`${property} %s is refused, naming the property`, async (_name, value, shown) => {
    const result = await provider.check({}, { ...news, [property]: value });
    expect(result.failures).toEqual([
      { property, reason: `must be ${what}: 32 hexadecimal characters (got ${shown})` },
    ]);
  });

  test(`a missing ${property} is refused, naming the property`, async () => {
    const result = await provider.check({}, { ...news, [property]: undefined });
    expect(result.failures).toEqual([{ property, reason: `is required: ${what}: 32 hexadecimal characters` }]);
  });
});

test('pool and webhook ids of a HealthNotification follow the same rule, webhooks and the adopted policy taking a UUID too (issue 42)', async () => {
  const result = await healthNotification.check(
    {},
    { accountId: ACCOUNT, name: 'Pool health', poolIds: [POOL.toUpperCase()], webhookIds: ['nope'] },
  );
  expect(result.failures).toEqual([
    {
      property: 'webhookIds[0]',
      reason:
        'must be a webhook id: 32 hexadecimal characters, or a UUID (8-4-4-4-12 hexadecimal characters) (got "nope")',
    },
  ]);
  // The vendor's alert policies and webhooks have UUID ids: taken at preview, in lower case.
  const uuid = 'B3A6C2E4-1F0D-4C8A-9E7B-5D2F1A0C3B4E';
  const vendor = await healthNotification.check(
    {},
    { accountId: ACCOUNT, name: 'Pool health', poolIds: [POOL], webhookIds: [uuid], adoptId: uuid },
  );
  expect(vendor.failures).toBeUndefined();
  expect(vendor.inputs.webhookIds).toEqual([uuid.toLowerCase()]);
  expect(vendor.inputs.adoptId).toBe(uuid.toLowerCase());
  // A pool id is no UUID, at the vendor either.
  const pool = await healthNotification.check({}, { accountId: ACCOUNT, name: 'Pool health', poolIds: [uuid] });
  expect(pool.failures?.map((failure) => failure.property)).toEqual(['poolIds[0]']);
  const accepted = await healthNotification.check(
    {},
    { accountId: ACCOUNT, name: 'Pool health', poolIds: [POOL.toUpperCase()] },
  );
  expect(accepted.inputs.poolIds).toEqual([POOL]);
});

test("the plugin's id of a HealthNotification takes the vendor's UUID policy id; the account's and other resources' ids stay 32 hexadecimal characters", () => {
  const entry = (resource: string) => [...PLUGIN_RESOURCES.values()].find((one) => one.runtime.resource === resource)!;
  const uuid = 'b3a6c2e4-1f0d-4c8a-9e7b-5d2f1a0c3b4e';
  expect(parsePluginId(entry('HealthNotification'), `${ACCOUNT}/${uuid.toUpperCase()}`)).toEqual({
    owner: ACCOUNT,
    runtimeId: uuid,
  });
  expect(() => parsePluginId(entry('HealthNotification'), `${uuid}/${uuid}`)).toThrow(
    /is not of the form <accountId>\/<policyId> .*; the policyId may also be a UUID/,
  );
  expect(() => parsePluginId(entry('CspPolicy'), `${ACCOUNT}/${uuid}`)).toThrow(
    /is not of the form <zoneId>\/<policyId>/,
  );
});
