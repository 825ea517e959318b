import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

const config = new pulumi.Config();
const zoneId = config.require('zoneId');

// The checkout's scripts, the card script pinned to the version reviewed, and the headers the
// checkout must send (PCI DSS 6.4.3 and 11.6.1).
const inventory = new edgeguard.ScriptInventory('checkout-scripts', {
  zoneId,
  pages: ['checkout.example.com/pay'],
  scripts: [
    {
      url: 'https://js.pay.example/v3/card.js',
      justification: 'Card form: the payment processor collects the card number in its own frame',
      owner: 'payments team',
      hash: config.require('cardHash'),
    },
    {
      prefix: 'https://checkout.example.com/static/js/',
      justification: 'Our own checkout code, built and reviewed in this repository',
      owner: 'web team',
    },
  ],
  headers: {
    'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
    'x-frame-options': 'DENY',
  },
});

// The browser enforces the inventory: no other script runs on the checkout.
new edgeguard.CspPolicy('checkout-enforce', {
  zoneId,
  description: 'Checkout: only the scripts of the inventory',
  action: 'allow',
  expression: 'http.host eq "checkout.example.com"',
  value: inventory.cspSources.apply((sources) => `script-src ${sources}; object-src 'none'; base-uri 'self'`),
});
