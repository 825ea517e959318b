import * as pulumi from '@pulumi/pulumi';
import { sameFilters } from '../../../provider/client/notifications';
import { HealthNotification } from '../../../provider/resources/health-notification';
import { UNKNOWN } from '../../../provider/runtime/check';
import { provider } from '../../../provider/dynamic/runtime/health-notification';
import { ACCOUNT, POOL_A, POOL_B, POOL_C, WEBHOOK } from '../../helpers/inputs';

/**
 * `HealthNotification`: check and diff as pure tables, the create recovery's match and the
 * class's registration (its methods against the emulator:
 * tests/service/provider/health-notification.test.ts).
 */

/** A credential the serialized provider must not hold. */
const TOKEN = 'health-notification-token-5f2a9c';

const check = (news: Record<string, unknown>) => provider.check({}, news);
const diff = (olds: Record<string, unknown>, news: Record<string, unknown>) => provider.diff('id', olds, news);

describe('check', () => {
  test('applies the defaults and stores the lists as sorted sets, ids in lower case', async () => {
    const result = await check({
      accountId: ACCOUNT.toUpperCase(),
      name: 'Pool health',
      poolIds: [POOL_B, POOL_A.toUpperCase(), POOL_B],
    });
    expect(result).toEqual({
      inputs: {
        accountId: ACCOUNT,
        name: 'Pool health',
        description: '',
        enabled: true,
        poolIds: [POOL_A, POOL_B],
        newHealth: ['Healthy', 'Unhealthy'],
        eventSource: ['origin', 'pool'],
        emails: [],
        webhookIds: [],
      },
    });
  });

  test('keeps every field given, and ignores keys that are not inputs (the engine adds __provider)', async () => {
    const result = await check({
      __provider: 'serialized',
      accountId: ACCOUNT,
      name: 'n',
      description: 'd',
      enabled: false,
      poolIds: [POOL_A],
      newHealth: ['Unhealthy'],
      eventSource: ['origin'],
      emails: ['b@example.com', 'a@example.com', 'b@example.com'],
      webhookIds: [WEBHOOK],
    });
    expect(result).toEqual({
      inputs: {
        accountId: ACCOUNT,
        name: 'n',
        description: 'd',
        enabled: false,
        poolIds: [POOL_A],
        newHealth: ['Unhealthy'],
        eventSource: ['origin'],
        emails: ['a@example.com', 'b@example.com'],
        webhookIds: [WEBHOOK],
      },
    });
  });

  const valid = { accountId: ACCOUNT, name: 'n', poolIds: [POOL_A] };
  test.each<[string, Record<string, unknown>, Array<{ property: string; reason: RegExp }>]>([
    [
      'accountId too short',
      { ...valid, accountId: 'abc' },
      [{ property: 'accountId', reason: /^must be the account's id: 32 hexadecimal characters \(got "abc"\)$/ }],
    ],
    [
      'accountId missing',
      { name: 'n', poolIds: [POOL_A] },
      [{ property: 'accountId', reason: /^is required: the account's id: 32 hexadecimal characters$/ }],
    ],
    ['name empty', { ...valid, name: '' }, [{ property: 'name', reason: /^must not be empty/ }]],
    ['name blank', { ...valid, name: '   ' }, [{ property: 'name', reason: /^must not be empty/ }]],
    ['name missing', { accountId: ACCOUNT, poolIds: [POOL_A] }, [{ property: 'name', reason: /^is required: a name/ }]],
    [
      'name too long',
      { ...valid, name: 'x'.repeat(257) },
      [{ property: 'name', reason: /^must be at most 256 characters$/ }],
    ],
    ['poolIds empty', { ...valid, poolIds: [] }, [{ property: 'poolIds', reason: /^must name at least one pool/ }]],
    [
      'poolIds missing',
      { accountId: ACCOUNT, name: 'n' },
      [{ property: 'poolIds', reason: /^is required: a list of pool ids$/ }],
    ],
    [
      'poolIds not a list',
      { ...valid, poolIds: POOL_A },
      [{ property: 'poolIds', reason: /^must be a list of pool ids \(got "0a+"\)$/ }],
    ],
    [
      'a bad pool id, named by its index',
      { ...valid, poolIds: [POOL_A, 'pool-b', POOL_C] },
      [{ property: 'poolIds[1]', reason: /^must be a pool id: 32 hexadecimal characters \(got "pool-b"\)$/ }],
    ],
    [
      'newHealth value',
      { ...valid, newHealth: ['Healthy', 'Sick'] },
      [{ property: 'newHealth[1]', reason: /^must be "Unhealthy" or "Healthy" \(got "Sick"\)$/ }],
    ],
    [
      'newHealth empty',
      { ...valid, newHealth: [] },
      [{ property: 'newHealth', reason: /^must not be empty: leave newHealth out/ }],
    ],
    [
      'eventSource value',
      { ...valid, eventSource: ['zone'] },
      [{ property: 'eventSource[0]', reason: /^must be "pool" or "origin" \(got "zone"\)$/ }],
    ],
    [
      'eventSource empty',
      { ...valid, eventSource: [] },
      [{ property: 'eventSource', reason: /^must not be empty: leave eventSource out/ }],
    ],
    [
      'an e-mail that is not an address',
      { ...valid, emails: ['ops@example.com', 'ops at example'] },
      [{ property: 'emails[1]', reason: /^must be an e-mail address like ops@example.com \(got "ops at example"\)$/ }],
    ],
    [
      'a bad webhook id',
      { ...valid, webhookIds: ['hook'] },
      [
        {
          property: 'webhookIds[0]',
          reason:
            /^must be a webhook id: 32 hexadecimal characters, or a UUID \(8-4-4-4-12 hexadecimal characters\) \(got "hook"\)$/,
        },
      ],
    ],
    [
      'enabled not a boolean',
      { ...valid, enabled: 'yes' },
      [{ property: 'enabled', reason: /^must be true or false \(got "yes"\)$/ }],
    ],
    [
      'several problems at once, each named',
      { accountId: 'x', name: '', poolIds: ['y'], emails: ['z'] },
      [
        { property: 'accountId', reason: /32 hexadecimal/ },
        { property: 'name', reason: /must not be empty/ },
        { property: 'poolIds[0]', reason: /pool id/ },
        { property: 'emails[0]', reason: /e-mail address/ },
      ],
    ],
  ])('%s', async (_title, news, expected) => {
    const result = await check(news);
    expect(result.failures).toEqual(
      expected.map((failure) => ({ property: failure.property, reason: expect.stringMatching(failure.reason) })),
    );
    expect(result.inputs).toBe(news);
  });

  test('values unknown during preview are let through, known ones still checked', async () => {
    expect(await check({ accountId: UNKNOWN, name: 'n', poolIds: [UNKNOWN, POOL_A] })).toEqual({
      inputs: { accountId: UNKNOWN, name: 'n', poolIds: [UNKNOWN, POOL_A] },
    });
    expect((await check({ accountId: UNKNOWN, name: '', poolIds: UNKNOWN })).failures).toEqual([
      { property: 'name', reason: expect.stringMatching(/must not be empty/) },
    ]);
  });
});

describe('diff', () => {
  const olds = {
    accountId: ACCOUNT,
    name: 'n',
    description: '',
    enabled: true,
    poolIds: [POOL_A, POOL_B],
    newHealth: ['Healthy', 'Unhealthy'],
    eventSource: ['origin', 'pool'],
    emails: ['a@example.com', 'b@example.com'],
    webhookIds: [],
    notificationId: 'id',
    created: '2025-01-01T00:00:00.000Z',
    modified: '2025-01-01T00:00:00.000Z',
  };
  test.each<[string, Record<string, unknown>, { changes: boolean; replaces: string[] }]>([
    ['the same inputs', {}, { changes: false, replaces: [] }],
    [
      'pools, states, sources and e-mails reordered or repeated',
      {
        poolIds: [POOL_B, POOL_A, POOL_B],
        newHealth: ['Unhealthy', 'Healthy'],
        eventSource: ['pool', 'origin'],
        emails: ['b@example.com', 'a@example.com'],
      },
      { changes: false, replaces: [] },
    ],
    ['a pool added', { poolIds: [POOL_A, POOL_B, POOL_C] }, { changes: true, replaces: [] }],
    ['a pool removed', { poolIds: [POOL_A] }, { changes: true, replaces: [] }],
    ['newHealth narrowed', { newHealth: ['Unhealthy'] }, { changes: true, replaces: [] }],
    ['an e-mail replaced', { emails: ['a@example.com', 'c@example.com'] }, { changes: true, replaces: [] }],
    ['a webhook added', { webhookIds: [WEBHOOK] }, { changes: true, replaces: [] }],
    ['renamed', { name: 'm' }, { changes: true, replaces: [] }],
    ['disabled', { enabled: false }, { changes: true, replaces: [] }],
    ['description', { description: 'x' }, { changes: true, replaces: [] }],
    ['another account', { accountId: 'b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2' }, { changes: true, replaces: ['accountId'] }],
    ['account unknown during preview', { accountId: UNKNOWN }, { changes: true, replaces: ['accountId'] }],
    ['pools unknown during preview', { poolIds: UNKNOWN }, { changes: true, replaces: [] }],
  ])('%s', async (_title, change, expected) => {
    const { notificationId: _id, created: _c, modified: _m, ...inputs } = olds;
    expect(await diff(olds, { ...inputs, ...change })).toEqual(expected);
  });
});

describe('sameFilters (the create recovery match)', () => {
  test.each<[Record<string, string[]>, Record<string, string[]>, boolean]>([
    [{ pool_id: ['a', 'b'] }, { pool_id: ['b', 'a', 'a'] }, true],
    [{ pool_id: ['a'], new_health: ['Healthy'] }, { pool_id: ['a'], new_health: ['Healthy'] }, true],
    [{ pool_id: ['a'] }, { pool_id: ['a', 'b'] }, false],
    [{ pool_id: ['a'] }, { pool_id: ['a'], event_source: ['pool'] }, false],
  ])('%j vs %j: %s', (a, b, same) => {
    expect(sameFilters(a, b)).toBe(same);
  });
});

describe('the resource class', () => {
  test('serializes a tiny provider that loads the runtime by name and captures no setting', async () => {
    let registered: Record<string, unknown> | undefined;
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          registered = args.inputs;
          return { id: 'policy-id', state: args.inputs };
        },
        call: () => ({}),
      },
      'project',
      'stack',
      true,
    );
    process.env.EDGEGUARD_API_TOKEN = TOKEN;
    try {
      const resource = new HealthNotification('alerts', { accountId: ACCOUNT, name: 'Pool health', poolIds: [POOL_A] });
      await new Promise<void>((resolve) => resource.urn.apply(() => resolve()));
    } finally {
      delete process.env.EDGEGUARD_API_TOKEN;
    }
    const serialized = registered?.__provider;
    expect(typeof serialized).toBe('string');
    const text = serialized as string;
    console.log(`serialized HealthNotification provider: ${text.length} characters`);
    expect(text).toContain('pulumi-edgeguard/runtime/');
    expect(text).toContain('health-notification');
    expect(text).not.toContain(TOKEN);
    expect(text.length).toBeLessThan(8_000);
    expect(registered).toMatchObject({ accountId: ACCOUNT, name: 'Pool health', poolIds: [POOL_A] });
  });
});
