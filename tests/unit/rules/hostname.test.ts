import { COMMON_NAME_LIMIT, validateHostname, type HostnameOptions } from '../../../rules/hostname';
import { expectRefusal } from '../../helpers/rules';

const label63 = 'a'.repeat(63);
// Three 63-character labels, one of 61 and three dots: the longest hostname, 253 characters.
const name253 = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(61)}`;

describe('validateHostname accepts', () => {
  test('the longest-name fixture is 253 characters', () => {
    expect(name253).toHaveLength(253);
  });

  test.each<[string, HostnameOptions, string]>([
    ['shop.example.com', {}, 'shop.example.com'],
    ['Shop.Example.COM', {}, 'shop.example.com'],
    ['a.b', {}, 'a.b'],
    ['example.co.uk', {}, 'example.co.uk'],
    ['a-b.example.com', {}, 'a-b.example.com'],
    ['3com.com', {}, '3com.com'],
    ['123.example.com', {}, '123.example.com'],
    ['example.c0m', {}, 'example.c0m'],
    ['xn--bcher-kva.example', {}, 'xn--bcher-kva.example'],
    [`${label63}.com`, {}, `${label63}.com`],
    [name253, {}, name253],
    ['*.example.com', { allowWildcard: true }, '*.example.com'],
    ['*.Shop.Example.com', { allowWildcard: true }, '*.shop.example.com'],
    ['shop.example.com', { allowWildcard: true }, 'shop.example.com'],
  ])('%s %j', (name, options, expected) => {
    expect(validateHostname(name, options)).toStrictEqual({ ok: true, value: expected });
  });
});

describe('validateHostname refuses', () => {
  test.each<[string, HostnameOptions, string, number, string]>([
    ['', {}, '', 0, 'the hostname is empty'],
    ['localhost', {}, 'localhost', 0, 'has a single label'],
    ['-shop.example.com', {}, '-shop', 0, 'starts with a hyphen'],
    ['shop-.example.com', {}, 'shop-', 0, 'ends with a hyphen'],
    ['shop.-x.com', {}, '-x', 5, 'starts with a hyphen'],
    ['shop_x.example.com', {}, '_', 4, 'the character "_" is not allowed'],
    ['shop example.com', {}, ' ', 4, 'the character " " is not allowed'],
    ['shop.example.com:443', {}, ':', 16, 'the character ":" is not allowed'],
    ['https://shop.example.com', {}, ':', 5, 'the character ":" is not allowed'],
    ['a..com', {}, '..', 1, 'two dots in a row'],
    ['.a.com', {}, '.', 0, 'starts with a dot'],
    ['a.com.', {}, '.', 5, 'ends with a dot'],
    ['1.2.3.4', {}, '4', 6, 'the last label "4" is all digits'],
    ['example.123', {}, '123', 8, 'all digits'],
    [`shop.${'a'.repeat(64)}.com`, {}, 'a'.repeat(64), 5, 'is 64 characters long; a label has at most 63'],
    [`a${name253}`, {}, `a${name253}`, 0, 'is 254 characters long'],
    ['*.example.com', {}, '*', 0, 'a wildcard "*" is not allowed here'],
    ['shop.*.example.com', { allowWildcard: true }, '*', 5, 'can only be the whole first label'],
    ['*shop.example.com', { allowWildcard: true }, '*', 0, 'can only be the whole first label'],
    ['*.*.example.com', { allowWildcard: true }, '*', 2, 'can only be the whole first label'],
    ['*.com', { allowWildcard: true }, '*.com', 0, 'at least two labels after it'],
    ['*', { allowWildcard: true }, '*', 0, 'a wildcard needs a domain after it'],
    ['*.', { allowWildcard: true }, '*.', 0, 'a wildcard needs a domain after it'],
    ['bücher.de', {}, 'ü', 1, 'ASCII form (xn--...)'],
    ['shop\texample.com', {}, '\t', 4, 'the character "\\t" is not allowed'],
  ])('%j %j', (name, options, part, position, reason) => {
    expectRefusal(validateHostname(name, options), name, part, position, reason);
  });

  test('the message names the hostname, the position and the reason', () => {
    const result = validateHostname('shop.-x.com');
    expect(result).toStrictEqual({
      ok: false,
      error: {
        part: '-x',
        position: 5,
        reason: 'the label "-x" starts with a hyphen; a label must start and end with a letter or digit',
        message:
          'invalid hostname "shop.-x.com" at position 5: the label "-x" starts with a hyphen; a label must start and end with a letter or digit',
      },
    });
  });
});

test('COMMON_NAME_LIMIT is the Common Name limit of spec 8', () => {
  expect(COMMON_NAME_LIMIT).toBe(64);
});
