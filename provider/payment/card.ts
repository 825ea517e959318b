/**
 * The test card of `edgeguard-probe` (issue 41, item 4) and where it shows in what a page sends:
 * the number as typed, with spaces or dashes, URL-encoded, in Base64 of a text holding it, or in
 * hexadecimal. Pure: the browser (`./probe-browser.ts`) records the requests sent after the card
 * was typed, and the judgement (`./probe.ts`) asks here which of them carry it.
 */

/** The card number typed by default: the well-known Visa test number, which no issuer honours. */
export const DEFAULT_CARD = '4111111111111111';

/** How a request carried the card number, from the plainest to the most hidden. */
export const CARD_ENCODINGS = ['plain', 'separated', 'url-encoded', 'base64', 'hex'] as const;
export type CardEncoding = (typeof CARD_ENCODINGS)[number];

/** What the probe types into each kind of card field (`autocomplete="cc-…"`). */
export interface TestCard {
  /** The digits of the number, 12 to 19. */
  number: string;
  /** `MM/YY`. */
  expiry: string;
  csc: string;
  name: string;
}

/**
 * The test card for `number` (`--card`, spaces and dashes allowed): its digits, an expiry in the
 * future, a CVC and a name.
 *
 * @throws when the number is not 12 to 19 digits once spaces and dashes are taken out.
 */
export function testCard(number: string = DEFAULT_CARD): TestCard {
  const digits = number.replace(/[\s-]/g, '');
  if (!/^[0-9]{12,19}$/.test(digits))
    throw new Error(`--card ${JSON.stringify(number)}: a card number is 12 to 19 digits (spaces and dashes allowed)`);
  return { number: digits, expiry: '12/34', csc: '123', name: 'Test Shopper' };
}

/** The digits in order, each of the separators allowed between them: `4[ -]?1[ -]?1…`. */
function separatedPattern(digits: string): RegExp {
  return new RegExp(digits.split('').join('[ .-]?'));
}

/** The plain or separated form found in `text`, if any. */
function plainly(text: string, digits: string): 'plain' | 'separated' | undefined {
  if (text.includes(digits)) return 'plain';
  return separatedPattern(digits).test(text) ? 'separated' : undefined;
}

/** `text` percent-decoded (`+` as a space), up to twice, or as it is when it cannot be. */
function urlDecoded(text: string): string[] {
  const out: string[] = [];
  let current = text;
  for (let round = 0; round < 2; round += 1) {
    let next: string;
    try {
      next = decodeURIComponent(current.replace(/\+/g, ' '));
    } catch {
      next = current.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
    if (next === current) break;
    out.push(next);
    current = next;
  }
  return out;
}

/** The runs of Base64 (standard or URL-safe) long enough to hold the number, each decoded as text. */
function base64Decoded(text: string, digits: string): string[] {
  const least = Math.floor((digits.length * 4) / 3);
  const runs = text.match(new RegExp(`[A-Za-z0-9+/_-]{${least},}={0,2}`, 'g')) ?? [];
  return runs.flatMap((run) => {
    const standard = run.replace(/-/g, '+').replace(/_/g, '/');
    // A run may begin inside a Base64 text (after a separator the alphabet shares): try each alignment.
    // Node decodes unpadded Base64 and drops a last lone digit.
    return [0, 1, 2, 3].map((skip) => Buffer.from(standard.slice(skip), 'base64').toString('latin1'));
  });
}

/** The runs of hexadecimal long enough to hold the number, each decoded as text. */
function hexDecoded(text: string, digits: string): string[] {
  const runs = text.match(new RegExp(`[0-9a-fA-F]{${digits.length * 2},}`, 'g')) ?? [];
  return runs.flatMap((run) =>
    [0, 1].map((skip) => {
      const aligned = run.slice(skip);
      return Buffer.from(aligned.slice(0, aligned.length - (aligned.length % 2)), 'hex').toString('latin1');
    }),
  );
}

/**
 * How `text` (a URL, a request body, a WebSocket message) carries the card number `digits`, or
 * `undefined` when it does not: `plain` (the digits in a row), `separated` (with spaces, dashes or
 * dots between them), `url-encoded` (percent-encoded, once or twice), `base64` (of a text holding
 * it, standard or URL-safe, itself plain, separated or URL-encoded) or `hex` (of such a text).
 */
export function cardEncodingIn(text: string, digits: string): CardEncoding | undefined {
  const direct = plainly(text, digits);
  if (direct !== undefined) return direct;
  const decoded = urlDecoded(text);
  if (decoded.some((candidate) => plainly(candidate, digits) !== undefined)) return 'url-encoded';
  const texts = [text, ...decoded];
  const holds = (candidate: string) =>
    plainly(candidate, digits) !== undefined ||
    urlDecoded(candidate).some((inner) => plainly(inner, digits) !== undefined);
  if (texts.some((candidate) => base64Decoded(candidate, digits).some(holds))) return 'base64';
  if (texts.some((candidate) => hexDecoded(candidate, digits).some(holds))) return 'hex';
  return undefined;
}
