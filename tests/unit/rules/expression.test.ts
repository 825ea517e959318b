import { parsePolicyExpression } from '../../../rules/expression';
import { expectRefusal } from '../../helpers/rules';

describe('parsePolicyExpression accepts', () => {
  test.each<[string, string]>([
    ['http.host eq "shop.example.com"', 'shop.example.com'],
    ['http.host eq shop.example.com', 'shop.example.com'],
    ['http.host eq "Shop.Example.COM"', 'shop.example.com'],
    ['  http.host   eq\t"shop.example.com"  ', 'shop.example.com'],
    ['http.host\neq\nshop.example.com\n', 'shop.example.com'],
    ['http.host eq"shop.example.com"', 'shop.example.com'],
    ['http.host eq "xn--bcher-kva.example"', 'xn--bcher-kva.example'],
  ])('%j', (text, hostname) => {
    expect(parsePolicyExpression(text)).toStrictEqual({
      ok: true,
      value: { field: 'http.host', operator: 'eq', hostname },
    });
  });
});

describe('parsePolicyExpression refuses', () => {
  test.each<[string, string, number, string]>([
    ['', '', 0, 'the expression is empty'],
    ['   ', '', 0, 'the expression is empty'],
    ['http.hots eq shop.example.com', 'http.hots', 0, 'the only supported field is http.host'],
    ['host eq shop.example.com', 'host', 0, 'the only supported field is http.host'],
    ['http.request.uri eq "/x"', 'http.request.uri', 0, 'the only supported field is http.host'],
    ['HTTP.HOST eq shop.example.com', 'HTTP.HOST', 0, 'field names are lowercase'],
    ['"http.host" eq shop.example.com', '"http.host"', 0, 'the only supported field is http.host'],
    ['== shop.example.com', '', 0, 'the field is missing'],
    ['http.host == shop.example.com', '==', 10, 'use eq'],
    ['http.host==shop.example.com', '==', 9, 'use eq'],
    ['http.host contains "shop"', 'contains', 10, 'use eq'],
    ['http.host ne shop.example.com', 'ne', 10, 'use eq'],
    ['http.host in {"shop.example.com"}', 'in', 10, 'use eq'],
    ['http.host EQ shop.example.com', 'EQ', 10, 'operators are lowercase; write eq'],
    ['http.host', '', 9, 'the operator eq is missing'],
    ['http.host "shop.example.com"', '', 10, 'the operator eq is missing'],
    ['http.host eq', '', 12, 'the hostname is missing'],
    ['http.host eq   ', '', 15, 'the hostname is missing'],
    ['http.host eq "shop.example.com', '"shop.example.com', 13, 'the opening quote (") is never closed'],
    ['http.host eq shop.example.com"', 'shop.example.com"', 13, 'unbalanced quote'],
    [
      "http.host eq 'shop.example.com'",
      "'shop.example.com'",
      13,
      'write the hostname in double quotes, as in "shop.example.com"',
    ],
    ['http.host eq ""', '""', 13, 'the hostname is empty'],
    [
      'http.host eq "shop.example.com" and http.host eq "b.com"',
      'and http.host eq "b.com"',
      32,
      'unexpected text after the hostname',
    ],
    ['http.host eq "shop.example.com"x', 'x', 31, 'unexpected text after the hostname'],
    ['http.host eq shop.example.com or', 'or', 30, 'unexpected text after the hostname'],
    ['http.host eq "-shop.example.com"', '-shop', 14, 'starts with a hyphen'],
    ['http.host eq shop_x.example.com', '_', 17, 'the character "_" is not allowed'],
    ['http.host eq localhost', 'localhost', 13, 'has a single label'],
    ['http.host eq "*.example.com"', '*', 14, 'a wildcard "*" is not allowed here'],
    ['http.host eq 10.0.0.1', '1', 20, 'is all digits'],
    ['http.host eq shop.example.com.', '.', 29, 'ends with a dot'],
  ])('%j', (text, part, position, reason) => {
    expectRefusal(parsePolicyExpression(text), text, part, position, reason);
  });

  test.each<[string, string]>([
    [
      'http.hots eq shop.example.com',
      'invalid field "http.hots" at position 0: unknown field; the only supported field is http.host, as in http.host eq "shop.example.com"',
    ],
    [
      'http.host == shop.example.com',
      'invalid operator "==" at position 10: unknown operator; use eq, the only supported operator, as in http.host eq "shop.example.com"',
    ],
    [
      'http.host eq "shop_x.example.com"',
      'invalid hostname "shop_x.example.com" at position 18: the character "_" is not allowed; a hostname holds only letters, digits, hyphens and dots',
    ],
    [
      'http.host eq "shop.example.com',
      `invalid hostname '"shop.example.com' at position 13: the opening quote (") is never closed; write http.host eq "shop.example.com"`,
    ],
  ])('message for %j', (text, message) => {
    const result = parsePolicyExpression(text);
    expect(result.ok ? undefined : result.error.message).toBe(message);
  });
});
