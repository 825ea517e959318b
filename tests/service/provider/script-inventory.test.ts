import { requestBound } from '../../../provider/payment/scripts';
import { provider } from '../../../provider/dynamic/runtime/script-inventory';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { configureProvider } from '../../helpers/provider';

/**
 * `ScriptInventory`: every provider method against the emulator, with the requests each one makes.
 * Each test works in a zone of its own. (Check and diff alone:
 * tests/unit/provider/script-inventory.test.ts.)
 */

const CARD = 'https://js.pay.example/v3/card.js';
const OWN = 'https://shop.example.com/js/checkout.js';
const STRAY = 'https://cdn.other.example/tracker.js';
const BLOG = 'https://cdn.other.example/blog-only.js';
const OLD_HASH = 'aa'.repeat(32);
const NEW_HASH = 'bb'.repeat(32);
const CHECKOUT = 'https://shop.example.com/checkout/pay';

describe('against the emulator', () => {
  let emu: TestEmulator;

  beforeAll(async () => {
    emu = await startTestEmulator();
    await configureProvider(emu);
  });
  afterAll(async () => emu.close());

  /**
   * A zone whose checkout loads the card script (pinned by the inventory), our own code (under a
   * prefix) and a stray tracker (no entry), and whose blog loads a script the inventory does not see.
   */
  function seededZone(): Promise<string> {
    return emu.zoneWithScripts([
      { url: CARD, hash: OLD_HASH, page_urls: [CHECKOUT, 'https://shop.example.com/'] },
      { url: OWN, status: 'infrequent', page_urls: [CHECKOUT] },
      { url: STRAY, page_urls: ['https://shop.example.com/checkout'] },
      { url: BLOG, page_urls: ['https://shop.example.com/blog/post'] },
      { url: 'https://elsewhere.example/a.js', page_urls: ['https://other.example.com/checkout'] },
    ]);
  }

  const inventory = (zoneId: string) => ({
    zoneId,
    pages: ['shop.example.com/checkout'],
    scripts: [
      { url: CARD, justification: 'Card form of the payment processor', hash: OLD_HASH },
      { prefix: 'https://shop.example.com/js/', justification: 'Our checkout code', owner: 'web team' },
    ],
  });

  test('create writes nothing and gives the sources and what is detected on the pages, with the authorizing entry', async () => {
    const zone = await seededZone();
    const mark = emu.mark();
    const created = await provider.create(inventory(zone));
    const requests = await emu.requests(mark);
    expect(requests.filter((r) => r.method !== 'GET')).toEqual([]);
    // Two listings (one per status, filtered to the pages), and no read: the pinned script is unchanged.
    const listings = requests.filter((r) => r.path.endsWith('/scripts'));
    expect(listings).toHaveLength(2);
    expect(listings.map((r) => r.query.page_url)).toEqual([
      expect.stringContaining('shop.example.com/checkout'),
      expect.stringContaining('shop.example.com/checkout'),
    ]);
    expect(requests).toHaveLength(requestBound(3, 0));

    expect(created.id).toBe(zone);
    const outs = created.outs as Record<string, unknown>;
    expect(outs.cspSources).toBe(`${CARD} https://shop.example.com/js/`);
    expect(outs.detected).toEqual([
      {
        url: STRAY,
        id: await emu.scriptIdOf(zone, STRAY),
        hash: expect.any(String),
        integrity: 'unauthorized',
        pages: ['https://shop.example.com/checkout'],
      },
      {
        url: CARD,
        id: await emu.scriptIdOf(zone, CARD),
        hash: OLD_HASH,
        entry: CARD,
        integrity: 'unchanged',
        pages: [CHECKOUT],
      },
      {
        url: OWN,
        id: expect.any(String),
        hash: expect.any(String),
        entry: 'https://shop.example.com/js/',
        integrity: 'unpinned',
        pages: [CHECKOUT],
      },
    ]);
  });

  test('after a new version of a pinned script, read shows its new hash on that entry', async () => {
    const zone = await seededZone();
    const created = await provider.create(inventory(zone));
    await emu.newScriptVersion(zone, CARD, { hash: NEW_HASH });

    const read = await provider.read(created.id, created.outs);
    // A refresh sees the inputs as check gave them, cspSources included: no change in them.
    expect(read.inputs).toEqual({
      ...inventory(zone),
      cspSources: (created.outs as { cspSources: string }).cspSources,
    });
    const detected = (read.props as { detected: Array<{ url: string; hash?: string; entry?: string }> }).detected;
    expect(detected.find((script) => script.url === CARD)).toMatchObject({
      hash: NEW_HASH,
      entry: CARD,
      integrity: 'changed',
    });
    // The inventory itself is the stack's: read gives it back as it was, so only `detected` changed.
    expect(read.props).toEqual({ ...created.outs, detected });
    expect(detected).not.toEqual((created.outs as { detected: unknown }).detected);
  });

  test('update recomputes the outputs from the new inputs; delete writes nothing', async () => {
    const zone = await seededZone();
    const created = await provider.create(inventory(zone));
    const news = {
      ...inventory(zone),
      scripts: [...inventory(zone).scripts, { url: STRAY, justification: 'Fraud checks' }],
    };
    const updated = await provider.update(created.id, created.outs, news);
    const outs = updated.outs as { cspSources: string; detected: Array<{ url: string; entry?: string }> };
    expect(outs.cspSources).toBe(`${STRAY} ${CARD} https://shop.example.com/js/`);
    expect(outs.detected.find((script) => script.url === STRAY)!.entry).toBe(STRAY);

    const mark = emu.mark();
    await provider.delete(created.id, updated.outs);
    expect(await emu.requests(mark)).toEqual([]);
  });

  test('a read with the zone alone (get, import) fails saying the inventory is the stack’s', async () => {
    const zone = await seededZone();
    await expect(provider.read(zone, { zoneId: zone })).rejects.toThrow(/held in the stack, not by the service/);
  });
});
