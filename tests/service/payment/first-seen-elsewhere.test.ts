import { clientFrom } from '../../../provider/client/shared';
import {
  listScriptsOnPages,
  newTally,
  pageUrlPatterns,
  PER_PAGE,
  readPaymentScripts,
  requestBound,
  tallyBound,
} from '../../../provider/payment/scripts';
import { inventoryOf } from '../../helpers/inventories';
import { startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';

/**
 * Issue 42, item 5: the payment pages' reading on a real shop. A script page security first saw on
 * another page (the site's analytics, first seen on the home page) costs no read: the list filtered
 * by `page_url` says it is on the pages. The bound `2 × ⌈k / 100⌉ + c` holds whatever page each
 * script was first seen on, and pages whose path the URL parser and `encodeURI` write differently
 * (`[`, `]`, `|`, `^`, a page written already percent-encoded) list their scripts.
 */

const HOME = 'https://shop.example.com/';
const CHECKOUT = 'https://shop.example.com/checkout/pay';
const ANALYTICS = 'https://analytics.example/tag.js';
const CARD = 'https://js.pay.example/v3/card.js';
const [V1, V2] = ['a1', 'b2'].map((two) => two.repeat(32)) as [string, string];

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => emu.close());

const client = () => clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN } });

test('a script first seen on the home page costs no read: the filtered list places it on the payment page', async () => {
  const zone = await emu.zoneWithScripts([
    { url: ANALYTICS, page_urls: [HOME, CHECKOUT] },
    { url: CARD, hash: V1, page_urls: [CHECKOUT] },
    { url: 'https://cdn.example.net/home-only.js', page_urls: [HOME] },
  ]);
  const inventory = inventoryOf(['shop.example.com/checkout'], [{ url: CARD, justification: 'Card form', hash: V1 }]);
  const mark = emu.mark();
  const tally = newTally();
  const scripts = await readPaymentScripts(client(), zone, inventory, tally);
  const requests = await emu.requests(mark);

  expect(scripts.map((script) => [script.url, script.integrity, script.inventoryPages, script.pages])).toEqual([
    // No page URL of it falls on the pages: the page as the inventory writes it stands for it.
    [ANALYTICS, 'unauthorized', ['shop.example.com/checkout'], ['shop.example.com/checkout']],
    [CARD, 'unchanged', ['shop.example.com/checkout'], [CHECKOUT]],
  ]);
  // Only the two list pages: no single-script read.
  expect(requests.map((request) => request.path.endsWith('/scripts'))).toEqual([true, true]);
  expect(tally).toEqual({ listed: 2, read: 0, requests: 2 });
  expect(requests.length).toBeLessThanOrEqual(requestBound(2, 0));
});

test('the bound 2 × ⌈k / 100⌉ + c holds when every script was first seen on another page', async () => {
  const k = 2 * PER_PAGE + 30;
  const zone = await emu.zoneWithScripts([
    ...Array.from({ length: k - 1 }, (_, i) => ({
      url: `https://cdn${i % 7}.example.net/s${i}.js`,
      status: i % 4 === 0 ? 'infrequent' : 'active',
      page_urls: [`https://shop.example.com/catalog/${i}`, CHECKOUT],
    })),
    { url: CARD, hash: V1, page_urls: [HOME, CHECKOUT] },
  ]);
  await emu.newScriptVersion(zone, CARD, { hash: V2 });
  const inventory = inventoryOf(['shop.example.com/checkout'], [{ url: CARD, justification: 'Card form', hash: V1 }]);
  const mark = emu.mark();
  const tally = newTally();
  const scripts = await readPaymentScripts(client(), zone, inventory, tally);
  const made = (await emu.requests(mark)).length;

  expect(scripts).toHaveLength(k);
  // The one changed script is read, for its versions since the pin.
  expect(scripts.find((script) => script.url === CARD)).toMatchObject({ integrity: 'changed' });
  expect(tally.read).toBe(1);
  expect(made).toBe(tally.requests);
  expect(made).toBeLessThanOrEqual(2 * Math.ceil(k / 100) + 1);
  expect(tallyBound(tally)).toBe(requestBound(k, 1));
});

// The inventory writes these characters percent-encoded (it refuses them raw); a browser reports the
// page as the URL parser writes it (raw), or as the link wrote it (percent-encoded).
test.each([
  ['a |, reported raw', 'shop.example.com/pay%7Cnow', 'https://shop.example.com/pay|now'],
  ['a [ and a ], reported raw', 'shop.example.com/a%5B1%5D/pay', 'https://shop.example.com/a[1]/pay'],
  ['a ^, reported raw', 'shop.example.com/x%5Ey', 'https://shop.example.com/x^y'],
  ['a |, reported percent-encoded', 'shop.example.com/pay%7Cnow', 'https://shop.example.com/pay%7Cnow'],
  ['a [ and a ], reported percent-encoded', 'shop.example.com/a%5b1%5d/pay', 'https://shop.example.com/a%5B1%5D/pay'],
])('a page whose path holds %s, lists its scripts', async (_what, page, seenOn) => {
  const zone = await emu.zoneWithScripts([{ url: CARD, page_urls: [seenOn] }]);
  const scripts = await listScriptsOnPages(client(), zone, inventoryOf([page]).pages);
  expect(scripts.map((one) => one.script.url)).toEqual([CARD]);
});

test('an inventory of several pages: a script first seen elsewhere is placed on the pages that list it, each page listed apart once', async () => {
  const PAY = 'https://shop.example.com/pay';
  const zone = await emu.zoneWithScripts([
    { url: ANALYTICS, page_urls: [HOME, PAY] },
    { url: CARD, page_urls: [CHECKOUT] },
  ]);
  const inventory = inventoryOf(['shop.example.com/checkout', 'shop.example.com/pay']);
  const tally = newTally();
  const scripts = await listScriptsOnPages(client(), zone, inventory.pages, { tally });
  expect(scripts.map((one) => [one.script.url, one.inventoryPages])).toEqual([
    [ANALYTICS, ['shop.example.com/pay']],
    [CARD, ['shop.example.com/checkout']],
  ]);
  // Both pages together, then each apart: 2 + 2 × 2 list pages, nothing read.
  expect(tally).toEqual({ listed: 2, read: 0, requests: 6, pages: 2 });
  expect(tally.requests).toBeLessThanOrEqual(tallyBound(tally));
});

test("the vendor dialect's patterns have a * only at a pattern's start or end", () => {
  const pages = inventoryOf(['shop.example.com/checkout', 'shop.example.com/a,b', 'pay.example.com']).pages;
  const patterns = pageUrlPatterns(pages, 'vendor');
  expect(patterns.filter((pattern) => pattern.slice(1, -1).includes('*'))).toEqual([]);
  expect(patterns).toEqual([
    'shop.example.com/checkout',
    'shop.example.com/checkout/*',
    'shop.example.com/a*',
    'pay.example.com',
    'pay.example.com/*',
    'pay.example.com:*',
  ]);
});
