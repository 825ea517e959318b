import { clientFrom } from '../../../provider/client/shared';
import {
  newTally,
  pageUrlPatterns,
  PER_PAGE,
  readPaymentScripts,
  requestBound,
} from '../../../provider/payment/scripts';
import { inventoryOf } from '../../helpers/inventories';
import { startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';

/**
 * The one reading of what page security detects on an inventory's pages (provider/payment/scripts.ts),
 * against the emulator: the integrity of each kind of script, the versions of a changed one, and the
 * requests, within the stated bound whatever the host's other pages hold: the pages listed, and a
 * script read only when the listing does not tell enough.
 */

const CARD = 'https://js.pay.example/v3/card.js';
const FRAUD = 'https://fraud.example/check.js';
const OWN = 'https://shop.example.com/js/checkout.js';
const STRAY = 'https://cdn.other.example/tracker.js';
const CHECKOUT = 'https://shop.example.com/checkout/pay';
const [V1, V2, V3] = ['a1', 'b2', 'c3'].map((two) => two.repeat(32)) as [string, string, string];

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => emu.close());

const client = () => clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN } });

test('each script on the pages judged: unchanged, changed with its versions since the pin, unpinned, unauthorized', async () => {
  const zone = await emu.zoneWithScripts([
    { url: CARD, hash: V1, page_urls: [CHECKOUT, 'https://shop.example.com/'] },
    { url: FRAUD, hash: V1, status: 'infrequent', first_seen_at: '2026-10-01T00:00:00.000Z', page_urls: [CHECKOUT] },
    { url: OWN, page_urls: [CHECKOUT] },
    { url: STRAY, js_integrity_score: 4, page_urls: ['https://shop.example.com/checkout'] },
    { url: 'https://cdn.other.example/blog.js', page_urls: ['https://shop.example.com/blog/post'] },
  ]);
  for (const [hash, fetched_at] of [
    [V2, '2026-11-20T10:00:00.000Z'],
    [V3, '2026-11-24T10:00:00.000Z'],
  ] as const) {
    await emu.newScriptVersion(zone, FRAUD, { hash, fetched_at });
  }
  const inventory = inventoryOf(
    ['shop.example.com/checkout'],
    [
      { url: CARD, justification: 'Card form', hash: V1 },
      { url: FRAUD, justification: 'Fraud checks', hash: V1.toUpperCase() },
      { prefix: 'https://shop.example.com/js/', justification: 'Our code' },
    ],
  );

  const scripts = await readPaymentScripts(client(), zone, inventory);

  expect(scripts.map((script) => [script.url, script.integrity, script.entry?.index])).toEqual([
    [STRAY, 'unauthorized', undefined],
    [FRAUD, 'changed', 1],
    [CARD, 'unchanged', 0],
    [OWN, 'unpinned', 2],
  ]);
  const changed = scripts.find((script) => script.url === FRAUD)!;
  expect(changed).toMatchObject({
    hash: V3,
    status: 'infrequent',
    pages: [CHECKOUT],
    inventoryPages: ['shop.example.com/checkout'],
  });
  // The versions since the approved one, newest first, down to the approved one.
  expect(changed.changes.map((version) => [version.hash, version.fetched_at])).toEqual([
    [V3, '2026-11-24T10:00:00.000Z'],
    [V2, '2026-11-20T10:00:00.000Z'],
    [V1, expect.any(String)],
  ]);
  expect(scripts.find((script) => script.url === CARD)!.pages).toEqual([CHECKOUT]);
  expect(scripts.find((script) => script.url === STRAY)).toMatchObject({
    malicious: true,
    scores: { js_integrity_score: 4 },
  });
  expect(
    scripts.filter((script) => script.integrity !== 'changed').every((script) => script.changes.length === 0),
  ).toBe(true);
});

