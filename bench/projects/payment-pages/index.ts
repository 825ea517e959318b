import { createHash } from 'node:crypto';
import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

/**
 * The checkout of bench/payment.ts's zone: `pinned` vendor scripts on its payment pages, each
 * pinned to the hash the emulator gives a seeded script (the SHA-256 of its URL), and the
 * checkout's own code under one prefix. The `after` variant re-pins the first vendor script to the
 * version the benchmark adds (`NEW_HASH` there).
 */

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const pinned = config.requireNumber('pinned');
const variant = config.require('variant');

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** Kept equal to bench/payment.ts's `vendorScript`. */
const vendorScript = (i: number) => `https://vendor${i % 5}.example.net/pay/v${i}.js`;
const NEW_HASH = 'b'.repeat(64);

const inventory = new edgeguard.ScriptInventory('checkout-scripts', {
  zoneId,
  pages: ['checkout.example.com/pay'],
  scripts: [
    ...Array.from({ length: pinned }, (_, i) => ({
      url: vendorScript(i),
      justification: `Vendor script ${i} of the payment form`,
      owner: 'payments team',
      hash: i === 0 && variant === 'after' ? NEW_HASH : sha256(vendorScript(i)),
    })),
    { prefix: 'https://checkout.example.com/js/', justification: 'Our checkout code', owner: 'web team' },
  ],
});

new edgeguard.CspPolicy('checkout-policy', {
  zoneId,
  description: 'Checkout: exactly the inventory',
  action: 'allow',
  expression: 'http.host eq "checkout.example.com"',
  value: pulumi.interpolate`script-src ${inventory.cspSources}; object-src 'none'; base-uri 'self'`,
});

export const detected = inventory.detected.apply((scripts) => scripts.length);
