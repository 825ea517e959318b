import { stableId } from '../core/ids';
import type { SeedDocument } from './seed';

/**
 * The demo world (`--seed demo`, the default for a new data directory): one account and zone with
 * what a real shop looks like to page security — scripts on several hosts, a few of them below
 * the malicious threshold (spec 8: `js_integrity_score` < 10), some seen only infrequently, an
 * exfiltration connection to a domain reported as malicious, first-party cookies — and 60
 * load-balancing pools still carrying legacy `notification_email` recipients.
 *
 * Ids are derived from names, so the demo's ids are the same on every machine and a Pulumi
 * program can name them.
 */

/** Fixed identifiers of the demo objects. */
export const DEMO = {
  accountId: stableId('demo', 'account'),
  zoneId: stableId('demo', 'zone', 'example.com'),
  zoneName: 'example.com',
  hosts: ['www.example.com', 'shop.example.com', 'checkout.example.com', 'blog.example.com'],
} as const;

/**
 * `pages` are the paths of the pages a script was seen on (its `page_urls`; the first is its
 * `first_page_url`); without them, the host's root. The checkout's pages make the review of a CSP
 * change meaningful (examples/csp-review): the payment scripts run on the payment pages.
 */
const SCRIPTS: Array<{
  host: string;
  url: string;
  score?: number;
  status?: 'infrequent';
  malicious?: true;
  pages?: string[];
}> = [
  { host: 'www.example.com', url: 'https://www.example.com/assets/app.js' },
  { host: 'www.example.com', url: 'https://www.googletagmanager.com/gtm.js' },
  { host: 'www.example.com', url: 'https://cdn.jsdelivr.net/npm/alpinejs@3.14.1/dist/cdn.min.js' },
  { host: 'www.example.com', url: 'https://static.hotjar.com/c/hotjar-311.js', status: 'infrequent' },
  { host: 'shop.example.com', url: 'https://shop.example.com/static/cart.js' },
  { host: 'shop.example.com', url: 'https://js.stripe.com/v3/', pages: ['/cart', '/product/espresso-grinder'] },
  { host: 'shop.example.com', url: 'https://cdn.shopify-assets.example.net/reviews.js' },
  { host: 'shop.example.com', url: 'https://connect.facebook.net/en_US/fbevents.js' },
  {
    host: 'shop.example.com',
    url: 'https://cdn-jquery-min.example.org/jquery-3.7.1.min.js',
    score: 4,
    malicious: true,
  },
  { host: 'shop.example.com', url: 'https://widgets.trustpilot.example.com/bootstrap.js', status: 'infrequent' },
  { host: 'checkout.example.com', url: 'https://checkout.example.com/js/payment.js', pages: ['/pay', '/pay/confirm'] },
  {
    host: 'checkout.example.com',
    url: 'https://js.stripe.com/v3/fingerprinted/js/elements.js',
    pages: ['/pay', '/pay/confirm'],
  },
  {
    host: 'checkout.example.com',
    url: 'https://analytics-cdn.example.info/collect.min.js',
    score: 7,
    malicious: true,
    // On the checkout host's login page: the checkout's policy blocks it there (it covers the
    // host), and its payment pages, which the flagship's script inventory holds, stay clean.
    pages: ['/login'],
  },
  { host: 'checkout.example.com', url: 'https://www.google.com/recaptcha/api.js', pages: ['/login', '/pay'] },
  { host: 'blog.example.com', url: 'https://blog.example.com/wp-includes/js/jquery/jquery.min.js' },
  { host: 'blog.example.com', url: 'https://platform.twitter.com/widgets.js' },
  { host: 'blog.example.com', url: 'https://fonts-loader.example.biz/loader.js', score: 9, malicious: true },
  { host: 'blog.example.com', url: 'https://disqus.example.com/embed.js', status: 'infrequent' },
  {
    host: 'blog.example.com',
    url: 'https://www.example.com/cdn-cgi/challenge-platform/scripts/jsd/main.js',
    score: 10,
  },
];

