import { createHash } from 'node:crypto';
import { provider } from '../../../provider/dynamic/runtime/script-inventory';
import { compareInventoryCsp } from '../../../rules/inventory-csp';
import {
  authorizingFrame,
  authorizingInline,
  cardDestinationOf,
  cspSources,
  inlineSourceOfHex,
  parseCardDestination,
  parseInlineHash,
  parseScriptInventory,
  type ScriptInventory,
  type ScriptInventoryInput,
} from '../../../rules/inventory';
import { ZONE } from '../../helpers/inputs';

/**
 * The entries issue 41 adds to a `ScriptInventory`: `inline` scripts by their CSP hash, the
 * `frames` the pages may embed, and the `cardDestinations` a typed card may go to; their rules
 * (`rules/inventory.ts`), their sources in `cspSources`, and the resource's check naming the field.
 */

const CONFIG = 'window.shop = { currency: "EUR" };';
const CONFIG_HEX = createHash('sha256').update(CONFIG).digest('hex');
const CONFIG_B64 = createHash('sha256').update(CONFIG).digest('base64');
const CARD = 'https://js.pay.example/v3/card.js';

const INPUT: ScriptInventoryInput = {
  pages: ['shop.example.com/checkout'],
  scripts: [
    { url: CARD, justification: 'Card form of the payment processor' },
    { inline: `'sha256-${CONFIG_B64}'`, justification: 'The shop configuration', owner: 'web team' },
  ],
  frames: [{ prefix: 'https://js.pay.example/v3/', justification: 'The card frame', owner: 'payments' }],
  cardDestinations: ['https://api.pay.example/v1/tokens', 'wss://ws.pay.example/'],
};

