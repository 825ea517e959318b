import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { unknownCheckingProxy, type PolicyResource } from '@pulumi/policy';
import { REVIEW_BASELINE_ENV, reviewInputOf } from '../../../provider/review/pack-input';

/**
 * What the policy pack reads from the stack's resources as the engine gives them to a stack
 * policy: which live policy each CSP policy replaces, and what it cannot judge at preview.
 */

/** The engine's marker of a value not known during preview. */
const UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';
const ZONE = 'd2b694e372a24c7496bc0106d77a1c05';
const ACCOUNT = 'd1e8787dabb2917b86210399bcd65e39';
const urn = (type: string, name: string) => `urn:pulumi:dev::shop::pulumi-nodejs:dynamic/edgeguard:${type}::${name}`;

/** A resource as @pulumi/policy hands it to a stack policy: props behind its unknown-checking proxy. */
function resource(type: string, name: string, props: Record<string, unknown>): PolicyResource {
  return {
    type: `pulumi-nodejs:dynamic/edgeguard:${type}`,
    urn: urn(type, name),
    name,
    props: unknownCheckingProxy(props),
  } as unknown as PolicyResource;
}

const csp = (name: string, extra: Record<string, unknown> = {}) =>
  resource('CspPolicy', name, {
    zoneId: ZONE.toUpperCase(),
    action: 'allow',
    expression: 'http.host eq "checkout.example.com"',
    value: "script-src 'self'",
    enabled: true,
    __provider: 'exports.handler = ...',
    ...extra,
  });

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-pack-input-'));
  delete process.env[REVIEW_BASELINE_ENV];
});
afterEach(() => {
  delete process.env[REVIEW_BASELINE_ENV];
  fs.rmSync(dir, { recursive: true, force: true });
});

test('an unchanged policy replaces the live policy of its id; without a baseline a changed one cannot be told apart', () => {
  const { input, unjudged } = reviewInputOf([csp('unchanged', { policyId: 'a'.repeat(32) }), csp('changed')]);
  expect(unjudged).toEqual([]);
  expect(input.policies.map((p) => [p.name, p.zoneId, p.replaces])).toEqual([
    ['unchanged', ZONE, { id: 'a'.repeat(32) }],
    [
      'changed',
      ZONE,
      { unknown: expect.stringContaining(`set ${REVIEW_BASELINE_ENV} to a file of \`pulumi stack export\``) },
    ],
  ]);
  expect(input.managedPolicyIds).toBeUndefined();
});

test('with the state before the change, a changed policy replaces its id there and a new one replaces none', () => {
  const baseline = path.join(dir, 'state.json');
  fs.writeFileSync(
    baseline,
    JSON.stringify({
      version: 3,
      deployment: { resources: [{ urn: urn('CspPolicy', 'changed'), outputs: { policyId: 'b'.repeat(32) } }] },
    }),
  );
  process.env[REVIEW_BASELINE_ENV] = baseline;
  const { input } = reviewInputOf([csp('changed'), csp('created')]);
  expect(input.policies.map((p) => [p.name, p.replaces])).toEqual([
    ['changed', { id: 'b'.repeat(32) }],
    ['created', 'none'],
  ]);
  // The live policies the stack manages: the zone's others stay, headers beside the stack's.
  expect(input.managedPolicyIds).toEqual(['b'.repeat(32)]);
});

test('a baseline file that cannot be read says so', () => {
  process.env[REVIEW_BASELINE_ENV] = path.join(dir, 'missing.json');
  const { input } = reviewInputOf([csp('changed')]);
  expect(input.policies[0]!.replaces).toEqual({
    unknown: expect.stringMatching(/^EDGEGUARD_REVIEW_BASELINE \(.*missing\.json\) could not be read: ENOENT/),
  });
});

test('values not known until the update leave the resource unjudged, with the property named', () => {
  const { input, unjudged } = reviewInputOf([
    csp('computed', { value: UNKNOWN }),
    resource('HealthNotification', 'alerts', { accountId: ACCOUNT, poolIds: UNKNOWN }),
    resource('PoolNotificationMigration', 'retire', { accountId: ACCOUNT }),
  ]);
  expect(input.policies).toEqual([]);
  expect(input.notifications).toEqual([]);
  expect(input.migrations).toEqual([
    { key: urn('PoolNotificationMigration', 'retire'), name: 'retire', accountId: ACCOUNT },
  ]);
  expect(unjudged).toEqual([
    {
      urn: urn('CspPolicy', 'computed'),
      name: 'computed',
      resource: 'CspPolicy',
      reason: "not known until the update: string value at .value can't be known during preview",
    },
    {
      urn: urn('HealthNotification', 'alerts'),
      name: 'alerts',
      resource: 'HealthNotification',
      reason: "not known until the update: string value at .poolIds can't be known during preview",
    },
  ]);
});

