import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const accountId = config.require('accountId');
const poolId = config.require('poolId');

new edgeguard.PageSecuritySetting('page-security', { zoneId, enabled: true });
const first = new edgeguard.CspPolicy('first', {
  zoneId,
  description: 'the first policy',
  action: 'log',
  expression: 'http.host eq "first.example.com"',
  value: "script-src 'self'",
});
// Known only once `first` exists: unknown during the first preview, which must still pass check.
const second = new edgeguard.CspPolicy('second', {
  zoneId: first.zoneId,
  description: pulumi.interpolate`after ${first.policyId}`,
  action: 'log',
  expression: 'http.host eq "second.example.com"',
  value: "script-src 'self'",
});
new edgeguard.CspPolicy(
  'secret',
  {
    zoneId,
    description: pulumi.secret('a secret description 5d1c'),
    action: 'log',
    expression: 'http.host eq "secret.example.com"',
    value: "script-src 'self'",
  },
  { additionalSecretOutputs: ['expression'] },
);
const hostname = new edgeguard.CustomHostname('customer', {
  zoneId,
  hostname: 'shop.customer-registration.example',
  ssl: { method: 'txt', type: 'dv' },
});
const lookedUp = edgeguard.CustomHostname.get('looked-up', hostname.customHostnameId, { zoneId });
const alerts = new edgeguard.HealthNotification('lb-health', { accountId, name: 'Pool health', poolIds: [poolId] });
new edgeguard.PoolNotificationMigration('drop-legacy-emails', { accountId }, { dependsOn: [alerts] });

export const secondDescription = second.description;
export const lookedUpHostname = lookedUp.hostname;
export const hostnameId = hostname.customHostnameId;
