import { z } from 'zod';
import { normalizeCspValue, parseCspValue } from '../../../rules/csp';
import { cspAllowsUrl } from '../../../rules/csp-match';
import {
  authorizingEntry,
  cspSources,
  inventoryPageOf,
  JUSTIFICATION_PLACEHOLDER,
  parseInventoryPage,
  parseJustification,
  parseScriptHash,
  parseScriptInventory,
  parseScriptPrefix,
  parseScriptUrl,
  type InventoryError,
  type ScriptEntryInput,
  type ScriptInventory,
} from '../../../rules/inventory';
import type { ParseResult } from '../../../rules/result';
import { ruleField } from '../../../rules/zod';

const PAGE = 'shop.example.com/checkout';

/** An inventory of `scripts` on the checkout, which must be valid. */
function inventory(scripts: ScriptEntryInput[], pages = [PAGE]): ScriptInventory {
  const result = parseScriptInventory({ pages, scripts });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

/** The refusal of an inventory, which must be invalid. */
function refusal(scripts: ScriptEntryInput[], pages = [PAGE]): InventoryError {
  const result = parseScriptInventory({ pages, scripts });
  if (result.ok) throw new Error('the inventory was accepted');
  return result.error;
}

/** The message of a failed parse, or `ok`. */
function outcome(result: ParseResult<unknown>): string {
  return result.ok ? 'ok' : result.error.message;
}

describe('parseScriptUrl and parseScriptPrefix: the address of an entry', () => {
  test('a url is kept as the URL parser writes it, with its query; paths compare decoded', () => {
    expect(parseScriptUrl('https://CDN.example.com:443/a%62c.js?v=1')).toEqual({
      ok: true,
      value: {
        text: 'https://cdn.example.com/a%62c.js?v=1',
        origin: 'https://cdn.example.com',
        path: '/abc.js',
        query: '?v=1',
        cspSource: 'https://cdn.example.com/a%62c.js',
      },
    });
  });

  test('a port other than 443 stays in the origin and the source', () => {
    const url = parseScriptUrl('https://cdn.example.com:8443/a.js');
    expect(url.ok && [url.value.origin, url.value.cspSource]).toEqual([
      'https://cdn.example.com:8443',
      'https://cdn.example.com:8443/a.js',
    ]);
  });

  test('characters CSP refuses in a path are percent-encoded in the source, which matches the same URL', () => {
    const url = parseScriptUrl("https://cdn.example.com/a;b,c'd.js");
    expect(url.ok && url.value.cspSource).toBe('https://cdn.example.com/a%3Bb%2Cc%27d.js');
    expect(parseCspValue(`script-src ${url.ok ? url.value.cspSource : ''}`).ok).toBe(true);
  });

  test.each<[string, string]>([
    [
      'http://cdn.example.com/a.js',
      'invalid script url "http://" at position 0: a payment page is served over https, where the browser blocks an http: script as mixed content; write https://',
    ],
    [
      'wss://cdn.example.com/a.js',
      'invalid script url "wss://" at position 0: a script of a payment page is an https: URL, not wss:',
    ],
    [
      'cdn.example.com/a.js',
      'invalid script url "cdn.example.com/a.js" at position 0: write the whole URL with its scheme, as in https://cdn.example.com/app.js',
    ],
    [
      'https://cdn.example.com/a.js#top',
      'invalid script url "#top" at position 28: a fragment never reaches the server, so it names no other script; remove it',
    ],
    [
      'https://*.example.com/a.js',
      'invalid script url "*.example.com" at position 8: an entry names one host: a wildcard would authorize scripts from hosts nobody listed; write each host',
    ],
    [
      'https://user@cdn.example.com/a.js',
      'invalid script url "user@cdn.example.com" at position 8: a user name or password cannot be part of a CSP source; remove it',
    ],
    [
      'https://[::1]/a.js',
      'invalid script url "[::1]" at position 8: CSP cannot name an IPv6 address; use a host name',
    ],
    [
      'https://cdn.example.com/js/../a.js',
      'invalid script url ".." at position 27: a "." or ".." segment is resolved by the browser; write the path it leads to',
    ],
    [
      'https://cdn.example.com/a%zz.js',
      'invalid script url "%zz" at position 25: a "%" must start a percent-encoded byte such as %20',
    ],
    [
      'https://cdn.example.com/a b.js',
      'invalid script url " " at position 25: a URL holds no spaces; remove them, or percent-encode one as %20',
    ],
    [
      'https://cdn_1.example.com/a.js',
      'invalid script url "https://cdn_1.example.com/a.js" at position 0: CSP cannot express it: the character "_" is not allowed; a hostname holds only letters, digits, hyphens and dots',
    ],
    [
      'https://cdn.example.com:99999/a.js',
      'invalid script url "https://cdn.example.com:99999/a.js" at position 0: not a URL the browser can load; write it as in https://cdn.example.com/app.js',
    ],
  ])('url %s is refused', (text, message) => {
    expect(outcome(parseScriptUrl(text))).toBe(message);
  });

  test('a prefix ends in "/" and holds no query', () => {
    expect(outcome(parseScriptPrefix('https://cdn.example.com/js/'))).toBe('ok');
    expect(outcome(parseScriptPrefix('https://cdn.example.com/'))).toBe('ok');
    expect(outcome(parseScriptPrefix('https://cdn.example.com/js'))).toBe(
      'invalid script prefix "/js" at position 23: a prefix ends in "/": CSP reads a path without it as one URL, not a prefix (write https://cdn.example.com/js/, or make it a url entry)',
    );
    expect(outcome(parseScriptPrefix('https://cdn.example.com'))).toMatch(/^invalid script prefix "" at position 23: /);
    expect(outcome(parseScriptPrefix('https://cdn.example.com/js/?v=1'))).toBe(
      'invalid script prefix "?v=1" at position 27: a prefix holds no query: CSP matches scripts by path only; remove it',
    );
  });
});

describe('parseInventoryPage', () => {
  test.each<[string, { host: string; path: string; text: string }]>([
    ['shop.example.com', { host: 'shop.example.com', path: '', text: 'shop.example.com' }],
    ['Shop.Example.com/', { host: 'shop.example.com', path: '', text: 'shop.example.com' }],
    ['shop.example.com/checkout/', { host: 'shop.example.com', path: '/checkout', text: 'shop.example.com/checkout' }],
    ['shop.example.com/caf%C3%A9', { host: 'shop.example.com', path: '/café', text: 'shop.example.com/café' }],
  ])('%s', (text, page) => {
    expect(parseInventoryPage(text)).toEqual({ ok: true, value: page });
  });

  test.each<[string, string]>([
    [
      'https://shop.example.com/checkout',
      'invalid page "https://" at position 0: write the page without its scheme, as in shop.example.com/checkout: a page counts over http and https alike',
    ],
    [
      'shop.example.com:8443/checkout',
      'invalid page ":8443" at position 16: a page has no port: its host counts on every port; remove it',
    ],
    [
      'shop.example.com/checkout?step=2',
      'invalid page "?step=2" at position 25: a page is matched by its path; the query and fragment never count, remove them',
    ],
    [
      'shop',
      'invalid page "shop" at position 0: "shop" has a single label; a hostname needs at least two, as in example.com',
    ],
    [
      '*.example.com/checkout',
      'invalid page "*" at position 0: a wildcard "*" is not allowed here; give one exact hostname',
    ],
  ])('%s is refused', (text, message) => {
    expect(outcome(parseInventoryPage(text))).toBe(message);
  });
});

describe('the justification rule', () => {
  test('a justification is kept trimmed', () => {
    expect(parseJustification('  Stripe Elements: the card form. ')).toEqual({
      ok: true,
      value: 'Stripe Elements: the card form.',
    });
  });

  test.each<[string, string, string]>([
    ['empty', '', 'invalid justification "" at position 0: it is blank; write why'],
    ['only spaces', ' \t', 'invalid justification " \\t" at position 0: it is blank; write why'],
    ['only punctuation', '-', 'invalid justification "-" at position 0: it says nothing; write why'],
    [
      "edgeguard-inventory's marked blank",
      JUSTIFICATION_PLACEHOLDER,
      `invalid justification "${JUSTIFICATION_PLACEHOLDER}" at position 0: it holds the blank edgeguard-inventory writes; a person must write why`,
    ],
    [
      'the marked blank left in a sentence, in another case',
      'Analytics. todo: JUSTIFY',
      'invalid justification "todo: JUSTIFY" at position 11: it holds the blank edgeguard-inventory writes; a person must write why',
    ],
  ])('%s is refused', (_what, text, start) => {
    expect(outcome(parseJustification(text))).toBe(
      `${start} the script is on the payment pages (the business or technical reason PCI DSS 6.4.3 asks for)`,
    );
  });
});

describe('parseScriptHash', () => {
  test('a hexadecimal digest, lowercased', () => {
    expect(parseScriptHash('ABCDEF0123456789')).toEqual({ ok: true, value: 'abcdef0123456789' });
  });

  test.each<[string, string]>([
    [
      'sha256-abc',
      'invalid hash "s" at position 0: the character "s" is not hexadecimal; write the hexadecimal digest page security reports as the script\'s hash, 8 to 128 digits',
    ],
    [
      'abc',
      'invalid hash "abc" at position 0: it has 3 digits; write the hexadecimal digest page security reports as the script\'s hash, 8 to 128 digits',
    ],
  ])('%s is refused', (text, message) => {
    expect(outcome(parseScriptHash(text))).toBe(message);
  });
});

describe('parseScriptInventory: the first problem, naming the entry', () => {
  const stripe = 'https://js.stripe.com/v3/';

  test('a valid inventory keeps each entry with its index, kind and canonical address', () => {
    const parsed = inventory([
      { url: stripe, justification: 'Card form', owner: ' payments ', hash: '0A1B2C3D' },
      { prefix: 'https://shop.example.com/assets/', justification: 'Our own bundles' },
    ]);
    expect(parsed.scripts.map((entry) => ({ ...entry, address: entry.address.text }))).toEqual([
      {
        index: 0,
        kind: 'url',
        url: stripe,
        address: stripe,
        justification: 'Card form',
        owner: 'payments',
        hash: '0a1b2c3d',
      },
      {
        index: 1,
        kind: 'prefix',
        prefix: 'https://shop.example.com/assets/',
        address: 'https://shop.example.com/assets/',
        justification: 'Our own bundles',
      },
    ]);
  });

  test('an entry left with the marked blank is refused, saying a person must write it', () => {
    const error = refusal([
      { url: stripe, justification: 'Card form' },
      { url: 'https://cdn.example.com/a.js', justification: JUSTIFICATION_PLACEHOLDER },
    ]);
    expect(error.path).toEqual(['scripts', 1, 'justification']);
    expect(error.message).toBe(
      'scripts[1] (url "https://cdn.example.com/a.js"): invalid justification "TODO: justify" at position 0: it holds the blank edgeguard-inventory writes; a person must write why the script is on the payment pages (the business or technical reason PCI DSS 6.4.3 asks for)',
    );
  });

  test.each<[string, ScriptEntryInput, Array<string | number>, string]>([
    [
      'neither url nor prefix',
      { justification: 'x' },
      ['scripts', 0, 'url'],
      "scripts[0]: it has neither a url, a prefix nor an inline hash; give a url for one script (https://cdn.example.com/app.js), a prefix for every script under a path (https://cdn.example.com/js/) or the hash of an inline script ('sha256-<base64>')",
    ],
    [
      'both url and prefix',
      { url: 'https://cdn.example.com/a.js', prefix: 'https://cdn.example.com/', justification: 'x' },
      ['scripts', 0, 'prefix'],
      'scripts[0] (url "https://cdn.example.com/a.js"): invalid script entry "https://cdn.example.com/" at position 0: an entry has a url or a prefix, not both; make them two entries, each with its justification',
    ],
    [
      'no justification',
      { prefix: 'https://cdn.example.com/' },
      ['scripts', 0, 'justification'],
      'scripts[0] (prefix "https://cdn.example.com/"): the justification is missing; write why the script is on the payment pages (the business or technical reason PCI DSS 6.4.3 asks for)',
    ],
    [
      'a blank owner',
      { url: 'https://cdn.example.com/a.js', justification: 'x', owner: ' ' },
      ['scripts', 0, 'owner'],
      'scripts[0] (url "https://cdn.example.com/a.js"): invalid owner " " at position 0: it is blank; name the person or team, or leave the owner out',
    ],
    [
      'a hash on a prefix',
      { prefix: 'https://cdn.example.com/', justification: 'x', hash: '0a1b2c3d' },
      ['scripts', 0, 'hash'],
      'scripts[0] (prefix "https://cdn.example.com/"): invalid hash "0a1b2c3d" at position 0: only a url entry pins a hash: a prefix covers scripts of many versions; make this script a url entry to pin it',
    ],
    [
      'a url CSP cannot express',
      { url: 'http://cdn.example.com/a.js', justification: 'x' },
      ['scripts', 0, 'url'],
      'scripts[0] (url "http://cdn.example.com/a.js"): invalid script url "http://" at position 0: a payment page is served over https, where the browser blocks an http: script as mixed content; write https://',
    ],
  ])('%s', (_what, entry, path, message) => {
    const error = refusal([entry]);
    expect([error.path, error.message]).toEqual([path, message]);
  });

  test('two entries of the same script, written differently, are refused, naming the first', () => {
    const error = refusal([
      { url: 'https://cdn.example.com/a.js?v=1', justification: 'x' },
      { url: 'https://cdn.example.com/a.js?v=2', justification: 'x' },
      { url: 'https://CDN.example.com:443/%61.js?v=1', justification: 'y' },
    ]);
    expect([error.path, error.message]).toEqual([
      ['scripts', 2, 'url'],
      'scripts[2] (url "https://CDN.example.com:443/%61.js?v=1"): invalid script url "https://cdn.example.com/%61.js?v=1" at position 0: it names the same script as scripts[0]; keep one entry',
    ]);
  });

  test('two entries of the same prefix are refused; a url and a prefix of the same text are not the same', () => {
    expect(
      refusal([
        { prefix: 'https://cdn.example.com/js/', justification: 'x' },
        { url: 'https://cdn.example.com/js/', justification: 'x' },
        { prefix: 'https://cdn.example.com/%6As/', justification: 'x' },
      ]).message,
    ).toBe(
      'scripts[2] (prefix "https://cdn.example.com/%6As/"): invalid script prefix "https://cdn.example.com/%6As/" at position 0: it names the same prefix as scripts[0]; keep one entry',
    );
  });

  test('pages: at least one, each once, the first problem naming it', () => {
    expect(refusal([], []).message).toBe('pages: list at least one payment page, as in shop.example.com/checkout');
    const twice = refusal([], [PAGE, 'Shop.example.com/checkout/']);
    expect([twice.path, twice.message]).toEqual([
      ['pages', 1],
      'pages[1]: invalid page "Shop.example.com/checkout/" at position 0: it is the page of pages[0]; keep one',
    ]);
    expect(refusal([{ justification: 'x' }], ['shop']).path).toEqual(['pages', 0]);
  });

  test('the field parsers make zod fields through ruleField, and the whole parser a refinement', () => {
    const entry = z.object({
      url: ruleField(parseScriptUrl, 'the URL of one script, as in https://cdn.example.com/app.js').optional(),
      prefix: ruleField(parseScriptPrefix, 'a path prefix, as in https://cdn.example.com/js/').optional(),
      justification: ruleField(parseJustification, 'why the script is on the payment pages'),
      hash: ruleField(parseScriptHash, "the script's hexadecimal hash").optional(),
    });
    const fields = z.object({
      pages: z.array(ruleField(parseInventoryPage, 'a payment page')),
      scripts: z.array(entry),
    });
    const blank = fields.safeParse({
      pages: [PAGE],
      scripts: [{ url: 'https://cdn.example.com/a.js', justification: JUSTIFICATION_PLACEHOLDER }],
    });
    expect(blank.success ? [] : blank.error.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [['scripts', 0, 'justification'], outcome(parseJustification(JUSTIFICATION_PLACEHOLDER))],
    ]);
    const whole = fields.superRefine((value, ctx) => {
      const parsed = parseScriptInventory(value);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', path: parsed.error.path, message: parsed.error.message });
    });
    const same = whole.safeParse({
      pages: [PAGE],
      scripts: [
        { prefix: 'https://cdn.example.com/', justification: 'x' },
        { prefix: 'https://cdn.example.com/', justification: 'y' },
      ],
    });
    expect(same.success ? [] : same.error.issues.map((issue) => issue.path)).toEqual([['scripts', 1, 'prefix']]);
  });
});