test('notifications give their pools, lowercased, and whether they alert', () => {
  const { input } = reviewInputOf([
    resource('HealthNotification', 'alerts', { accountId: ACCOUNT, poolIds: ['AB'.repeat(16)], enabled: false }),
  ]);
  expect(input.notifications).toEqual([{ accountId: ACCOUNT, poolIds: ['ab'.repeat(16)], enabled: false }]);
});

test("the provider plugin's resources (edgeguard:index:<Resource>, no __provider) are read as the dynamic ones", () => {
  const plugin = (type: string, name: string, props: Record<string, unknown>) =>
    ({
      type: `edgeguard:index:${type}`,
      urn: `urn:pulumi:dev::shop::edgeguard:index:${type}::${name}`,
      name,
      props: unknownCheckingProxy(props),
    }) as unknown as PolicyResource;
  const { input, unjudged } = reviewInputOf([
    plugin('CspPolicy', 'checkout', {
      zoneId: ZONE,
      action: 'allow',
      expression: 'http.host eq "checkout.example.com"',
      value: "script-src 'self'",
      enabled: true,
      policyId: 'c'.repeat(32),
    }),
    plugin('HealthNotification', 'alerts', { accountId: ACCOUNT, poolIds: ['D'.repeat(32)] }),
    plugin('PoolNotificationMigration', 'retire', { accountId: ACCOUNT }),
  ]);
  expect(unjudged).toEqual([]);
  expect(input.policies.map((p) => [p.name, p.zoneId, p.replaces])).toEqual([
    ['checkout', ZONE, { id: 'c'.repeat(32) }],
  ]);
  expect(input.notifications).toEqual([{ accountId: ACCOUNT, poolIds: ['d'.repeat(32)], enabled: true }]);
  expect(input.migrations.map((m) => m.accountId)).toEqual([ACCOUNT]);
});

describe('ScriptInventory', () => {
  const CARD = 'https://js.pay.example/v3/card.js';
  const inventory = (name: string, scripts: unknown, extra: Record<string, unknown> = {}) =>
    resource('ScriptInventory', name, {
      zoneId: ZONE.toUpperCase(),
      pages: ['checkout.example.com/pay'],
      scripts,
      __provider: 'exports.handler = ...',
      ...extra,
    });
  const entry = { url: CARD, justification: 'Card form', hash: 'AB'.repeat(32) };

  test('its inventory is read and parsed; the entries before come from the state, none for a new one', () => {
    const baseline = path.join(dir, 'state.json');
    fs.writeFileSync(
      baseline,
      JSON.stringify({
        deployment: {
          resources: [
            {
              urn: urn('ScriptInventory', 'kept'),
              type: 'pulumi-nodejs:dynamic/edgeguard:ScriptInventory',
              inputs: { scripts: [{ ...entry, hash: 'cd'.repeat(32) }] },
            },
          ],
        },
      }),
    );
    process.env[REVIEW_BASELINE_ENV] = baseline;
    const { input, unjudged } = reviewInputOf([inventory('kept', [entry]), inventory('created', [entry])]);
    expect(unjudged).toEqual([]);
    const [kept, created] = input.inventories!;
    expect([kept!.name, kept!.zoneId, kept!.inventory.pages.map((page) => page.text)]).toEqual([
      'kept',
      ZONE,
      ['checkout.example.com/pay'],
    ]);
    expect(kept!.inventory.scripts.map((e) => [e.kind, e.address.text, e.kind === 'url' && e.hash])).toEqual([
      ['url', CARD, 'ab'.repeat(32)],
    ]);
    expect((kept!.previous as ReadonlyArray<{ hash?: string }>).map((e) => e.hash)).toEqual(['cd'.repeat(32)]);
    expect(created!.previous).toBe('none');
  });

  test('without the state, the entries before are unknown, saying why', () => {
    const { input } = reviewInputOf([inventory('kept', [entry])]);
    expect(input.inventories![0]!.previous).toEqual({
      unknown: expect.stringContaining(`set ${REVIEW_BASELINE_ENV}`),
    });
  });

  test('an entry not known until the update leaves it unjudged; an invalid one says why', () => {
    const { input, unjudged } = reviewInputOf([
      inventory('computed', [{ ...entry, hash: UNKNOWN }]),
      inventory('blank', [{ url: CARD, justification: '  ' }]),
    ]);
    expect(input.inventories).toEqual([]);
    expect(unjudged).toEqual([
      {
        urn: urn('ScriptInventory', 'computed'),
        name: 'computed',
        resource: 'ScriptInventory',
        reason: "not known until the update: string value at .scripts.0.hash can't be known during preview",
      },
      {
        urn: urn('ScriptInventory', 'blank'),
        name: 'blank',
        resource: 'ScriptInventory',
        reason: expect.stringContaining(
          'its inventory is invalid: scripts[0] (url "https://js.pay.example/v3/card.js"): ',
        ),
      },
    ]);
  });
});
