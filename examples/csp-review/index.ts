import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

/**
 * Two CSP policies of the demo zone, as a team keeps them: the README walks a reviewer through a
 * pull request that changes them, with what `edgeguard-review` and the policy pack report.
 */

const config = new pulumi.Config();
const zoneId = config.require('zoneId');

// Checkout handles card data: only the reviewed scripts may run there; everything else is blocked.
const checkout = new edgeguard.CspPolicy('checkout-scripts', {
  zoneId,
  description: 'Checkout: block every script outside the allow list (PCI DSS 6.4.3)',
  action: 'allow',
  expression: 'http.host eq "checkout.example.com"',
  value: "script-src 'self' js.stripe.com https://www.google.com/recaptcha/api.js",
});

// The storefront reports (does not block) scripts outside its list while the list is tuned.
const storefront = new edgeguard.CspPolicy('storefront-scripts', {
  zoneId,
  description: 'Storefront: report scripts outside the reviewed list',
  action: 'log',
  expression: 'http.host eq "www.example.com"',
  value: "script-src 'self' www.googletagmanager.com cdn.jsdelivr.net static.hotjar.com",
});

export const policies = {
  checkout: { id: checkout.policyId, value: checkout.value },
  storefront: { id: storefront.policyId, value: storefront.value },
};