describe('inventoryPageOf: whether a detected page is a payment page', () => {
  const pages = inventory([], ['shop.example.com/checkout', 'shop.example.com/checkout/pay', 'pay.example.com']);

  test.each<[string, string | undefined]>([
    ['shop.example.com/checkout', 'shop.example.com/checkout'],
    ['https://shop.example.com/checkout', 'shop.example.com/checkout'],
    ['http://SHOP.example.com/checkout/', 'shop.example.com/checkout'],
    ['shop.example.com/checkout/cart?step=2#top', 'shop.example.com/checkout'],
    ['shop.example.com:8443/checkout', 'shop.example.com/checkout'],
    ['shop.example.com/checkout/pay/card', 'shop.example.com/checkout/pay'],
    ['shop.example.com/checkout%2Fpay', 'shop.example.com/checkout/pay'],
    ['pay.example.com/', 'pay.example.com'],
    ['pay.example.com/anything/else', 'pay.example.com'],
    ['shop.example.com/checkout-old', undefined],
    ['shop.example.com/Checkout', undefined],
    ['shop.example.com/', undefined],
    ['www.shop.example.com/checkout', undefined],
    ['example.com/checkout', undefined],
    ['ftp://shop.example.com/checkout', undefined],
    ['', undefined],
  ])('%s', (url, page) => {
    expect(inventoryPageOf(pages, url)?.text).toBe(page);
  });
});

