import { NotSplit, parseInPieces, parseJsonBody, SPLIT_ABOVE } from '../../../provider/client/json-body';

/**
 * A body's JSON parsed in pieces (provider/client/json-body.ts) is the value `JSON.parse` gives for
 * the whole text, however the body is cut into chunks, and its errors are `JSON.parse`'s. The
 * documents a service answers are taken apart (`parseInPieces` gives them without falling back to
 * one string); those it cannot be sure of are parsed whole.
 */

/** A deterministic generator (mulberry32), so that a failure can be run again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Texts that are hard to find the end of: quotes, backslashes, brackets and commas inside, and characters of 2 to 4 bytes. */
const AWKWARD = ['a"b', 'c\\', '\\"', '{[,]}', ',', 'é', '€', '😀', '\u2028', '\n\t', '"', '\\\\"', ''];

function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 2 ? 5 : 7));
  switch (pick) {
    case 0:
      return AWKWARD[Math.floor(next() * AWKWARD.length)]! + String(Math.floor(next() * 1000));
    case 1:
      return Math.floor(next() * 1e6) / 100 - 500;
    case 2:
      return next() < 0.5;
    case 3:
      return null;
    case 4:
      return `https://cdn${Math.floor(next() * 10)}.example.net/s-${Math.floor(next() * 1e5)}.js`;
    case 5:
      return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: Math.floor(next() * 4) }, (_, i) => [
          `${AWKWARD[i % AWKWARD.length]}k${i}`,
          value(next, depth + 1),
        ]),
      );
  }
}

/** An envelope as the service answers a list: a long `result` between other members. */
function envelope(seed: number, items: number): Record<string, unknown> {
  const next = random(seed);
  return {
    success: true,
    errors: [],
    result: Array.from({ length: items }, (_, i) => ({ id: `s${i}`, url: value(next, 0), extra: value(next, 0) })),
    result_info: { page: 1, per_page: items, count: items, total_count: items * 3 },
    messages: [{ message: 'a "quoted" , message ]}' }],
  };
}

