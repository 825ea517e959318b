import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

/**
 * Content security policies of one zone, in both modes, using each form a CSP source can take,
 * and a review of the scripts page security detected on the zone's pages.
 */

const config = new pulumi.Config();
const zoneId = config.require('zoneId');

// The read helpers run in this program, so they take the provider's settings: the `edgeguard:*`
// stack configuration, else the environment.
const readSettings = edgeguard.stackReadSettings();

// Policies are only enforced (or reported) while page security is on for the zone.
const pageSecurity = new edgeguard.PageSecuritySetting('page-security', { zoneId, enabled: true });

// Log mode while the list is being tuned: scripts outside it are reported, not blocked.
// `'self'` is the page's own origin; `*.googletagmanager.com` is a host with a wildcard (any
// subdomain, not the parent domain itself); `cdn.jsdelivr.net` is a bare host (that host only).
const storefront = new edgeguard.CspPolicy(
  'storefront-report',
  {
    zoneId,
    description: 'Storefront: report scripts outside the reviewed list',
    action: 'log',
    expression: 'http.host eq "www.example.com"',
    value: "script-src 'self' *.googletagmanager.com cdn.jsdelivr.net",
  },
  { dependsOn: [pageSecurity] },
);

// Allow mode blocks every script the value does not allow. Full URLs allow exactly one script;
// a hash source allows one inline script by the SHA-256 of its text
// (here `window.dataLayer = window.dataLayer || [];`).
const checkout = new edgeguard.CspPolicy(
  'checkout-allowlist',
  {
    zoneId,
    description: 'Checkout: block every script outside the allow list (PCI DSS 6.4.3)',
    action: 'allow',
    expression: 'http.host eq "checkout.example.com"',
    value:
      "script-src 'self' https://js.stripe.com/v3/ https://www.google.com/recaptcha/api.js 'sha256-kGUQiECb7HTB3+cdt9SV9OGtiju37vTHScB5TlU3tzo='",
  },
  { dependsOn: [pageSecurity] },
);

// Scheme and port: only scripts fetched over https from that host on port 8443. Beyond scripts:
// `frame-ancestors 'none'` keeps the shop's pages out of other sites' frames (clickjacking), and
// `upgrade-insecure-requests`, which takes no sources, has browsers fetch the pages' http: URLs
// over https.
const shop = new edgeguard.CspPolicy(
  'shop-report',
  {
    zoneId,
    description: 'Shop: report scripts from anywhere but the asset server and the payment widget',
    action: 'log',
    expression: 'http.host eq "shop.example.com"',
    value:
      "script-src 'self' https://assets.example.com:8443 js.stripe.com; frame-ancestors 'none'; upgrade-insecure-requests",
  },
  { dependsOn: [pageSecurity] },
);

// Every malicious script of the zone (js_integrity_score below 10), active or infrequent.
const malicious = readSettings.apply(async (settings) =>
  (await edgeguard.maliciousScripts(zoneId, {}, settings)).map(
    (script) => `${script.url} (js_integrity_score ${script.js_integrity_score})`,
  ),
);

// The active scripts per host, with the malicious ones named: the list a policy is tuned from.
const scriptsByHost = readSettings.apply(async (settings) => {
  const hosts: Record<string, { scripts: number; malicious: string[] }> = {};
  for await (const script of edgeguard.listScripts(zoneId, {}, settings)) {
    const host = (hosts[script.host] ??= { scripts: 0, malicious: [] });
    host.scripts += 1;
    if (edgeguard.isMalicious(script)) host.malicious.push(script.url);
  }
  return hosts;
});

export const policies = {
  storefront: { id: storefront.policyId, action: storefront.action, value: storefront.value },
  checkout: { id: checkout.policyId, action: checkout.action, value: checkout.value },
  shop: { id: shop.policyId, action: shop.action, value: shop.value },
};
export const maliciousScripts = pulumi.unsecret(malicious);
export const activeScriptsByHost = pulumi.unsecret(scriptsByHost);