describe('authorizingEntry: the most specific entry that authorizes a script', () => {
  const scripts = inventory([
    { url: 'https://js.stripe.com/v3/', justification: 'Card form' },
    { url: 'https://cdn.example.com/lib/pinned.js?v=2', justification: 'Pinned' },
    { url: 'https://cdn.example.com/lib/plain.js', justification: 'Plain' },
    { prefix: 'https://cdn.example.com/', justification: 'Whole CDN' },
    { prefix: 'https://cdn.example.com/lib/', justification: 'Libraries' },
    { prefix: 'https://cdn.example.com:8443/lib/', justification: 'Other port' },
  ]);

  test.each<[string, number | undefined]>([
    ['https://js.stripe.com/v3/', 0],
    ['https://js.stripe.com/v3/#anchor', 0],
    ['https://JS.stripe.com:443/v3/', 0],
    ['https://js.stripe.com/v3/other.js', undefined],
    ['https://js.stripe.com/v3/?v=1', undefined],
    ['https://js.stripe.com/v3', undefined],
    ['http://js.stripe.com/v3/', undefined],
    ['https://cdn.example.com/lib/pinned.js?v=2', 1],
    ['https://cdn.example.com/lib/pinned.js?v=3', 4],
    ['https://cdn.example.com/lib/plain.js', 2],
    ['https://cdn.example.com/lib/plain%2Ejs', 2],
    ['https://cdn.example.com/lib/plain.js?v=1', 4],
    ['https://cdn.example.com/lib/other.js', 4],
    ['https://cdn.example.com/lib', 3],
    ['https://cdn.example.com/app.js', 3],
    ['https://cdn.example.com:8443/lib/a.js', 5],
    ['https://cdn.example.com:8443/a.js', undefined],
    ['https://cdn.example.com:444/lib/a.js', undefined],
    ['http://cdn.example.com/lib/a.js', undefined],
    ['https://static.cdn.example.com/lib/a.js', undefined],
    ['not a url', undefined],
  ])('%s', (url, index) => {
    expect(authorizingEntry(scripts, url)?.index).toBe(index);
  });
});