/** `text`'s bytes cut into chunks of random sizes (some of one byte, so that characters are cut). */
function chunked(text: string, seed: number): Uint8Array[] {
  const bytes = Buffer.from(text, 'utf8');
  const next = random(seed);
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = next() < 0.2 ? 1 : 1 + Math.floor(next() * 70_000);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

/** What `parseJsonBody` gives or throws for `text` cut at random, beside what `JSON.parse` does. */
function both(text: string, seed = 1): { mine: unknown; theirs: unknown } {
  const outcome = (parse: () => unknown) => {
    try {
      return { value: parse() };
    } catch (error) {
      return { error: `${(error as Error).name}: ${(error as Error).message}` };
    }
  };
  return {
    mine: outcome(() => parseJsonBody(chunked(text, seed))),
    theirs: outcome(() => JSON.parse(text) as unknown),
  };
}

describe('a JSON body parsed in pieces', () => {
  it.each([1, 2, 3, 4, 5])('is the value JSON.parse gives, key order included (seed %i)', (seed) => {
    const text = JSON.stringify(envelope(seed, 3_000));
    expect(text.length).toBeGreaterThan(3 * SPLIT_ABOVE);
    const { mine, theirs } = both(text, seed);
    expect(mine).toEqual(theirs);
    const parsed = (mine as { value: Record<string, unknown> }).value;
    expect(JSON.stringify(parsed)).toBe(text);
    // Taken apart, not parsed whole after a scan that lost its way.
    expect(JSON.stringify(parseInPieces(Buffer.from(text, 'utf8')))).toBe(text);
  });

  it('takes apart strings that end in backslashes and hold quotes, brackets and commas', () => {
    const items = Array.from({ length: 4_000 }, (_, i) => ({
      url: `${'\\'.repeat(i % 3)}"${i}",]}[{`,
      tail: '\\',
      n: i,
    }));
    const text = JSON.stringify({ result: items, after: '\\"' });
    expect(parseInPieces(Buffer.from(text, 'utf8'))).toEqual(JSON.parse(text));
  });

  it('reads a body laid out with spaces, and the long arrays among several members', () => {
    const document = { ...envelope(7, 2_000), also: envelope(8, 1_500).result, empty: [], last: 'end' };
    const text = `\n ${JSON.stringify(document, null, 2)} \n`;
    const { mine, theirs } = both(text);
    expect(mine).toEqual(theirs);
    expect(JSON.stringify((mine as { value: unknown }).value)).toBe(JSON.stringify(document));
  });

  it('drops a leading byte-order mark as body.text() does', () => {
    const text = JSON.stringify(envelope(9, 2_000));
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    expect(parseJsonBody([bytes])).toEqual(JSON.parse(text));
    expect(parseJsonBody([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')])).toEqual({ a: 1 });
  });

  it('keeps a key named __proto__ as an own member, and a key given twice with its last value at its first place', () => {
    const long = JSON.stringify(envelope(10, 2_000).result);
    const text = `{"__proto__":{"polluted":true},"a":1,"result":${long},"a":2}`;
    const mine = parseJsonBody(chunked(text, 3)) as Record<string, unknown>;
    const theirs = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(mine)).toEqual(Object.keys(theirs));
    expect(Object.getPrototypeOf(mine)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(mine, '__proto__')?.value).toEqual({ polluted: true });
    expect(mine.a).toBe(2);
    expect((mine as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('gives values that a later body does not change (the buffer is kept and reused)', () => {
    const first = JSON.stringify(envelope(11, 2_000));
    const second = JSON.stringify(envelope(12, 2_500));
    const parsed = parseJsonBody(chunked(first, 1));
    parseJsonBody(chunked(second, 2));
    expect(JSON.stringify(parsed)).toBe(first);
  });

  it('gives undefined for an empty body, and parses a short one whole', () => {
    expect(parseJsonBody([])).toBeUndefined();
    expect(parseJsonBody([new Uint8Array(0)])).toBeUndefined();
    expect(parseJsonBody([Buffer.from('{"success":'), Buffer.from('true,"result":[1,2]}')])).toEqual({
      success: true,
      result: [1, 2],
    });
  });

  it('refuses a trailing comma where a piece ends', () => {
    // One element longer than a piece: the comma after it ends the first piece.
    const text = `{"result":[${JSON.stringify('x'.repeat(SPLIT_ABOVE))},]}`;
    expect(() => parseInPieces(Buffer.from(text, 'utf8'))).toThrow(NotSplit);
    expect(both(text)).toEqual({ mine: both(text).theirs, theirs: { error: expect.stringMatching(/^SyntaxError/) } });
  });

  const elements = envelope(13, 2_000).result as unknown[];
  const long = JSON.stringify(elements);
  const half = (joint: string) =>
    `{"result":[${elements
      .slice(0, 1_000)
      .map((item) => JSON.stringify(item))
      .join(',')}${joint}${elements
      .slice(1_000)
      .map((item) => JSON.stringify(item))
      .join(',')}]}`;
  it.each([
    ['a trailing comma in the long array', `{"result":${long.slice(0, -1)},]}`],
    ['two commas in the long array', half(',,')],
    ['no comma between two elements of the long array', half('')],
    ['a missing comma between members', `{"result":${long} "b":1}`],
    ['an unterminated string', `{"result":${long},"b":"open}`],
    ['text after the object', `{"result":${long}} x`],
    ['a second object', `{"result":${long}}{}`],
    ['a bracket that does not close what it should', `{"result":${long.slice(0, -1)}}}`],
    ['not JSON at all', `<html>${long}</html>`],
    ['a long array at the top', long],
    ['a long string at the top', JSON.stringify(long)],
  ])('for %s, gives what JSON.parse gives, its error included', (_, text) => {
    expect(text.length).toBeGreaterThan(SPLIT_ABOVE);
    const { mine, theirs } = both(text);
    expect(mine).toEqual(theirs);
    expect(() => parseInPieces(Buffer.from(text, 'utf8'))).toThrow();
  });
});
