import { auditedResources } from '../../../provider/stack/inventories';

/**
 * What edgeguard-audit takes from a `pulumi stack export`: the ScriptInventory resources of either
 * host, parsed by the resource's own check, and the CSP policies the stack manages.
 */

const ZONE = 'c0000000000000000000000000000001';
const OTHER_ZONE = 'c0000000000000000000000000000002';
const urn = (type: string, name: string) => `urn:pulumi:prod::shop::${type}::${name}`;

const inventoryInputs = {
  zoneId: ZONE,
  pages: ['shop.example.com/checkout'],
  scripts: [
    { url: 'https://js.pay.example/v3/card.js', justification: 'Card form', hash: 'A1'.repeat(32) },
    { prefix: 'https://shop.example.com/js/', justification: 'Our code', owner: 'web team' },
  ],
  // What the state keeps beside the inputs: derived outputs and the dynamic provider's module.
  cspSources: 'https://js.pay.example/v3/card.js https://shop.example.com/js/',
  __provider: 'exports.handler = ...',
};

function exported(resources: unknown[]) {
  return { version: 3, deployment: { manifest: {}, resources } };
}

test('inventories of both hosts and the managed policies of the state, parsed', () => {
  const found = auditedResources(
    exported([
      { urn: urn('pulumi:pulumi:Stack', 'shop-prod'), type: 'pulumi:pulumi:Stack' },
      {
        urn: urn('pulumi-nodejs:dynamic/edgeguard:ScriptInventory', 'checkout-scripts'),
        type: 'pulumi-nodejs:dynamic/edgeguard:ScriptInventory',
        inputs: inventoryInputs,
      },
      {
        urn: urn('edgeguard:index:ScriptInventory', 'pay-scripts'),
        type: 'edgeguard:index:ScriptInventory',
        inputs: { ...inventoryInputs, zoneId: OTHER_ZONE, pages: ['pay.example.com'] },
      },
      {
        urn: urn('edgeguard:index:CspPolicy', 'checkout-enforce'),
        type: 'edgeguard:index:CspPolicy',
        inputs: { zoneId: ZONE },
        outputs: { zoneId: ZONE, policyId: 'p1' },
      },
      // Left by an interrupted replace: no longer the stack's.
      {
        urn: urn('edgeguard:index:CspPolicy', 'checkout-enforce'),
        type: 'edgeguard:index:CspPolicy',
        outputs: { zoneId: ZONE, policyId: 'p0' },
        delete: true,
      },
      // Not created yet (a failed create keeps no id).
      { urn: urn('edgeguard:index:CspPolicy', 'draft'), type: 'edgeguard:index:CspPolicy', inputs: { zoneId: ZONE } },
    ]),
  );
  expect(found.policies).toEqual([
    {
      name: 'checkout-enforce',
      urn: urn('edgeguard:index:CspPolicy', 'checkout-enforce'),
      zoneId: ZONE,
      policyId: 'p1',
    },
  ]);
  expect(found.inventories.map(({ name, zoneId }) => [name, zoneId])).toEqual([
    ['checkout-scripts', ZONE],
    ['pay-scripts', OTHER_ZONE],
  ]);
  const [checkout] = found.inventories;
  expect(checkout!.inventory.pages).toEqual([
    { host: 'shop.example.com', path: '/checkout', text: 'shop.example.com/checkout' },
  ]);
  expect(
    checkout!.inventory.scripts.map((entry) => [
      entry.index,
      entry.kind,
      entry.kind === 'url' ? entry.hash : undefined,
    ]),
  ).toEqual([
    [0, 'url', 'a1'.repeat(32)],
    [1, 'prefix', undefined],
  ]);
});

test('an inventory the check refuses is named with the property and the reason', () => {
  const broken = (inputs: Record<string, unknown>) => () =>
    auditedResources(
      exported([
        {
          urn: urn('edgeguard:index:ScriptInventory', 'checkout-scripts'),
          type: 'edgeguard:index:ScriptInventory',
          inputs: { ...inventoryInputs, ...inputs },
        },
      ]),
    );
  expect(broken({ scripts: [{ url: 'https://a.example/a.js', justification: ' ' }] })).toThrow(
    /^ScriptInventory checkout-scripts inputs are invalid: scripts\[0\]\.justification: scripts\[0\] \(url "https:\/\/a\.example\/a\.js"\): .*blank/,
  );
  // A secret in the state is an object, not the text the inventory holds.
  expect(broken({ pages: [{ '4dabf18193072939515e22adb298388d': '1b47061264138c4ac30d75fd1eb44270' }] })).toThrow(
    'ScriptInventory checkout-scripts inputs are invalid: pages[0]: must be a string',
  );
});

test('a state without resources holds nothing to audit', () => {
  expect(auditedResources({ version: 3, deployment: { manifest: {} } })).toEqual({ inventories: [], policies: [] });
  expect(auditedResources(undefined)).toEqual({ inventories: [], policies: [] });
});
