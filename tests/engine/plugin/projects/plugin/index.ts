import * as pulumi from '@pulumi/pulumi';
import {
  CspPolicy,
  CustomHostname,
  CustomHostnameValidation,
  HealthNotification,
  PageSecuritySetting,
  Provider,
} from 'pulumi-edgeguard';

/**
 * Two accounts in one program through the provider plugin: a provider per token, a CSP policy in
 * each one's zone. The test drives the rest through configuration: a policy on the other
 * account's zone, imported objects declared (each resource that has an identity, with `pulumi
 * import` or the `import` option), a policy under the default provider, extra policies to create
 * under faults.
 */

const config = new pulumi.Config();
const baseUrl = config.require('baseUrl');
const accountA = new Provider('account-a', { baseUrl, apiToken: config.requireSecret('tokenA'), issuanceLimit: 5 });
const accountB = new Provider('account-b', { baseUrl, apiToken: config.requireSecret('tokenB') });

function policy(
  name: string,
  zoneId: string,
  host: string,
  value: string,
  provider: Provider,
  importId?: string,
): CspPolicy {
  return new CspPolicy(
    name,
    { zoneId, description: name, action: 'log', expression: `http.host eq "${host}"`, value },
    { provider, ...(importId === undefined ? {} : { import: importId }) },
  );
}

const shopA = policy(
  'shop-a',
  config.get('shopAZone') ?? config.require('zoneA'),
  'shop.a.example',
  config.get('shopAValue') ?? "script-src 'self' cdn.a.example js.a.example",
  accountA,
);
const shopB = policy(
  'shop-b',
  config.require('zoneB'),
  'shop.b.example',
  config.get('shopBValue') ?? "script-src 'self' cdn.b.example",
  accountB,
);

if (config.getBoolean('crossZone'))
  policy('cross', config.require('zoneB'), 'cross.b.example', "script-src 'self'", accountA);

// A hostname whose create lands but cannot become active (its zone is held): kept in the state.
const held = config.get('heldHostname');
if (held !== undefined)
  new CustomHostname(
    'held',
    { zoneId: config.require('zoneA'), hostname: held, ssl: { method: 'txt', type: 'dv' } },
    { provider: accountA },
  );

// Imported with `pulumi import` before this program declared it: declared as the live policy is.
const imported = config.get('importedId');
if (imported !== undefined)
  policy('imported-a', config.require('zoneA'), 'imported.a.example', "script-src 'self' imported.example", accountA);

// Adopted with the `import` resource option.
const adopt = config.get('adoptId');
if (adopt !== undefined)
  policy(
    'adopted-b',
    config.require('zoneB'),
    'adopted.b.example',
    "script-src 'self' adopted.example",
    accountB,
    adopt,
  );

// Adopted with the runtimes' own `adoptId`, which says so in the engine's output.
const adoptById = config.get('adoptById');
if (adoptById !== undefined)
  new CspPolicy(
    'adopted-by-id',
    {
      zoneId: config.require('zoneA'),
      description: 'adopted-by-id',
      action: 'log',
      expression: 'http.host eq "by-id.a.example"',
      value: "script-src 'self'",
      adoptId: adoptById,
    },
    { provider: accountA },
  );

// Made directly on the service, then imported with the `import` option: each declared as the live
// object is (the custom hostname leaves its certificate authority to the service, which chose one).
const pageZone = config.get('pageZone');
if (pageZone !== undefined)
  new PageSecuritySetting(
    'imported-page',
    { zoneId: pageZone, enabled: true },
    { provider: accountA, import: pageZone },
  );
const hostnameId = config.get('hostnameId');
if (hostnameId !== undefined) {
  const zoneId = config.require('zoneA');
  const importId = `${zoneId}/${hostnameId}`;
  new CustomHostname(
    'imported-hostname',
    {
      zoneId,
      hostname: config.require('hostname'),
      ssl: { method: 'txt', type: 'dv' },
    },
    { provider: accountA, import: importId },
  );
  new CustomHostnameValidation(
    'imported-validation',
    { zoneId, customHostnameId: hostnameId },
    { provider: accountA, import: importId },
  );
}

// Imported with `pulumi import` before this program declared it.
const poolId = config.get('poolId');
if (poolId !== undefined)
  new HealthNotification(
    'imported-notification',
    { accountId: config.require('accountA'), name: 'origin health', poolIds: [poolId], newHealth: ['Unhealthy'] },
    { provider: accountA },
  );

/**
 * The plugin's CspPolicy under the default provider (the stack's edgeguard:baseUrl and
 * edgeguard:apiToken): the package's classes are dynamic without an explicit provider, so the
 * plugin's type token is registered as such.
 */
class DefaultProviderCspPolicy extends pulumi.CustomResource {
  constructor(name: string, props: pulumi.Inputs) {
    super('edgeguard:index:CspPolicy', name, { ...props, policyId: undefined });
  }
}
const defaultZone = config.get('defaultProviderZone');
if (defaultZone !== undefined)
  new DefaultProviderCspPolicy('default-provider', {
    zoneId: defaultZone,
    description: 'default-provider',
    action: 'log',
    expression: 'http.host eq "default.a.example"',
    value: "script-src 'self'",
  });

for (let index = 0; index < (config.getNumber('extra') ?? 0); index++)
  policy(`extra-${index}`, config.require('zoneA'), `extra${index}.a.example`, "script-src 'self'", accountA);

export const ids = { shopA: shopA.id, shopB: shopB.id, imported: imported ?? null };
