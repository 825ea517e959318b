import { cardEncodingIn, DEFAULT_CARD, testCard } from '../../../provider/payment/card';

/** Where edgeguard-probe finds the test card in what a page sent (provider/payment/card.ts). */

const CARD = DEFAULT_CARD;
const hex = (text: string) => Buffer.from(text).toString('hex');
const b64 = (text: string) => Buffer.from(text).toString('base64');
const b64url = (text: string) => Buffer.from(text).toString('base64url');

test.each([
  ['plain, in a query', `https://x.example/c?n=${CARD}&e=12/34`, 'plain'],
  ['with spaces, in JSON', '{"number":"4111 1111 1111 1111"}', 'separated'],
  ['with dashes', 'n=4111-1111-1111-1111', 'separated'],
  ['URL-encoded spaces', 'n=4111%201111%201111%201111', 'url-encoded'],
  ['every character percent-encoded', `n=${[...CARD].map((d) => `%3${d}`).join('')}`, 'url-encoded'],
  ['Base64 of a text holding it', `d=${b64(JSON.stringify({ cc: CARD, exp: '12/34' }))}`, 'base64'],
  ['URL-safe Base64 in a path', `https://x.example/i/${b64url(`card:${CARD};cvc:123`)}.gif`, 'base64'],
  ['Base64, URL-encoded', `d=${encodeURIComponent(b64(`x=${CARD}`))}`, 'base64'],
  ['Base64 of URL-encoded text', `d=${b64(encodeURIComponent(`n=4111 1111 1111 1111`))}`, 'base64'],
  ['hex of a text holding it', `h=${hex(`num=${CARD}`)}`, 'hex'],
  ['hex in capitals', `h=${hex(`4111 1111 1111 1111`).toUpperCase()}`, 'hex'],
])('%s: %s', (_name, text, encoding) => {
  expect(cardEncodingIn(text, CARD)).toBe(encoding);
});

test.each([
  ['another number', 'n=4111111111111112'],
  ['the last four only', 'last4=1111'],
  ['a page view', 'v=1&t=pageview&dl=https%3A%2F%2Fshop.example%2Fpay'],
  ['a hash', 'a1'.repeat(32)],
  ['Base64 of something else', b64('a long text with no card in it at all')],
])('not the card: %s', (_name, text) => {
  expect(cardEncodingIn(text, CARD)).toBeUndefined();
});

test('the test card: digits of --card, spaces and dashes allowed; anything else refused', () => {
  expect(testCard('4000 0566 5566 5556')).toEqual({
    number: '4000056655665556',
    expiry: '12/34',
    csc: '123',
    name: 'Test Shopper',
  });
  expect(() => testCard('4111-1111')).toThrow('a card number is 12 to 19 digits');
  expect(() => testCard('4111 1111 1111 111x')).toThrow('--card');
});