function parsed(input: ScriptInventoryInput = INPUT): ScriptInventory {
  const result = parseScriptInventory(input);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

function refusal(input: ScriptInventoryInput): { path: Array<string | number>; message: string } {
  const result = parseScriptInventory(input);
  if (result.ok) throw new Error('the inventory was accepted');
  return { path: result.error.path, message: result.error.message };
}

describe('inline entries', () => {
  test('with or without the quotes of the CSP form: the same digest, in base64, hex and as a source', () => {
    const expected = { base64: CONFIG_B64, hex: CONFIG_HEX, cspSource: `'sha256-${CONFIG_B64}'` };
    expect(parseInlineHash(`sha256-${CONFIG_B64}`)).toEqual({ ok: true, value: expected });
    expect(parseInlineHash(`'sha256-${CONFIG_B64}'`)).toEqual({ ok: true, value: expected });
    expect(inlineSourceOfHex(CONFIG_HEX)).toBe(`'sha256-${CONFIG_B64}'`);
  });

  test('kept apart from the url and prefix entries, with their index in scripts', () => {
    const inventory = parsed();
    expect(inventory.scripts.map((entry) => entry.index)).toEqual([0]);
    expect(inventory.inline).toEqual([
      {
        index: 1,
        base64: CONFIG_B64,
        hex: CONFIG_HEX,
        cspSource: `'sha256-${CONFIG_B64}'`,
        justification: 'The shop configuration',
        owner: 'web team',
      },
    ]);
    expect(authorizingInline(inventory, CONFIG_HEX)?.index).toBe(1);
    expect(authorizingInline(inventory, createHash('sha256').update('other').digest('hex'))).toBeUndefined();
  });

  test('cspSources carries each as its hash source, so the policy lets exactly that script run', () => {
    expect(cspSources(parsed())).toBe(`'sha256-${CONFIG_B64}' ${CARD}`);
    expect(cspSources(parsed({ pages: INPUT.pages, scripts: [INPUT.scripts[1]!] }))).toBe(`'sha256-${CONFIG_B64}'`);
  });

  test('a policy with the hash enforces the inventory; one without it lacks the hash', () => {
    const inventory = parsed();
    const [withHash] = compareInventoryCsp(inventory, [
      { name: 'enforce', hostname: 'shop.example.com', value: `script-src ${cspSources(inventory)}` },
    ]);
    expect(withHash!.policies[0]).toMatchObject({ missing: [], extra: [] });
    const [without] = compareInventoryCsp(inventory, [
      { name: 'enforce', hostname: 'shop.example.com', value: `script-src ${CARD}` },
    ]);
    expect(without!.policies[0]).toMatchObject({ missing: [`'sha256-${CONFIG_B64}'`], extra: [] });
  });

  test.each([
    ['not a hash', 'abc', /write sha256-/],
    ['another algorithm', `sha384-${CONFIG_B64}`, /an inline entry is a sha256 hash/],
    ['too short', 'sha256-abcd', /a sha256 hash is 32 bytes/],
    ['not base64', 'sha256-!!!!', /base64/],
  ])('%s is refused, naming the entry and its field', (_name, inline, reason) => {
    const error = refusal({ ...INPUT, scripts: [INPUT.scripts[0]!, { inline, justification: 'x' }] });
    expect(error.path).toEqual(['scripts', 1, 'inline']);
    expect(error.message).toMatch(/^scripts\[1\] \(inline "/);
    expect(error.message).toMatch(reason);
  });

  test('an inline entry with a url, a hash, no justification, or twice is refused', () => {
    const inline = `sha256-${CONFIG_B64}`;
    expect(refusal({ ...INPUT, scripts: [{ inline, url: CARD, justification: 'x' }] }).path).toEqual([
      'scripts',
      0,
      'url',
    ]);
    expect(refusal({ ...INPUT, scripts: [{ inline, hash: 'ab12cd34', justification: 'x' }] }).message).toMatch(
      /pinned by its own hash already/,
    );
    expect(refusal({ ...INPUT, scripts: [{ inline }] }).path).toEqual(['scripts', 0, 'justification']);
    const twice = refusal({
      ...INPUT,
      scripts: [
        { inline, justification: 'x' },
        { inline: `'${inline}'`, justification: 'y' },
      ],
    });
    expect(twice).toEqual({
      path: ['scripts', 1, 'inline'],
      message: expect.stringMatching(/same script as scripts\[0\]/),
    });
  });
});

describe('frames', () => {
  test('a frame under an entry’s prefix is authorized by the longest; another origin is not', () => {
    const inventory = parsed();
    expect(authorizingFrame(inventory, 'https://js.pay.example/v3/frame.html?x=1')?.index).toBe(0);
    expect(authorizingFrame(inventory, 'https://js.pay.example/v2/frame.html')).toBeUndefined();
    expect(authorizingFrame(inventory, 'https://js.pay.example.evil/v3/frame.html')).toBeUndefined();
  });

  test.each([
    [
      'a prefix without its final /',
      { prefix: 'https://js.pay.example/v3', justification: 'x' },
      'prefix',
      /ends in "\/"/,
    ],
    ['an http: prefix', { prefix: 'http://js.pay.example/v3/', justification: 'x' }, 'prefix', /frame prefix/],
    ['no prefix', { justification: 'x' }, 'prefix', /the prefix is missing/],
    ['no justification', { prefix: 'https://js.pay.example/v3/' }, 'justification', /justification is missing/],
    ['a blank owner', { prefix: 'https://js.pay.example/v3/', justification: 'x', owner: ' ' }, 'owner', /blank/],
  ])('%s is refused, naming frames[i] and the field', (_name, frame, field, reason) => {
    const error = refusal({ ...INPUT, frames: [frame] });
    expect(error.path).toEqual(['frames', 0, field]);
    expect(error.message).toMatch(/^frames\[0\]/);
    expect(error.message).toMatch(reason);
  });
});

describe('card destinations', () => {
  test('a URL under a destination, on its origin: allowed; a look-alike host or another path: not', () => {
    const inventory = parsed();
    expect(cardDestinationOf(inventory, 'https://api.pay.example/v1/tokens?card=1')?.index).toBe(0);
    expect(cardDestinationOf(inventory, 'wss://ws.pay.example/socket')?.index).toBe(1);
    expect(cardDestinationOf(inventory, 'https://api.pay.example/v2/tokens')).toBeUndefined();
    expect(cardDestinationOf(inventory, 'https://api.pay.example.evil/v1/tokens')).toBeUndefined();
    expect(cardDestinationOf(inventory, 'https://collect.example/?c=4111111111111111')).toBeUndefined();
    expect(cardDestinationOf(parsed({ ...INPUT, cardDestinations: undefined }), 'https://api.pay.example/')).toBe(
      undefined,
    );
  });

  test.each([
    ['http://api.pay.example/', /in clear text/],
    ['api.pay.example/v1', /with its scheme/],
    ['https://*.pay.example/', /wildcard/],
    ['https://api.pay.example/#x', /fragment/],
  ])('%s is refused', (text, reason) => {
    expect(parseCardDestination(text)).toMatchObject({ ok: false, error: { message: expect.stringMatching(reason) } });
    const error = refusal({ ...INPUT, cardDestinations: [text] });
    expect(error.path).toEqual(['cardDestinations', 0]);
    expect(error.message).toMatch(/^cardDestinations\[0\]: /);
  });

  test('the same destination twice is refused', () => {
    const error = refusal({ ...INPUT, cardDestinations: ['https://api.pay.example/v1', 'https://API.pay.example/v1'] });
    expect(error.message).toMatch(/^cardDestinations\[1\]: .*it is cardDestinations\[0\]/);
  });
});

describe('the resource’s check (preview)', () => {
  const inputs = { zoneId: ZONE, ...INPUT };
  const check = (news: Record<string, unknown>) => provider.check({}, news);

  test('accepts the new fields, and its cspSources carries the inline hash', async () => {
    await expect(check(inputs)).resolves.toEqual({
      inputs: { ...inputs, cspSources: `'sha256-${CONFIG_B64}' ${CARD}` },
    });
  });

  test.each([
    [{ scripts: [{ inline: 'sha256-nope', justification: 'x' }] }, 'scripts[0].inline', /^scripts\[0\] \(inline/],
    [{ frames: [{ prefix: 'https://js.pay.example/v3', justification: 'x' }] }, 'frames[0].prefix', /^frames\[0\]/],
    [{ cardDestinations: ['http://api.pay.example/'] }, 'cardDestinations[0]', /^cardDestinations\[0\]: /],
    [{ cardDestinations: 'https://api.pay.example/' }, 'cardDestinations', /list of URL prefixes/],
    [{ frames: [{ prefix: 3, justification: 'x' }] }, 'frames[0].prefix', /must be a string/],
  ])('refuses %j on its property', async (change, property, reason) => {
    const result = await check({ ...inputs, ...change });
    expect(result.failures).toHaveLength(1);
    expect(result.failures![0]!.property).toBe(property);
    expect(result.failures![0]!.reason).toMatch(reason);
  });
});
