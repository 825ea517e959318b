import { z } from 'zod';
import { parseCspValue } from '../../../rules/csp';
import { POLICY_DESCRIPTION_MAX_LENGTH } from '../../../rules/limits';
import {
  choice,
  expecting,
  fieldPath,
  hostnameField,
  policyDescriptionField,
  quotedList,
  ruleField,
  shown,
  SHOWN_MAX_LENGTH,
} from '../../../rules/zod';

/** The messages of a failed parse, or the parsed value. */
function outcome(schema: z.ZodType, input: unknown): { value: unknown } | { messages: string[] } {
  const parsed = schema.safeParse(input);
  return parsed.success ? { value: parsed.data } : { messages: parsed.error.issues.map((issue) => issue.message) };
}

describe('shown', () => {
  test.each<[string, unknown, string]>([
    ['a string, quoted', 'txt', '"txt"'],
    ['an empty string', '', '""'],
    ['a string with a quote, escaped as JSON', 'a"b', '"a\\"b"'],
    ['a number', 42, '42'],
    ['a fraction', 2.5, '2.5'],
    ['a boolean', false, 'false'],
    ['null', null, 'null'],
    ['undefined', undefined, 'undefined'],
    ['an array, by its kind only', ['a', 'b'], 'an array'],
    ['an object, by its kind only', { secret: 'x' }, 'an object'],
  ])('%s', (_what, value, expected) => {
    expect(shown(value)).toBe(expected);
  });

  test(`keeps ${SHOWN_MAX_LENGTH} characters of a long string and marks the cut`, () => {
    expect(SHOWN_MAX_LENGTH).toBe(80);
    expect(shown('x'.repeat(80))).toBe(`"${'x'.repeat(80)}"`);
    expect(shown('x'.repeat(81))).toBe(`"${'x'.repeat(80)}..."`);
  });
});

describe('expecting', () => {
  const schema = z.boolean(expecting('true or false'));

  test('a missing value is "is required: <what>"', () => {
    expect(outcome(schema, undefined)).toEqual({ messages: ['is required: true or false'] });
  });

  test('a wrong value is "must be <what> (got <value>)"', () => {
    expect(outcome(schema, 'yes')).toEqual({ messages: ['must be true or false (got "yes")'] });
    expect(outcome(schema, [true])).toEqual({ messages: ['must be true or false (got an array)'] });
  });

  test('serves checks as well as types', () => {
    const count = z.number(expecting('an integer from 1 to 10')).int(expecting('an integer from 1 to 10'));
    expect(outcome(count, 2.5)).toEqual({ messages: ['must be an integer from 1 to 10 (got 2.5)'] });
  });
});

describe('quotedList', () => {
  test('quotes each value and separates them with commas', () => {
    expect(quotedList(['txt', 'http'])).toBe('"txt", "http"');
    expect(quotedList(['', 'google'])).toBe('"", "google"');
    expect(quotedList(['dv'])).toBe('"dv"');
  });
});

describe('choice', () => {
  const schema = choice(['', 'google', 'lets_encrypt'], 'the certificate authority');

  test('accepts each value as given', () => {
    expect(outcome(schema, '')).toEqual({ value: '' });
    expect(outcome(schema, 'lets_encrypt')).toEqual({ value: 'lets_encrypt' });
  });

  test('a missing value names what the field is and the values', () => {
    expect(outcome(schema, undefined)).toEqual({
      messages: ['is required: the certificate authority, one of "", "google", "lets_encrypt"'],
    });
  });

  test('a wrong value lists the values and shows what came', () => {
    expect(outcome(schema, 'digicert')).toEqual({
      messages: ['must be one of "", "google", "lets_encrypt" (got "digicert")'],
    });
    expect(outcome(schema, 'Google')).toEqual({
      messages: ['must be one of "", "google", "lets_encrypt" (got "Google")'],
    });
    expect(outcome(schema, 7)).toEqual({ messages: ['must be one of "", "google", "lets_encrypt" (got 7)'] });
    expect(outcome(schema, { ca: 'google' })).toEqual({
      messages: ['must be one of "", "google", "lets_encrypt" (got an object)'],
    });
  });
});