test("a zone with many more scripts on the host's other pages: only the pages listed, a changed script alone read, within the bound", async () => {
  const others = 3 * PER_PAGE + 17;
  const zone = await emu.zoneWithScripts([
    ...Array.from({ length: others }, (_, i) => ({
      url: `https://cdn${i % 9}.example.net/s${i}.js`,
      status: i % 5 === 0 ? 'infrequent' : 'active',
      page_urls: [`https://shop.example.com/catalog/${i}`],
    })),
    { url: CARD, hash: V1, page_urls: [CHECKOUT] },
    { url: FRAUD, hash: V1, status: 'infrequent', page_urls: [CHECKOUT] },
    { url: OWN, page_urls: [CHECKOUT] },
    { url: 'https://elsewhere.example/a.js', page_urls: ['https://other.example.com/checkout'] },
  ]);
  await emu.newScriptVersion(zone, FRAUD, { hash: V2 });
  const inventory = inventoryOf(
    ['shop.example.com/checkout'],
    [
      { url: CARD, justification: 'Card form', hash: V1 },
      { url: FRAUD, justification: 'Fraud checks', hash: V1 },
    ],
  );

  const mark = emu.mark();
  const tally = newTally();
  const scripts = await readPaymentScripts(client(), zone, inventory, tally);
  const requests = await emu.requests(mark);

  expect(scripts.map((script) => [script.url, script.integrity])).toEqual([
    [FRAUD, 'changed'],
    [CARD, 'unchanged'],
    [OWN, 'unauthorized'],
  ]);
  expect(requests.every((request) => request.method === 'GET')).toBe(true);
  // One list page in each status, with the pages' patterns and the /cdn-cgi/ scripts kept; then
  // the one script whose listed hash is not the pinned one, read for its versions.
  const lists = requests.filter((request) => request.path.endsWith('/scripts'));
  expect(lists).toHaveLength(2);
  for (const list of lists) {
    expect(list.query).toMatchObject({
      page_url: pageUrlPatterns(inventory.pages).join(','),
      exclude_cdn_cgi: 'false',
      per_page: String(PER_PAGE),
    });
  }
  const fraud = await emu.scriptIdOf(zone, FRAUD);
  expect(requests.filter((request) => !request.path.endsWith('/scripts')).map((request) => request.path)).toEqual([
    expect.stringMatching(new RegExp(`/scripts/${fraud}$`)),
  ]);
  expect(tally).toEqual({ listed: 3, read: 1, requests: 3 });
  expect(requests.length).toBe(requestBound(3, 1));
});

test("a script first seen on another page costs no read (issue 42): the list filtered by the pages' patterns places it, a case apart included", async () => {
  const zone = await emu.zoneWithScripts([
    // First seen on the home page, then on the checkout: the listing names only the home page.
    {
      url: CARD,
      hash: V1,
      page_urls: ['https://shop.example.com/', CHECKOUT, 'https://shop.example.com/checkout/done'],
    },
    // The pattern's case-insensitive match takes it in: the service's word is taken, with no read.
    { url: STRAY, page_urls: ['https://shop.example.com/CHECKOUT/pay'] },
    // A /cdn-cgi/ script on the payment page is a script on the page.
    { url: 'https://shop.example.com/cdn-cgi/challenge-platform/main.js', page_urls: [CHECKOUT] },
  ]);
  const inventory = inventoryOf(['shop.example.com/checkout'], [{ url: CARD, justification: 'Card form', hash: V1 }]);

  const tally = newTally();
  const scripts = await readPaymentScripts(client(), zone, inventory, tally);

  // Placed on the payment page as the inventory writes it when none of its reported pages is one.
  expect(scripts.map((script) => [script.url, script.integrity, script.pages])).toEqual([
    [STRAY, 'unauthorized', ['shop.example.com/checkout']],
    [CARD, 'unchanged', ['shop.example.com/checkout']],
    ['https://shop.example.com/cdn-cgi/challenge-platform/main.js', 'unauthorized', [CHECKOUT]],
  ]);
  expect(tally).toEqual({ listed: 3, read: 0, requests: requestBound(3, 0) });
});

test('an inventory without pages reads nothing', async () => {
  const mark = emu.mark();
  await expect(
    readPaymentScripts(client(), await emu.zoneWithScripts([]), { pages: [], scripts: [] }),
  ).resolves.toEqual([]);
  expect(await emu.requests(mark)).toEqual([]);
});
