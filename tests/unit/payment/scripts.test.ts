import { judgePaymentScripts, needsRead, pageUrlPatterns, type ScriptOnPages } from '../../../provider/payment/scripts';
import { parseScriptInventory, type ScriptEntryInput, type ScriptInventory } from '../../../rules/inventory';

/**
 * The pure judging of scripts read on an inventory's pages (`judgePaymentScripts`,
 * provider/payment/scripts.ts): the entry, the integrity and the versions since the pin, from the
 * entries given, whatever entries the pages were read with.
 */

const PAGE = 'shop.example.com/checkout/pay';
const CARD = 'https://js.pay.example/v3/card.js';
const OWN = 'https://shop.example.com/js/checkout.js';
const STRAY = 'https://cdn.other.example/tracker.js';
const [V1, V2, V3] = ['a1', 'b2', 'c3'].map((two) => two.repeat(32)) as [string, string, string];

function inventoryOf(scripts: ScriptEntryInput[]): ScriptInventory {
  const parsed = parseScriptInventory({ pages: ['shop.example.com/checkout'], scripts });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

function read(url: string, fields: Partial<ScriptOnPages['script']> = {}): ScriptOnPages {
  return {
    script: {
      id: `id-${url}`,
      url,
      added_at: '2026-10-01T00:00:00.000Z',
      first_seen_at: '2026-10-01T00:00:00.000Z',
      last_seen_at: '2026-11-24T00:00:00.000Z',
      host: 'shop.example.com',
      domain_reported_malicious: false,
      url_reported_malicious: false,
      first_page_url: PAGE,
      status: 'active',
      url_contains_cdn_cgi_path: false,
      versions: [],
      ...fields,
    },
    pages: [PAGE],
    inventoryPages: ['shop.example.com/checkout'],
  };
}

/** The card script at V3, its versions V3, V2, V1 newest first; our code unpinned; a stray script. */
const READ = [
  read(CARD, {
    hash: V3.toUpperCase(),
    js_integrity_score: 41,
    fetched_at: '2026-11-24T10:00:00.000Z',
    versions: [{ hash: V3 }, { hash: V2 }, { hash: V1 }, { hash: 'd4'.repeat(32) }],
  }),
  read(OWN, { hash: V1, js_integrity_score: 80 }),
  read(STRAY, { js_integrity_score: 4, url_reported_malicious: true, malicious_url_categories: ['Malware'] }),
];

const judged = (entries: ScriptEntryInput[]) =>
  judgePaymentScripts(READ, inventoryOf(entries)).map((script) => [
    script.url,
    script.integrity,
    script.entry?.index,
    script.changes.map((version) => version.hash),
  ]);

test('each integrity: changed with the versions since the pin, unpinned, unauthorized', () => {
  expect(
    judged([
      { url: CARD, justification: 'Card form', hash: V2 },
      { prefix: 'https://shop.example.com/js/', justification: 'Our code' },
    ]),
  ).toEqual([
    [CARD, 'changed', 0, [V3, V2]],
    [OWN, 'unpinned', 1, []],
    [STRAY, 'unauthorized', undefined, []],
  ]);
});

test('the same reading judged with a re-pin: unchanged; a pin page security no longer lists: every version', () => {
  expect(judged([{ url: CARD, justification: 'Card form', hash: V3 }])[0]).toEqual([CARD, 'unchanged', 0, []]);
  expect(judged([{ url: CARD, justification: 'Card form', hash: 'e5'.repeat(32) }])[0]).toEqual([
    CARD,
    'changed',
    0,
    [V3, V2, V1, 'd4'.repeat(32)],
  ]);
  // A url entry without a hash pins nothing.
  expect(judged([{ url: CARD, justification: 'Card form' }])[0]).toEqual([CARD, 'unpinned', 0, []]);
});

test('the facts read are kept as read: hash lowercase, scores, malicious flag, reports, pages', () => {
  const [card, , stray] = judgePaymentScripts(READ, inventoryOf([{ url: CARD, justification: 'Card form' }]));
  expect(card).toMatchObject({
    id: `id-${CARD}`,
    status: 'active',
    hash: V3,
    fetchedAt: '2026-11-24T10:00:00.000Z',
    scores: { js_integrity_score: 41 },
    malicious: false,
    pages: [PAGE],
    inventoryPages: ['shop.example.com/checkout'],
  });
  expect(stray).toMatchObject({
    malicious: true,
    reported: { domainMalicious: false, urlMalicious: true, urlCategories: ['Malware'] },
  });
  expect(stray!.entry).toBeUndefined();
  expect('hash' in stray!).toBe(false);
});

test('a pinned script whose plan reports no hash is read, and stays changed when the read gives none either', () => {
  const inventory = inventoryOf([
    { url: CARD, justification: 'Card form', hash: V1 },
    { prefix: 'https://shop.example.com/js/', justification: 'Our code' },
  ]);
  // As listed: a listed script has no versions (spec 2.3: only its read gives them).
  const listed = (url: string, fields: Partial<ScriptOnPages['script']> = {}) => {
    const { versions: _none, ...script } = read(url, fields).script;
    return script;
  };
  // Listed without a hash: only the read can tell, so it is read (as is a listed hash not the pin).
  expect(needsRead(listed(CARD), inventory)).toBe(true);
  expect(needsRead(listed(CARD, { hash: V2 }), inventory)).toBe(true);
  expect(needsRead(listed(CARD, { hash: V1.toUpperCase() }), inventory)).toBe(false);
  // Unpinned and unauthorized scripts need no hash; a script read already is not read again.
  expect(needsRead(listed(OWN), inventory)).toBe(false);
  expect(needsRead(listed(STRAY), inventory)).toBe(false);
  expect(needsRead(read(CARD).script, inventory)).toBe(false);

  // The read gave no hash either (some plans report none): the pin cannot be shown to hold.
  const [card] = judgePaymentScripts([read(CARD, { versions: [{ js_integrity_score: 50 }] })], inventory);
  expect(card).toMatchObject({ integrity: 'changed', changes: [{ js_integrity_score: 50 }] });
  expect('hash' in card!).toBe(false);
});

test('the page_url patterns of the pages: a host with any port and path, a path and the pages under it', () => {
  const parsed = parseScriptInventory({
    pages: ['shop.example.com', 'pay.example.com/a,b', 'pay.example.com/caf%C3%A9'],
    scripts: [],
  });
  if (!parsed.ok) throw new Error(parsed.error.message);
  expect(pageUrlPatterns(parsed.value.pages)).toEqual([
    'shop.example.com',
    'shop.example.com/*',
    'shop.example.com:*',
    // The list's separator stands for any run.
    'pay.example.com/a*b',
    'pay.example.com/a*b/*',
    'pay.example.com:*/a*b',
    'pay.example.com:*/a*b/*',
    // Percent-encoded, as a page URL carries it.
    'pay.example.com/caf%C3%A9',
    'pay.example.com/caf%C3%A9/*',
    'pay.example.com:*/caf%C3%A9',
    'pay.example.com:*/caf%C3%A9/*',
  ]);
});
