import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

/**
 * The move of docs/guides/moving-to-the-plugin.md, one step per value of `step`:
 * - `dynamic`: the stack as it was deployed, dynamic resources;
 * - `retain`: the same declarations with `retainOnDelete`, so dropping them leaves the objects be;
 * - `plugin`: the same objects declared under an explicit `Provider`, each with the `import`
 *   option and its plugin id (`importIds`), and the dynamic declarations gone.
 */

const config = new pulumi.Config();
const step = config.require('step');
const zoneId = config.require('zoneId');
const accountId = config.require('accountId');

const pageSecurityArgs: edgeguard.PageSecuritySettingArgs = { zoneId, enabled: true };
const policyArgs: edgeguard.CspPolicyArgs = {
  zoneId,
  description: 'Checkout: block every script outside the allow list',
  action: 'allow',
  expression: 'http.host eq "checkout.example.com"',
  value: "script-src 'self' js.stripe.com",
};
const notificationArgs: edgeguard.HealthNotificationArgs = {
  accountId,
  name: 'Load balancer pool health',
  poolIds: config.requireObject<string[]>('poolIds'),
  emails: ['noc@example.com'],
};

let resources: [edgeguard.PageSecuritySetting, edgeguard.CspPolicy, edgeguard.HealthNotification];
if (step === 'plugin') {
  const provider = new edgeguard.Provider('edgeguard');
  const importIds = config.requireObject<Record<'pageSecurity' | 'policy' | 'notification', string>>('importIds');
  resources = [
    new edgeguard.PageSecuritySetting('page-security', pageSecurityArgs, { provider, import: importIds.pageSecurity }),
    new edgeguard.CspPolicy('checkout-scripts', policyArgs, { provider, import: importIds.policy }),
    new edgeguard.HealthNotification('pool-health', notificationArgs, { provider, import: importIds.notification }),
  ];
} else {
  const opts = { retainOnDelete: step === 'retain' };
  resources = [
    new edgeguard.PageSecuritySetting('page-security', pageSecurityArgs, opts),
    new edgeguard.CspPolicy('checkout-scripts', policyArgs, opts),
    new edgeguard.HealthNotification('pool-health', notificationArgs, opts),
  ];
}

const [pageSecurity, policy, notification] = resources;
export const ids = { pageSecurity: pageSecurity.id, policy: policy.id, notification: notification.id };
export const objectIds = { policy: policy.policyId, notification: notification.notificationId };
