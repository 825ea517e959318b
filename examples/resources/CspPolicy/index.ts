import * as edgeguard from 'pulumi-edgeguard';

// Checkout handles card data: only the reviewed scripts may run there; everything else is blocked.
const checkout = new edgeguard.CspPolicy('checkout-scripts', {
  zoneId: 'd2b694e372a24c7496bc0106d77a1c05',
  description: 'Checkout: block every script outside the allow list',
  action: 'allow',
  expression: 'http.host eq "checkout.example.com"',
  value: "script-src 'self' js.stripe.com https://www.google.com/recaptcha/api.js",
});

export const policyId = checkout.policyId;
