/**
 * zod fields and messages that the emulator (request bodies) and the provider (resource inputs)
 * both build, written once so that the same rule is checked the same way and worded the same way
 * on both sides.
 *
 * Messages follow one shape: `is required: <what is expected>` for a missing value, and
 * `must be <what is expected> (got <the value, shortened>)` for a wrong one. The emulator prefixes
 * them with the field path ({@link fieldPath}) in its error envelope; the provider shows them as
 * the reason of a check failure on the property.
 *
 * What stays on each side: the schemas of the bodies and inputs themselves (the wire types), so
 * that the emulator remains an independent check of the client.
 */

import { z } from 'zod';
import { validateHostname, type HostnameOptions } from './hostname';
import { POLICY_DESCRIPTION_MAX_LENGTH } from './limits';
import type { ParseResult } from './result';

/** How many characters of a refused string {@link shown} keeps. */
export const SHOWN_MAX_LENGTH = 80;

/**
 * A short rendering of a refused value for a message: a string quoted (cut after
 * {@link SHOWN_MAX_LENGTH} characters, with `...`), a number or boolean as written, `null`, and
 * only the kind of an array or object, so that a message never dumps a whole value.
 */
export function shown(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > SHOWN_MAX_LENGTH ? `${value.slice(0, SHOWN_MAX_LENGTH)}...` : value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** The `error` option of a zod schema or check, as {@link expecting} returns it. */
export interface ExpectingError {
  error: (issue: { input?: unknown }) => string;
}

/**
 * zod's `error` option saying what is expected: `is required: <what>` when the value is missing,
 * `must be <what> (got <value>)` otherwise (the value through {@link shown}).
 *
 * @param what - the expected value as a noun phrase that reads after "must be", such as
 *   `true or false` or `an array of pool ids`.
 */
export function expecting(what: string): ExpectingError {
  return {
    error: (issue) =>
      issue.input === undefined ? `is required: ${what}` : `must be ${what} (got ${shown(issue.input)})`,
  };
}

/** The values as a message lists them: each JSON-quoted, separated by commas (`"txt", "http"`). */
export function quotedList(values: readonly string[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
}

/**
 * A field that takes one of `values`. Refusals read `is required: <what>, one of "a", "b"` and
 * `must be one of "a", "b" (got "c")`.
 *
 * @param what - what the field is, as a noun phrase, such as `the certificate type`.
 */
export function choice<const T extends readonly [string, ...string[]]>(values: T, what: string) {
  const oneOf = `one of ${quotedList(values)}`;
  return z.enum(values, {
    error: (issue) =>
      issue.input === undefined ? `is required: ${what}, ${oneOf}` : `must be ${oneOf} (got ${shown(issue.input)})`,
  });
}

/** A string field: `is required: <what>`, or `must be a string: <what>` for any other type. */
function text(what: string) {
  return z.string({
    error: (issue) => (issue.input === undefined ? `is required: ${what}` : `must be a string: ${what}`),
  });
}

/**
 * A hostname field, judged by `validateHostname` (spec 2.9 for custom hostnames), whose output is
 * the hostname lowercased. A refusal is the parser's message, which names the offending label or
 * character and its position.
 *
 * @param options - `allowWildcard` for fields that accept `*.example.com` (custom hostnames).
 */
export function hostnameField(options: HostnameOptions = {}) {
  const what = options.allowWildcard
    ? 'a DNS name such as shop.example.com or *.example.com'
    : 'a DNS name such as shop.example.com';
  return text(what).transform((value, ctx) => {
    const checked = validateHostname(value, options);
    if (checked.ok) return checked.value;
    ctx.addIssue({ code: 'custom', message: checked.error.message });
    return z.NEVER;
  });
}

/**
 * A text field judged by a rule parser of `rules/` (such as `parseCspValue` or
 * `parsePolicyExpression`), kept as written. A refusal is the parser's message, which names the
 * offending part and its position.
 *
 * @param what - what the field holds, with an example, such as
 *   `the CSP directive, as in script-src 'self' cdn.example.com`.
 */
export function ruleField(parse: (text: string) => ParseResult<unknown>, what: string) {
  return text(what).superRefine((value, ctx) => {
    const parsed = parse(value);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error.message });
  });
}

/**
 * The `description` of a CSP policy (spec 2.6): required, may be empty, at most
 * {@link POLICY_DESCRIPTION_MAX_LENGTH} characters.
 */
export function policyDescriptionField() {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? 'is required (it may be empty): what the policy is for'
          : 'must be a string: what the policy is for',
    })
    .max(POLICY_DESCRIPTION_MAX_LENGTH, {
      error: (issue) =>
        `must be at most ${POLICY_DESCRIPTION_MAX_LENGTH} characters (got ${(issue.input as string).length}); shorten it`,
    });
}

/**
 * The path of a zod issue as a reader writes it: `filters.pool_id[2]`, `ssl.method`. Numbers are
 * array indexes, in brackets; keys are joined with dots.
 *
 * @param root - what an empty path (the value itself) is called, such as `body` or `inputs`.
 */
export function fieldPath(path: ReadonlyArray<PropertyKey>, root: string): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || root;
}
