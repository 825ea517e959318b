import * as edgeguard from 'pulumi-edgeguard';

const zoneId = 'd2b694e372a24c7496bc0106d77a1c05';

// The payment pages' scripts, each with why it is there (PCI DSS 6.4.3); the card form's script is
// pinned to the version that was reviewed.
const inventory = new edgeguard.ScriptInventory('checkout-scripts', {
  zoneId,
  pages: ['checkout.example.com', 'shop.example.com/checkout'],
  scripts: [
    {
      url: 'https://js.stripe.com/v3/fingerprinted/card.js',
      justification: 'Card form: the payment processor collects the card number in its own frame',
      owner: 'payments team',
      hash: '6b1f5a3c9d2e4f708192a3b4c5d6e7f8',
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
  value: inventory.cspSources.apply((sources) => `script-src ${sources}`),
});

export const detected = inventory.detected;
