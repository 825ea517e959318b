/**
 * A response body's JSON, parsed without making it one string when it is long.
 *
 * A page of 1,000 detected scripts is 700 KB of JSON. Read as one string (`body.text()`), it costs
 * a 700 KB buffer to join the body's chunks and a 700 KB string to parse: both are allocated outside
 * what the process reuses (glibc maps a buffer that large anew, V8 gives a string that large a page
 * of its own), so every page touches about 350 fresh pages of memory. On the two-core VM the
 * benchmarks run on, a page fault costs about 14 µs: reading 200 such pages spent more CPU on
 * faults than on parsing (bench/RESULTS.md, issue 43).
 *
 * So a body longer than {@link SPLIT_ABOVE} is joined into a buffer kept for the next one, its
 * top-level object's members are found by a scan of its bytes, and the long arrays among them are
 * parsed a few elements at a time, each piece a string short enough for V8's young generation. The
 * value is the one `JSON.parse` gives for the whole text, key order included; a body the scan does
 * not take apart (not an object, not JSON) is parsed whole, so its error, too, is `JSON.parse`'s.
 */

/** Bodies at most this long are parsed whole: their string stays in V8's young generation. */
export const SPLIT_ABOVE = 64 * 1024;
/** The most text parsed at once when an array is parsed in pieces. */
const PIECE = 32 * 1024;
/** The longest body whose buffer is kept for the next one. */
const KEEP_AT_MOST = 16 * 2 ** 20;

let kept = Buffer.alloc(0);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** A text the scan does not take apart: not an object, or not JSON. */
export class NotSplit extends Error {}

/** The bytes of a leading UTF-8 byte-order mark, which `body.text()` drops: 3 or 0. */
function markLength(bytes: Buffer): number {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
}

/** The text of a body's chunks, as `body.text()` gives it. */
function textOf(bytes: Buffer): string {
  return bytes.toString('utf8', markLength(bytes));
}

/** The JSON of a body's `chunks`: `undefined` for an empty body; throws as `JSON.parse` does. */
export function parseJsonBody(chunks: readonly Uint8Array[]): unknown {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  if (length === 0) return undefined;
  if (length <= SPLIT_ABOVE) {
    const text = textOf(Buffer.concat(chunks, length));
    return text === '' ? undefined : JSON.parse(text);
  }
  let bytes: Buffer;
  if (length <= KEEP_AT_MOST) {
    if (kept.length < length) kept = Buffer.allocUnsafe(Math.max(length, kept.length * 2));
    bytes = kept.subarray(0, length);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
  } else {
    bytes = Buffer.concat(chunks, length);
  }
  try {
    return parseInPieces(bytes);
  } catch (error) {
    if (!(error instanceof NotSplit) && !(error instanceof SyntaxError)) throw error;
    // Parsed whole: the value, or the error, is JSON.parse's own.
    const text = textOf(bytes);
    return text === '' ? undefined : JSON.parse(text);
  }
}

/**
 * The JSON object of `bytes`, its long arrays parsed a few elements at a time; throws
 * {@link NotSplit} or a `SyntaxError` for a text it does not take apart, which
 * {@link parseJsonBody} then parses whole.
 */
export function parseInPieces(bytes: Buffer): Record<string, unknown> {
  return new Scan(bytes).document();
}

/** A scan of a JSON text's bytes: its top-level object's members, its long arrays in pieces. */
class Scan {
  private at: number;

  constructor(private readonly bytes: Buffer) {
    this.at = markLength(bytes);
  }

  document(): Record<string, unknown> {
    this.space();
    this.expect(OPEN_BRACE);
    const object: Record<string, unknown> = {};
    this.space();
    if (this.bytes[this.at] === CLOSE_BRACE) {
      this.at += 1;
    } else {
      for (;;) {
        this.space();
        const keyStart = this.at;
        this.expect(QUOTE);
        this.at = this.stringEnd(this.at);
        const key = JSON.parse(this.bytes.toString('utf8', keyStart, this.at)) as string;
        this.space();
        this.expect(COLON);
        this.space();
        const value = this.value();
        // As JSON.parse: an own property whatever its name (`__proto__` too), and a key given twice
        // keeps its last value, at its first place.
        Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
        this.space();
        if (this.bytes[this.at] === COMMA) {
          this.at += 1;
          continue;
        }
        this.expect(CLOSE_BRACE);
        break;
      }
    }
    this.space();
    if (this.at !== this.bytes.length) throw new NotSplit();
    return object;
  }

  /** A member's value: parsed whole, or in pieces when it is a long array. */
  private value(): unknown {
    const start = this.at;
    if (this.bytes[start] !== OPEN_BRACKET) {
      this.at = this.valueEnd(start);
      return JSON.parse(this.bytes.toString('utf8', start, this.at));
    }
    const items: unknown[] = [];
    this.at = start + 1;
    let piece = this.at;
    let split = false;
    let depth = 0;
    const bytes = this.bytes;
    for (;;) {
      if (this.at >= bytes.length) throw new NotSplit();
      const byte = bytes[this.at]!;
      if (byte === QUOTE) {
        this.at = this.stringEnd(this.at);
        continue;
      }
      this.at += 1;
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth += 1;
      else if (byte === CLOSE_BRACE || (byte === CLOSE_BRACKET && depth > 0)) depth -= 1;
      else if (byte === CLOSE_BRACKET) {
        // The array's end: its last piece, which after a comma must hold an element.
        const text = bytes.toString('utf8', piece, this.at - 1);
        if (split && text.trim() === '') throw new NotSplit();
        this.pieceInto(items, text);
        return items;
      } else if (byte === COMMA && depth === 0 && this.at - piece >= PIECE) {
        this.pieceInto(items, bytes.toString('utf8', piece, this.at - 1));
        piece = this.at;
        split = true;
      }
      if (depth < 0) throw new NotSplit();
    }
  }

  private pieceInto(items: unknown[], text: string): void {
    for (const item of JSON.parse(`[${text}]`) as unknown[]) items.push(item);
  }

  /** Where the value starting at `start` ends: after its closing bracket, or at the next `,` or `}` of the object. */
  private valueEnd(start: number): number {
    const bytes = this.bytes;
    let depth = 0;
    let at = start;
    while (at < bytes.length) {
      const byte = bytes[at]!;
      if (byte === QUOTE) {
        at = this.stringEnd(at);
        if (depth === 0) return at;
        continue;
      }
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth += 1;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        if (depth === 0) return at;
        depth -= 1;
        if (depth === 0) return at + 1;
      } else if (byte === COMMA && depth === 0) return at;
      at += 1;
    }
    return at;
  }

  /** Where the string whose opening quote is at `start` ends: after its closing quote. */
  private stringEnd(start: number): number {
    const bytes = this.bytes;
    let at = start + 1;
    for (;;) {
      const quote = bytes.indexOf(QUOTE, at);
      if (quote < 0) throw new NotSplit();
      let backslashes = 0;
      while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
      at = quote + 1;
      if (backslashes % 2 === 0) return at;
    }
  }

  private space(): void {
    const bytes = this.bytes;
    for (;;) {
      const byte = bytes[this.at];
      if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return;
      this.at += 1;
    }
  }

  private expect(byte: number): void {
    if (this.bytes[this.at] !== byte) throw new NotSplit();
    this.at += 1;
  }
}
