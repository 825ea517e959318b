import * as command from '@pulumi/command';
import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

/**
 * EdgeGuard's flagship program: what a platform team keeps in its infrastructure repository for
 * one zone and its account. `npm run demo` deploys it against the local emulator; with
 * EDGEGUARD_BASE_URL and a token set (or `edgeguard:baseUrl` and `edgeguard:apiToken`), against
 * the real service.
 */

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const accountId = config.require('accountId');

// The read helpers run in this program, so they take the provider's settings: the `edgeguard:*`
// stack configuration, else the environment.
const readSettings = edgeguard.stackReadSettings();

// Page security on: the zone reports the scripts, connections and cookies of its pages.
const pageSecurity = new edgeguard.PageSecuritySetting('page-security', { zoneId, enabled: true });

// The storefront: report (do not block) scripts outside the list, while it is being tuned.
const storefrontPolicy = new edgeguard.CspPolicy(
  'storefront-scripts-report',
  {
    zoneId,
    description: 'Storefront: report scripts outside the reviewed list',
    action: 'log',
    expression: 'http.host eq "www.example.com"',
    value: "script-src 'self' www.googletagmanager.com cdn.jsdelivr.net static.hotjar.com",
  },
  { dependsOn: [pageSecurity] },
);

// Checkout's payment pages (PCI DSS 4.0 requirement 6.4.3): every script they may load, each with
// the reason it is there and the version approved, pinned by its hash. `edgeguard-inventory` writes
// the first one from what page security detects; a person writes the justifications. A refresh reads
// what runs there now, so a new version of a pinned script or a script no entry authorizes is drift
// (`edgeguard-review --refresh --fail-on-drift`, nightly), and `edgeguard-audit` gives the assessor
// the evidence.
const paymentScripts = new edgeguard.ScriptInventory('checkout-payment-scripts', {
  zoneId,
  pages: ['checkout.example.com/pay'],
  scripts: [
    {
      url: 'https://checkout.example.com/js/payment.js',
      justification: 'Our payment form: renders the order summary and submits the payment through Stripe Elements',
      owner: 'payments team',
      hash: 'ac48692866b85542e021d61f058ca2fe7511e989ec8fec69be8c477251bf1fa6',
    },
    {
      url: 'https://js.stripe.com/v3/fingerprinted/js/elements.js',
      justification:
        "Stripe Elements: the card fields, in the payment processor's frames; card data never touches our pages",
      owner: 'payments team',
      hash: '9d70af01107033f9b1f160d72a99581ef1bdb1c35427b30a948e77c4aa7073d3',
    },
    {
      url: 'https://www.google.com/recaptcha/api.js',
      justification: 'reCAPTCHA: stops card-testing bots on the payment form',
      owner: 'fraud team',
      hash: '5ef66f95ce5ea284d032bb12d204a2a05076f181cce99105f2f8db8252cb5ca9',
    },
  ],
});

// Checkout handles card data: the browser loads exactly the scripts the inventory authorizes;
// everything else is blocked.
const checkoutPolicy = new edgeguard.CspPolicy(
  'checkout-scripts-allowlist',
  {
    zoneId,
    description: 'Checkout: block every script the payment-script inventory does not authorize (PCI DSS 6.4.3)',
    action: 'allow',
    expression: 'http.host eq "checkout.example.com"',
    value: pulumi.interpolate`script-src ${paymentScripts.cspSources}; object-src 'none'; base-uri 'self'`,
  },
  { dependsOn: [pageSecurity] },
);

// A customer's own hostname served by the zone, from pending to active in one `pulumi up`: the
// hostname, then the DNS record that proves its ownership (made from the hostname's outputs), then
// the validation that waits until the hostname is active, certificate included.
const customerHostname = new edgeguard.CustomHostname('customer-one', {
  zoneId,
  hostname: config.require('customerHostname'),
  ssl: { method: 'txt', type: 'dv', certificateAuthority: '' },
});

// Against the local emulator (whose control API address the demo and the tests put in the
// environment) a command publishes the record in the emulator's DNS, and removes it on destroy.
// With a real service, the record belongs in your DNS provider: put its record resource here
// (docs/guides/custom-hostnames.md); until then the hostname stays pending and the outputs give
// the record to publish.
let customerValidation: edgeguard.CustomHostnameValidation | undefined;
if (edgeguard.emulatorDnsAvailable()) {
  const ownershipRecord = new command.local.Command(
    'customer-one-ownership-record',
    edgeguard.emulatorDnsRecordCommand({
      name: customerHostname.ownershipRecordName,
      type: 'TXT',
      value: customerHostname.ownershipRecordValue,
    }),
  );
  customerValidation = new edgeguard.CustomHostnameValidation(
    'customer-one-validation',
    { zoneId, customHostnameId: customerHostname.id },
    { dependsOn: [ownershipRecord] },
  );
}

// Account-level health alerts over every pool, replacing the legacy per-pool e-mails...
const poolIds = readSettings.apply(async (settings) =>
  (await edgeguard.listPools(accountId, settings)).map((pool) => pool.id),
);
const poolHealth = new edgeguard.HealthNotification('pool-health', {
  accountId,
  name: 'Load balancer pool health',
  description: 'Pools and origins turning unhealthy or healthy again',
  poolIds: pulumi.unsecret(poolIds),
  emails: [config.require('alertEmail')],
});

// ...and only once they exist, every pool comes off `notification_email`.
const migration = new edgeguard.PoolNotificationMigration(
  'retire-legacy-pool-emails',
  { accountId },
  { dependsOn: [poolHealth] },
);

// What page security found that a reviewer should look at: scripts below the malicious threshold.
const malicious = readSettings.apply(async (settings) =>
  (await edgeguard.maliciousScripts(zoneId, {}, settings)).map(
    (script) => `${script.host}: ${script.url} (js_integrity_score ${script.js_integrity_score})`,
  ),
);

export const zone = zoneId;
export const pageSecurityEnabled = pageSecurity.enabled;
export const cspPolicies = {
  storefront: { id: storefrontPolicy.policyId, action: storefrontPolicy.action, value: storefrontPolicy.value },
  checkout: { id: checkoutPolicy.policyId, action: checkoutPolicy.action, value: checkoutPolicy.value },
};
export const customHostname = {
  hostname: customerHostname.hostname,
  // The validation's status is the hostname's once it waited; without one, as created.
  status: customerValidation?.status ?? customerHostname.status,
  certificateAuthority: customerValidation?.certificateAuthorityInUse ?? customerHostname.certificateAuthorityInUse,
  ownershipTxtRecord: {
    name: customerHostname.ownershipRecordName,
    value: customerHostname.ownershipRecordValue,
    published: customerValidation !== undefined,
  },
};
export const paymentPageScripts = paymentScripts.detected.apply((detected) =>
  detected.map((script) => `${script.url}: ${script.integrity}`),
);
export const healthNotificationId = poolHealth.notificationId;
export const poolsCovered = poolHealth.poolIds.apply((ids) => ids.length);
export const legacyEmailMigration = {
  poolsSeen: migration.poolsSeen,
  poolsCleared: migration.poolsCleared,
  removedEmails: migration.removedEmails,
};
export const maliciousScripts = pulumi.unsecret(malicious);
