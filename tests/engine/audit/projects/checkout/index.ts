import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

const config = new pulumi.Config();
const zoneId = config.require('zoneId');

// The checkout's scripts, each with why it is there (PCI DSS 6.4.3); the card form's is pinned to
// the version reviewed.
const inventory = new edgeguard.ScriptInventory('checkout-scripts', {
  zoneId,
  pages: ['shop.example.com/checkout'],
  scripts: [
    {
      url: 'https://js.pay.example/v3/card.js',
      justification: 'Card form: the payment processor collects the card number in its own frame',
      owner: 'payments team',
      hash: config.require('cardHash'),
    },
    {
      prefix: 'https://shop.example.com/js/',
      justification: 'Our own checkout code, built and reviewed in this repository',
      owner: 'web team',
    },
  ],
});

// The browser enforces the inventory: no other script runs on the checkout.
new edgeguard.CspPolicy('checkout-enforce', {
  zoneId,
  description: 'Checkout: only the scripts of the inventory',
  action: 'allow',
  expression: 'http.host eq "shop.example.com"',
  value: inventory.cspSources.apply((sources) => `script-src ${sources}`),
});