/**
 * `page` is the path of the page a connection was first seen on (spec 2.4 gives no other pages);
 * without it, the host's root. The checkout's connections make the review of `connect-src`
 * meaningful: the payment API and Stripe's fraud signals on the payment pages, and a card
 * skimmer's drop the service reports malicious.
 */
const CONNECTIONS: Array<{ host: string; url: string; page?: string; malicious?: string[] }> = [
  { host: 'www.example.com', url: 'https://www.google-analytics.com/g/collect' },
  { host: 'www.example.com', url: 'https://region1.analytics.google.com/g/collect' },
  { host: 'shop.example.com', url: 'https://api.stripe.com/v1/tokens', page: '/cart' },
  { host: 'shop.example.com', url: 'https://www.facebook.com/tr/' },
  { host: 'checkout.example.com', url: 'https://checkout.example.com/api/orders', page: '/pay' },
  { host: 'checkout.example.com', url: 'https://api.stripe.com/v1/payment_intents', page: '/pay' },
  { host: 'checkout.example.com', url: 'https://m.stripe.network/6/b/', page: '/pay' },
  {
    host: 'checkout.example.com',
    url: 'https://skimmer-drop.example.info/c.php',
    page: '/pay/confirm',
    malicious: ['Malware', 'Phishing'],
  },
  { host: 'blog.example.com', url: 'https://syndication.twitter.com/settings' },
];

const COOKIES: Array<{ host: string; name: string; max_age?: number }> = [
  { host: 'www.example.com', name: '_ga' },
  { host: 'www.example.com', name: 'consent', max_age: 31_536_000 },
  { host: 'shop.example.com', name: 'cart_id', max_age: 604_800 },
  { host: 'shop.example.com', name: 'session' },
  { host: 'checkout.example.com', name: '__Host-checkout' },
  { host: 'blog.example.com', name: 'comment_author' },
];

const REGIONS = ['ap-northeast', 'ap-southeast', 'eu-central', 'eu-west', 'sa-east', 'us-east', 'us-west'];
const TIERS = ['api', 'web', 'static', 'checkout'];
const RECIPIENTS = ['noc@example.com', 'lb-alerts@example.com', 'oncall+edge@example.com'];

/** The demo seed document. */
export function demoSeed(): SeedDocument {
  const zone_id = DEMO.zoneId;
  const pools: Array<Record<string, unknown>> = [];
  for (let i = 0; pools.length < 60; i++) {
    const region = REGIONS[i % REGIONS.length]!;
    const tier = TIERS[Math.floor(i / REGIONS.length) % TIERS.length]!;
    const n = String(Math.floor(i / (REGIONS.length * TIERS.length)) + 1).padStart(2, '0');
    pools.push({
      account_id: DEMO.accountId,
      name: `${region}-${tier}-${n}`,
      notification_email: RECIPIENTS[i % RECIPIENTS.length],
    });
  }
  return {
    accounts: [{ id: DEMO.accountId, name: 'Acme Corp' }],
    zones: [{ id: zone_id, name: DEMO.zoneName, account_id: DEMO.accountId }],
    scripts: SCRIPTS.map((s) => ({
      zone_id,
      url: s.url,
      host: s.host,
      first_page_url: `https://${s.host}${s.pages?.[0] ?? '/'}`,
      ...(s.pages ? { page_urls: s.pages.map((page) => `https://${s.host}${page}`) } : {}),
      ...(s.score !== undefined ? { js_integrity_score: s.score } : {}),
      ...(s.status ? { status: s.status } : {}),
      ...(s.malicious ? { url_reported_malicious: true, malicious_url_categories: ['Malware'] } : {}),
    })),
    connections: CONNECTIONS.map((c) => ({
      zone_id,
      url: c.url,
      host: c.host,
      first_page_url: `https://${c.host}${c.page ?? '/'}`,
      ...(c.malicious ? { domain_reported_malicious: true, malicious_domain_categories: c.malicious } : {}),
    })),
    cookies: COOKIES.map((c) => ({
      zone_id,
      name: c.name,
      host: c.host,
      ...(c.max_age !== undefined ? { max_age_attribute: c.max_age } : {}),
    })),
    pools,
  };
}
