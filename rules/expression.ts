/**
 * The `expression` of a CSP policy (spec 2.6): the rule selecting which requests the policy covers.
 *
 * The spec defines a single form, `http.host eq <hostname>`, so this parser accepts exactly that
 * rather than a general rule language; anything else gets an error saying what is supported.
 */

import { validateHostname } from './hostname';
import { failure, quoteForMessage, type ParseResult } from './result';

/** A parsed policy expression: the requests whose host is exactly `hostname`. */
export interface PolicyExpression {
  /** The request field compared; the spec supports only the host. */
  field: 'http.host';
  /** The comparison; the spec supports only equality. */
  operator: 'eq';
  /** The hostname, lowercased (hosts compare case-insensitively). */
  hostname: string;
}

const EXAMPLE = 'http.host eq "shop.example.com"';

/** Characters of symbolic operators (`==`, `!=`, `~`), read as one token so `http.host==x` reports `==`. */
const OPERATOR_CHARACTER = /[=!<>~]/;
const SPACE = /\s/;

/**
 * Parses a policy expression of the form `http.host eq "shop.example.com"`.
 *
 * The hostname may be double-quoted or bare (`http.host eq shop.example.com`), because both forms
 * are seen in the wild; any amount of whitespace may separate the three tokens. The hostname must
 * be one exact hostname (no wildcard, since `eq` compares exactly) and passes
 * {@link validateHostname}.
 *
 * @returns the parsed expression, or the first problem: an unknown field or operator, a missing or
 *   invalid hostname, an unbalanced quote or text after the hostname.
 */
export function parsePolicyExpression(text: string): ParseResult<PolicyExpression> {
  let pos = 0;
  const skipSpace = (): void => {
    while (pos < text.length && SPACE.test(text.charAt(pos))) {
      pos += 1;
    }
  };
  const readWhile = (accept: (ch: string) => boolean): { token: string; position: number } => {
    const position = pos;
    while (pos < text.length && accept(text.charAt(pos))) {
      pos += 1;
    }
    return { token: text.slice(position, pos), position };
  };

  skipSpace();
  if (pos === text.length) {
    return failure('expression', '', 0, `the expression is empty; write ${EXAMPLE}`);
  }

  const field = readWhile((ch) => !SPACE.test(ch) && !OPERATOR_CHARACTER.test(ch));
  if (field.token === '') {
    return failure('field', '', pos, `the field is missing before the operator; write ${EXAMPLE}`);
  }
  if (field.token !== 'http.host') {
    const reason =
      field.token.toLowerCase() === 'http.host'
        ? 'field names are lowercase; write http.host'
        : `unknown field; the only supported field is http.host, as in ${EXAMPLE}`;
    return failure('field', field.token, field.position, reason);
  }

  skipSpace();
  const operator = OPERATOR_CHARACTER.test(text.charAt(pos))
    ? readWhile((ch) => OPERATOR_CHARACTER.test(ch))
    : readWhile((ch) => !SPACE.test(ch) && ch !== '"' && ch !== "'");
  if (operator.token === '') {
    return failure('operator', '', pos, `the operator eq is missing after http.host; write ${EXAMPLE}`);
  }
  if (operator.token !== 'eq') {
    const reason =
      operator.token.toLowerCase() === 'eq'
        ? 'operators are lowercase; write eq'
        : `unknown operator; use eq, the only supported operator, as in ${EXAMPLE}`;
    return failure('operator', operator.token, operator.position, reason);
  }

  skipSpace();
  if (pos === text.length) {
    return failure('hostname', '', pos, `the hostname is missing after eq; write ${EXAMPLE}`);
  }
  const hostname = readHostnameToken(text, pos);
  if (!hostname.ok) {
    return hostname;
  }
  const { name, position, end } = hostname.value;
  const valid = validateHostname(name);
  if (!valid.ok) {
    // Shift the validator's position from the hostname to the whole expression so that it points
    // at the same character in what the user wrote.
    const at = position + valid.error.position;
    return {
      ok: false,
      error: {
        ...valid.error,
        position: at,
        message: `invalid hostname ${quoteForMessage(name)} at position ${at}: ${valid.error.reason}`,
      },
    };
  }

  pos = end;
  skipSpace();
  if (pos < text.length) {
    return failure(
      'text',
      text.slice(pos).trimEnd(),
      pos,
      `unexpected text after the hostname; a policy expression is exactly ${EXAMPLE}`,
    );
  }
  return { ok: true, value: { field: 'http.host', operator: 'eq', hostname: valid.value } };
}

/** Reads the hostname token at `start`, quoted or bare; `position` is where the name itself starts. */
function readHostnameToken(text: string, start: number): ParseResult<{ name: string; position: number; end: number }> {
  const opening = text.charAt(start);
  if (opening === '"' || opening === "'") {
    const closing = text.indexOf(opening, start + 1);
    if (closing < 0) {
      return failure(
        'hostname',
        text.slice(start).trimEnd(),
        start,
        `the opening quote (${opening}) is never closed; write ${EXAMPLE}`,
      );
    }
    const name = text.slice(start + 1, closing);
    const quoted = text.slice(start, closing + 1);
    if (opening === "'") {
      return failure(
        'hostname',
        quoted,
        start,
        `single quotes are not accepted; write the hostname in double quotes, as in "${name || 'shop.example.com'}"`,
      );
    }
    if (name === '') {
      return failure('hostname', quoted, start, `the hostname is empty; write ${EXAMPLE}`);
    }
    return { ok: true, value: { name, position: start + 1, end: closing + 1 } };
  }
  let end = start;
  while (end < text.length && !SPACE.test(text.charAt(end))) {
    end += 1;
  }
  const name = text.slice(start, end);
  if (name.includes('"') || name.includes("'")) {
    return failure(
      'hostname',
      name,
      start,
      `unbalanced quote; wrap the whole hostname in double quotes, as in "shop.example.com"`,
    );
  }
  return { ok: true, value: { name, position: start, end } };
}