describe('hostnameField', () => {
  test('gives the hostname lowercased', () => {
    expect(outcome(hostnameField(), 'Shop.Example.COM')).toEqual({ value: 'shop.example.com' });
    expect(outcome(hostnameField({ allowWildcard: true }), '*.Example.com')).toEqual({ value: '*.example.com' });
  });

  test("a refusal is the hostname rule's message, naming the part and its position", () => {
    expect(outcome(hostnameField(), 'shop_eu.example.com')).toEqual({
      messages: [
        'invalid hostname "shop_eu.example.com" at position 4: the character "_" is not allowed; a hostname holds only letters, digits, hyphens and dots',
      ],
    });
    expect(outcome(hostnameField(), '*.example.com')).toEqual({
      messages: [
        'invalid hostname "*.example.com" at position 0: a wildcard "*" is not allowed here; give one exact hostname',
      ],
    });
  });

  test('a missing or non-string value says what a hostname looks like, wildcards included where accepted', () => {
    expect(outcome(hostnameField(), undefined)).toEqual({
      messages: ['is required: a DNS name such as shop.example.com'],
    });
    expect(outcome(hostnameField(), 42)).toEqual({
      messages: ['must be a string: a DNS name such as shop.example.com'],
    });
    expect(outcome(hostnameField({ allowWildcard: true }), undefined)).toEqual({
      messages: ['is required: a DNS name such as shop.example.com or *.example.com'],
    });
    expect(outcome(hostnameField({ allowWildcard: true }), ['a.com'])).toEqual({
      messages: ['must be a string: a DNS name such as shop.example.com or *.example.com'],
    });
  });
});

describe('ruleField', () => {
  const schema = ruleField(parseCspValue, "the CSP directive, as in script-src 'self'");

  test('keeps an accepted text as written', () => {
    expect(outcome(schema, "SCRIPT-SRC  'self'")).toEqual({ value: "SCRIPT-SRC  'self'" });
  });

  test("a refusal is the parser's message", () => {
    expect(outcome(schema, 'script-src https//x.com')).toEqual({
      messages: [
        'invalid source "https//x.com" at position 11: a scheme must be followed by "://" (write https://x.com)',
      ],
    });
  });

  test('a missing or non-string value says what the field holds', () => {
    expect(outcome(schema, undefined)).toEqual({
      messages: ["is required: the CSP directive, as in script-src 'self'"],
    });
    expect(outcome(schema, 7)).toEqual({ messages: ["must be a string: the CSP directive, as in script-src 'self'"] });
  });
});

describe('policyDescriptionField', () => {
  test(`accepts the empty description and one of ${POLICY_DESCRIPTION_MAX_LENGTH} characters`, () => {
    expect(POLICY_DESCRIPTION_MAX_LENGTH).toBe(1024);
    expect(outcome(policyDescriptionField(), '')).toEqual({ value: '' });
    expect(outcome(policyDescriptionField(), 'x'.repeat(1024))).toEqual({ value: 'x'.repeat(1024) });
  });

  test('refuses a longer one, saying its length', () => {
    expect(outcome(policyDescriptionField(), 'x'.repeat(1025))).toEqual({
      messages: ['must be at most 1024 characters (got 1025); shorten it'],
    });
  });

  test('a missing or non-string description says that it may be empty', () => {
    expect(outcome(policyDescriptionField(), undefined)).toEqual({
      messages: ['is required (it may be empty): what the policy is for'],
    });
    expect(outcome(policyDescriptionField(), null)).toEqual({ messages: ['must be a string: what the policy is for'] });
  });
});

describe('fieldPath', () => {
  test.each<[ReadonlyArray<PropertyKey>, string]>([
    [['ssl', 'method'], 'ssl.method'],
    [['filters', 'pool_id', 2], 'filters.pool_id[2]'],
    [['mechanisms', 'email', 1, 'id'], 'mechanisms.email[1].id'],
    [['result', 0, 'id'], 'result[0].id'],
    [[0, 'id'], '[0].id'],
    [['a', 1, 2], 'a[1][2]'],
  ])('%j is %s', (path, expected) => {
    expect(fieldPath(path, 'body')).toBe(expected);
  });

  test('an empty path is the root', () => {
    expect(fieldPath([], 'body')).toBe('body');
    expect(fieldPath([], 'inputs')).toBe('inputs');
  });

  test('names the field of a zod issue', () => {
    const schema = z.object({ filters: z.object({ pool_id: z.array(z.string()) }) });
    const parsed = schema.safeParse({ filters: { pool_id: ['a', 7] } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => fieldPath(issue.path, 'body'))).toEqual(['filters.pool_id[1]']);
  });
});
