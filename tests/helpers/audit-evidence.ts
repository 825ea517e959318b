import { countsOf, passes } from '../../provider/payment/evidence';
import type {
  AuditEvidence,
  AuditInventory,
  AuditPaymentPage,
  AuditScript,
} from '../../provider/payment/evidence-schema';

/**
 * A fixed evidence of `edgeguard-audit` (provider/payment/evidence-schema.ts) for the tests of its formats:
 * one inventory of two payment pages, with a script of each integrity, one authorized and unchanged
 * that page security reports malicious, headers enforced, report only and managed by no one, a stale
 * entry, and values an attacker controls (a script URL holding
 * `<script>`, a backtick and a `|`; a justification holding an `<img onerror>`; a policy
 * description closing the style element).
 */

export const ZONE = 'c0000000000000000000000000000001';
export const [V1, V2, V3] = ['a1', 'b2', 'c3'].map((two) => two.repeat(32)) as [string, string, string];
export const CARD = 'https://js.pay.example/v3/card.js';
export const OWN = 'https://shop.example.com/js/checkout.js';
export const HOSTILE_URL = 'https://cdn.evil.example/x.js?q=<script>alert(1)</script>&b=`|`';
export const HOSTILE_JUSTIFICATION = 'Fraud <img src=x onerror=alert(2)> check | *team* `x`';
export const HOSTILE_DESCRIPTION = 'Legacy </style><script>alert(3)</script>';
export const RISK = 'https://risk.example/r.js';
export const WIDGET = 'https://widgets.example/w.js';

const card: AuditScript = {
  id: 'c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6',
  url: CARD,
  status: 'active',
  firstSeenAt: '2026-10-01T00:00:00.000Z',
  lastSeenAt: '2026-11-24T10:00:00.000Z',
  seenOn: ['https://shop.example.com/checkout/pay'],
  entry: { index: 0, url: CARD, justification: 'Card form of the payment processor', owner: 'payments team', hash: V1 },
  integrity: 'changed',
  hash: V3,
  fetchedAt: '2026-11-24T10:00:00.000Z',
  changedAt: '2026-11-20T10:00:00.000Z',
  versionsSince: [
    { hash: V3, fetchedAt: '2026-11-24T10:00:00.000Z', scores: { js_integrity_score: 81 }, pinned: false },
    { hash: V2, fetchedAt: '2026-11-20T10:00:00.000Z', scores: { js_integrity_score: 82 }, pinned: false },
    { hash: V1, fetchedAt: '2026-10-01T00:00:00.000Z', scores: { js_integrity_score: 85 }, pinned: true },
  ],
  scores: { js_integrity_score: 81, magecart_score: 90 },
  malicious: false,
  reported: { domainMalicious: false, urlMalicious: false, urlCategories: [] },
};

const own: AuditScript = {
  id: 'd1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6',
  url: OWN,
  status: 'infrequent',
  firstSeenAt: '2026-09-01T00:00:00.000Z',
  lastSeenAt: '2026-11-01T00:00:00.000Z',
  seenOn: ['https://shop.example.com/checkout', 'https://shop.example.com/checkout/pay'],
  entry: { index: 1, prefix: 'https://shop.example.com/js/', justification: 'Our checkout code', owner: 'web team' },
  integrity: 'unpinned',
  hash: 'dd'.repeat(32),
  versionsSince: [],
  scores: {},
  malicious: false,
  reported: { domainMalicious: false, urlMalicious: false, urlCategories: [] },
};

const hostile: AuditScript = {
  id: 'e1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6',
  url: HOSTILE_URL,
  status: 'active',
  firstSeenAt: '2026-11-23T00:00:00.000Z',
  lastSeenAt: '2026-11-24T00:00:00.000Z',
  seenOn: ['https://shop.example.com/checkout'],
  integrity: 'unauthorized',
  hash: 'ee'.repeat(32),
  versionsSince: [],
  scores: { js_integrity_score: 4, magecart_score: 2 },
  malicious: true,
  reported: { domainMalicious: true, urlMalicious: false, urlCategories: ['Malware <b>'] },
};

