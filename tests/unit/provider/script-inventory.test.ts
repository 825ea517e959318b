import { UNKNOWN } from '../../../provider/runtime/check';
import { changedInputs } from '../../../provider/runtime/wire';
import { runtime, type ScriptInventoryOutputs } from '../../../provider/runtime/script-inventory';
import { provider } from '../../../provider/dynamic/runtime/script-inventory';
import { JUSTIFICATION_PLACEHOLDER } from '../../../rules/inventory';
import { ZONE } from '../../helpers/inputs';

/**
 * `ScriptInventory`: check and diff as pure functions (its methods against the emulator:
 * tests/service/provider/script-inventory.test.ts).
 */

const OTHER_ZONE = 'c0000000000000000000000000000002';
const CARD = 'https://js.pay.example/v3/card.js';

const INVENTORY = {
  zoneId: ZONE,
  pages: ['shop.example.com/checkout'],
  scripts: [
    { url: CARD, justification: 'Card form of the payment processor', owner: 'payments', hash: 'ab12cd34' },
    { prefix: 'https://shop.example.com/js/', justification: 'Our checkout code' },
  ],
};

const check = (news: Record<string, unknown>) => provider.check({}, news);

/** The inventory with its entry `index` replaced by `entry`. */
function withEntry(index: number, entry: Record<string, unknown>) {
  return { ...INVENTORY, scripts: INVENTORY.scripts.map((old, at) => (at === index ? entry : old)) };
}

describe('check', () => {
  // cspSources is decided by the inputs alone: check adds it, so a preview knows the value of the
  // CspPolicy it feeds (the engine takes a changed resource's checked inputs as its outputs).
  const SOURCES = `${CARD} https://shop.example.com/js/`;

  test('a valid inventory comes back as given, with its cspSources', async () => {
    await expect(check(INVENTORY)).resolves.toEqual({ inputs: { ...INVENTORY, cspSources: SOURCES } });
  });

  test('a zone id in upper case is kept in lower case', async () => {
    const result = await check({ ...INVENTORY, zoneId: ZONE.toUpperCase() });
    expect(result.inputs).toEqual({ ...INVENTORY, cspSources: SOURCES });
  });

  test('a cspSources the program gives is replaced by the one the entries decide', async () => {
    const result = await check({ ...INVENTORY, cspSources: "'unsafe-inline'" });
    expect(result.inputs).toEqual({ ...INVENTORY, cspSources: SOURCES });
  });

  test.each([
    [
      'a blank justification',
      withEntry(1, { prefix: 'https://shop.example.com/js/', justification: '  ' }),
      'scripts[1].justification',
      /^scripts\[1\] \(prefix "https:\/\/shop\.example\.com\/js\/"\): .*it is blank/,
    ],
    [
      'the marked blank edgeguard-inventory writes',
      withEntry(0, { url: CARD, justification: JUSTIFICATION_PLACEHOLDER }),
      'scripts[0].justification',
      /^scripts\[0\] \(url "https:\/\/js\.pay\.example\/v3\/card\.js"\): .*a person must write why/,
    ],
    [
      'a missing justification',
      withEntry(1, { url: CARD.replace('card', 'other') }),
      'scripts[1].justification',
      /^is required: why the script is on the payment pages$/,
    ],
    [
      'an http: url',
      withEntry(1, { url: 'http://cdn.example.com/a.js', justification: 'x' }),
      'scripts[1].url',
      /^scripts\[1\] \(url "http:\/\/cdn\.example\.com\/a\.js"\): .*mixed content/,
    ],
    [
      'both url and prefix',
      withEntry(1, { url: CARD, prefix: 'https://shop.example.com/js/', justification: 'x' }),
      'scripts[1].prefix',
      /^scripts\[1\] \(url .*\): .*not both/,
    ],
    [
      'a hash on a prefix',
      withEntry(1, { prefix: 'https://shop.example.com/js/', justification: 'x', hash: 'ab12cd34' }),
      'scripts[1].hash',
      /^scripts\[1\] \(prefix .*\): .*only a url entry pins a hash/,
    ],
    [
      'the same script twice',
      withEntry(1, {
        url: 'https://JS.PAY.example/v3/card.js',
        justification: 'x',
      }),
      'scripts[1].url',
      /names the same script as scripts\[0\]/,
    ],
    ['no page', { ...INVENTORY, pages: [] }, 'pages', /list at least one payment page/],
    [
      'a page with a scheme',
      { ...INVENTORY, pages: ['https://shop.example.com'] },
      'pages[0]',
      /^pages\[0\]: .*without its scheme/,
    ],
  ])('%s fails on its property, naming the entry', async (_name, news, property, reason) => {
    const result = await check(news);
    expect(result.failures).toHaveLength(1);
    expect(result.failures![0]!.property).toBe(property);
    expect(result.failures![0]!.reason).toMatch(reason);
  });

  test('wrong types fail on the field, before the rules', async () => {
    const result = await check({ ...INVENTORY, scripts: [{ url: 3, justification: 'x' }] });
    expect(result.failures).toEqual([
      { property: 'scripts[0].url', reason: 'must be a string: the https: URL of one script (got 3)' },
    ]);
  });

  test('preview unknowns are let through, a known problem elsewhere is not', async () => {
    const unknownEntry = withEntry(0, { url: UNKNOWN, justification: 'x' });
    await expect(check(unknownEntry)).resolves.toEqual({ inputs: unknownEntry });
    const unknownPages = { ...INVENTORY, pages: UNKNOWN };
    await expect(check(unknownPages)).resolves.toEqual({ inputs: unknownPages });
  });
});

describe('diff', () => {
  const olds: ScriptInventoryOutputs = {
    ...INVENTORY,
    cspSources: `${CARD} https://shop.example.com/js/`,
    detected: [
      {
        url: CARD,
        id: 'x1',
        hash: 'ab12cd34',
        entry: CARD,
        integrity: 'unchanged',
        pages: ['shop.example.com/checkout'],
      },
    ],
  };

  test.each([
    ['nothing', INVENTORY, [], { changes: false, replaces: [] }],
    [
      'a justification',
      withEntry(1, { ...INVENTORY.scripts[1], justification: 'Ours' }),
      ['scripts'],
      { changes: true, replaces: [] },
    ],
    [
      'a re-pin',
      withEntry(0, { ...INVENTORY.scripts[0], hash: 'ffff0000' }),
      ['scripts'],
      { changes: true, replaces: [] },
    ],
    ['the pages', { ...INVENTORY, pages: ['shop.example.com'] }, ['pages'], { changes: true, replaces: [] }],
    ['the zone', { ...INVENTORY, zoneId: OTHER_ZONE }, ['zoneId'], { changes: true, replaces: ['zoneId'] }],
    ['an unknown zone', { ...INVENTORY, zoneId: UNKNOWN }, ['zoneId'], { changes: true, replaces: ['zoneId'] }],
  ])('%s', async (_name, news, changed, result) => {
    expect(changedInputs(runtime, olds, news as never)).toEqual(changed);
    await expect(provider.diff(ZONE, olds, news)).resolves.toEqual(result);
  });
});