describe('cspSources', () => {
  test.each<[string, ScriptEntryInput[], string]>([
    ['no entry authorizes nothing', [], "'none'"],
    [
      'a url entry gives its URL without the query',
      [{ url: 'https://CDN.example.com/a.js?v=1', justification: 'x' }],
      'https://cdn.example.com/a.js',
    ],
    [
      'a prefix entry gives its prefix',
      [{ prefix: 'https://cdn.example.com:8443/js/', justification: 'x' }],
      'https://cdn.example.com:8443/js/',
    ],
    [
      'urls differing only in their query give one source',
      [
        { url: 'https://cdn.example.com/a.js?v=1', justification: 'x' },
        { url: 'https://cdn.example.com/a.js?v=2', justification: 'x' },
      ],
      'https://cdn.example.com/a.js',
    ],
    [
      'a url whose path starts another keeps both: only a path ending in "/" is a prefix',
      [
        { url: 'https://cdn.example.com/a.js', justification: 'x' },
        { url: 'https://cdn.example.com/a.jsx', justification: 'x' },
      ],
      'https://cdn.example.com/a.js https://cdn.example.com/a.jsx',
    ],
    [
      'a source under a prefix is left out, and the rest sorted',
      [
        { url: 'https://js.stripe.com/v3/', justification: 'x' },
        { url: 'https://cdn.example.com/js/a.js', justification: 'x' },
        { prefix: 'https://cdn.example.com/js/', justification: 'x' },
        { prefix: 'https://cdn.example.com/js/vendor/', justification: 'x' },
        { url: 'https://cdn.example.com/jsx/a.js', justification: 'x' },
        { url: 'https://cdn.example.com:8443/js/a.js', justification: 'x' },
      ],
      'https://cdn.example.com/js/ https://cdn.example.com/jsx/a.js https://cdn.example.com:8443/js/a.js https://js.stripe.com/v3/',
    ],
  ])('%s', (_what, scripts, sources) => {
    const value = `script-src ${cspSources(inventory(scripts))}`;
    expect(value).toBe(`script-src ${sources}`);
    expect(parseCspValue(value).ok).toBe(true);
    expect(normalizeCspValue(value)).toBe(value);
  });
});