const risk: AuditScript = {
  id: 'f1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6',
  url: RISK,
  status: 'active',
  firstSeenAt: '2026-08-01T00:00:00.000Z',
  lastSeenAt: '2026-11-24T00:00:00.000Z',
  seenOn: ['https://pay.example.com/'],
  entry: { index: 2, url: RISK, justification: HOSTILE_JUSTIFICATION, hash: 'ab'.repeat(32) },
  integrity: 'unchanged',
  hash: 'ab'.repeat(32),
  fetchedAt: '2026-08-01T00:00:00.000Z',
  versionsSince: [],
  scores: { js_integrity_score: 70 },
  malicious: false,
  reported: { domainMalicious: false, urlMalicious: false, urlCategories: [] },
};

/** Authorized, pinned and unchanged, but its URL reported malicious: it fails all the same. */
const widget: AuditScript = {
  id: 'a9d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6',
  url: WIDGET,
  status: 'active',
  firstSeenAt: '2026-07-01T00:00:00.000Z',
  lastSeenAt: '2026-11-24T00:00:00.000Z',
  seenOn: ['https://pay.example.com/'],
  entry: { index: 4, url: WIDGET, justification: 'Loyalty widget', owner: 'marketing', hash: 'cd'.repeat(32) },
  integrity: 'unchanged',
  hash: 'cd'.repeat(32),
  fetchedAt: '2026-07-01T00:00:00.000Z',
  versionsSince: [],
  scores: { js_integrity_score: 60 },
  malicious: false,
  reported: { domainMalicious: false, urlMalicious: true, urlCategories: ['Malware'] },
};

function page(text: string, rest: Omit<AuditPaymentPage, 'page' | 'counts'>): AuditPaymentPage {
  return { page: text, ...rest, counts: countsOf(rest.scripts) };
}

const checkout = page('shop.example.com/checkout', {
  host: 'shop.example.com',
  headers: [
    {
      policyId: 'p0000000000000000000000000000001',
      description: 'Checkout: only the scripts of the inventory',
      action: 'allow',
      mode: 'enforced',
      value: `script-src ${CARD} https://shop.example.com/js/`,
      managedBy: {
        name: 'checkout-enforce',
        urn: 'urn:pulumi:prod::shop::edgeguard:index:CspPolicy::checkout-enforce',
      },
    },
    {
      policyId: 'p0000000000000000000000000000002',
      description: HOSTILE_DESCRIPTION,
      action: 'log',
      mode: 'report-only',
      value: "script-src 'self'",
    },
  ],
  scripts: [card, hostile, own],
});

const pay = page('pay.example.com', { host: 'pay.example.com', headers: [], scripts: [risk, widget] });

const inventory: AuditInventory = {
  name: 'checkout-scripts',
  urn: 'urn:pulumi:prod::shop::edgeguard:index:ScriptInventory::checkout-scripts',
  zoneId: ZONE,
  pages: [checkout, pay],
  counts: countsOf([card, hostile, own, risk, widget]),
  staleEntries: [{ index: 3, url: 'https://old.example/gone.js', justification: 'Retired <b>widget</b>' }],
};

/** The evidence with a script of each integrity: it fails (one changed, one unauthorized, two malicious). */
export const FAILING: AuditEvidence = {
  format: 'edgeguard-audit',
  formatVersion: 1,
  evaluatedAt: '2026-11-25T09:30:00.000Z',
  tool: { name: 'edgeguard-audit', version: '0.1.0' },
  project: 'shop',
  stack: 'prod',
  passed: false,
  counts: inventory.counts,
  inventories: [inventory],
};

/** The same evidence once the changed, unauthorized and malicious scripts are gone: unchanged and unpinned ones pass. */
export const PASSING: AuditEvidence = (() => {
  const kept = [own, risk];
  const keep = (scripts: readonly AuditScript[]) => scripts.filter((script) => kept.includes(script));
  const pages = inventory.pages.map((one) => page(one.page, { ...one, scripts: keep(one.scripts) }));
  const counts = countsOf(kept);
  return { ...FAILING, passed: passes(counts), counts, inventories: [{ ...inventory, pages, counts }] };
})();