/**
 * "Exactly": for each kind of entry, the browsers' judgement of the sources (`cspAllowsUrl`, held to
 * Chromium and Firefox) agrees with the inventory's on authorized URLs and on near misses, from an
 * https page of the inventory. The two judgements are written apart, so either can catch the other.
 */
describe('cspSources allow exactly what the inventory authorizes', () => {
  const page = new URL(`https://${PAGE}`);

  function judged(scripts: ScriptEntryInput[], urls: string[]): Array<[string, boolean, boolean]> {
    const parsed = inventory(scripts);
    const csp = parseCspValue(`script-src ${cspSources(parsed)}`);
    if (!csp.ok) throw new Error(csp.error.message);
    return urls.map((url) => [
      url,
      authorizingEntry(parsed, url) !== undefined,
      cspAllowsUrl(csp.value, 'script', new URL(url), page),
    ]);
  }

  const nearMisses = [
    'https://cdn.example.com/other.js',
    'https://cdn.example.com/',
    'https://evil.example.com/js/app.js',
    'https://static.cdn.example.com/js/app.js',
    'https://cdn.example.com:8443/js/app.js',
    'http://cdn.example.com/js/app.js',
    'wss://cdn.example.com/js/app.js',
    'https://cdn.example.com.evil.net/js/app.js',
  ];

  test('a url entry: the URL, and nothing near it', () => {
    const urls = ['https://cdn.example.com/js/app.js', 'https://cdn.example.com/js/app%2Ejs', ...nearMisses];
    urls.push(
      'https://cdn.example.com/js/app.js/',
      'https://cdn.example.com/js/app.jsx',
      'https://cdn.example.com/js/',
    );
    const verdicts = judged([{ url: 'https://cdn.example.com/js/app.js', justification: 'x' }], urls);
    expect(verdicts.filter(([, inventory]) => inventory).map(([url]) => url)).toEqual(urls.slice(0, 2));
    expect(verdicts.filter(([, inventory, csp]) => inventory !== csp)).toEqual([]);
  });

  test('a prefix entry: every URL under it, and nothing near it', () => {
    const under = [
      'https://cdn.example.com/js/app.js',
      'https://cdn.example.com/js/',
      'https://cdn.example.com/js/a/b.js?v=1',
    ];
    const urls = [...under, 'https://cdn.example.com/js', 'https://cdn.example.com/jsx/app.js', ...nearMisses];
    const verdicts = judged([{ prefix: 'https://cdn.example.com/js/', justification: 'x' }], urls);
    expect(verdicts.filter(([, inventory]) => inventory).map(([url]) => url)).toEqual(under);
    expect(verdicts.filter(([, inventory, csp]) => inventory !== csp)).toEqual([]);
  });

  test('an entry on another port: that port only', () => {
    const urls = [
      'https://cdn.example.com:8443/js/app.js',
      'https://cdn.example.com/js/app.js',
      'https://cdn.example.com:8444/js/app.js',
    ];
    const verdicts = judged([{ prefix: 'https://cdn.example.com:8443/js/', justification: 'x' }], urls);
    expect(verdicts).toEqual([
      [urls[0], true, true],
      [urls[1], false, false],
      [urls[2], false, false],
    ]);
  });

  test('overlapping entries and a path CSP must encode', () => {
    const urls = [
      "https://cdn.example.com/js/a;b'c.js",
      'https://cdn.example.com/js/a.js',
      'https://cdn.example.com/j/a.js',
      ...nearMisses,
    ];
    const verdicts = judged(
      [
        { url: "https://cdn.example.com/js/a;b'c.js", justification: 'x' },
        { prefix: 'https://cdn.example.com/js/', justification: 'x' },
        { url: 'https://cdn.example.com/js/a.js', justification: 'x' },
      ],
      urls,
    );
    expect(verdicts.filter(([, inventory, csp]) => inventory !== csp)).toEqual([]);
    expect(verdicts.filter(([, inventory]) => inventory).length).toBe(2);
  });

  test('the two limits CSP sets, as documented: the query, and a url ending in "/"', () => {
    expect(
      judged(
        [
          { url: 'https://cdn.example.com/a.js?v=1', justification: 'x' },
          { url: 'https://js.stripe.com/v3/', justification: 'x' },
        ],
        [
          'https://cdn.example.com/a.js?v=1',
          'https://cdn.example.com/a.js?v=2',
          'https://js.stripe.com/v3/',
          'https://js.stripe.com/v3/x.js',
        ],
      ),
    ).toEqual([
      ['https://cdn.example.com/a.js?v=1', true, true],
      ['https://cdn.example.com/a.js?v=2', false, true],
      ['https://js.stripe.com/v3/', true, true],
      ['https://js.stripe.com/v3/x.js', false, true],
    ]);
  });
});
