/**
 * The result and error shapes shared by every parser in `rules/`.
 *
 * Parsers return values instead of throwing because both callers want to report the problem in
 * their own form: the emulator as an API error envelope, the provider as a Pulumi check failure.
 */

/**
 * Why an input was refused, precise enough to show to a user as-is.
 *
 * The emulator copies `message` into its error envelope; the provider shows it as a check failure
 * on the offending property. `part` and `position` let an editor or a test point at the exact text.
 */
export interface RuleError {
  /** The offending text exactly as written in the input (an empty string when something is missing). */
  part: string;
  /** 0-based offset of `part` in the input, in UTF-16 code units (the unit of JavaScript strings). */
  position: number;
  /** Why `part` is wrong, and how to write it instead when that is known. */
  reason: string;
  /** A whole sentence naming `part`, `position` and `reason`. */
  message: string;
}

/**
 * The outcome of a parser: the parsed value, or the first problem found reading left to right.
 *
 * Only the first problem is reported so that the same input always yields the same error on both
 * sides (emulator and provider), whatever each side does with it.
 */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: RuleError };

/**
 * An Error carrying a {@link RuleError}, for functions whose callers hand them already-validated
 * input (such as `normalizeCspValue`), where bad input is a bug rather than a user mistake.
 */
export class RuleViolation extends Error {
  /** The problem, in the same shape a parser would have returned. */
  readonly ruleError: RuleError;

  /** @param ruleError - the problem; its `message` becomes the Error's message. */
  constructor(ruleError: RuleError) {
    super(ruleError.message);
    this.name = 'RuleViolation';
    this.ruleError = ruleError;
  }
}

/**
 * Builds a {@link RuleError} whose message reads `invalid <subject> "<part>" at position <n>: <reason>`,
 * so every parser words its errors the same way.
 *
 * @param subject - what kind of thing `part` is, such as `source` or `operator`.
 */
export function ruleError(subject: string, part: string, position: number, reason: string): RuleError {
  return {
    part,
    position,
    reason,
    message: `invalid ${subject} ${quoteForMessage(part)} at position ${position}: ${reason}`,
  };
}

/** A failed {@link ParseResult} built with {@link ruleError}. */
export function failure(
  subject: string,
  part: string,
  position: number,
  reason: string,
): { ok: false; error: RuleError } {
  return { ok: false, error: ruleError(subject, part, position, reason) };
}

/**
 * The value of a successful result; throws {@link RuleViolation} for a failed one.
 *
 * For code paths where the input was validated earlier and a failure means a bug.
 */
export function unwrap<T>(result: ParseResult<T>): T {
  if (!result.ok) {
    throw new RuleViolation(result.error);
  }
  return result.value;
}

/**
 * Quotes user text for an error message so that invisible characters stay visible.
 *
 * Double quotes are used unless the text itself holds a double quote and no single quote (as in an
 * unbalanced `"shop.example.com`), so the quoting never reads as part of the text. Control,
 * non-ASCII space and other invisible characters are shown as `\uXXXX` (tabs and newlines as `\t`,
 * `\n`), because a message saying `" " is not allowed` about a tab would mislead.
 */
export function quoteForMessage(text: string): string {
  const visible = text.replace(
    // eslint-disable-next-line no-control-regex -- control characters are what this makes visible
    /[\u0000-\u001f\u007f-\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000\ufeff]/g,
    (ch) => {
      switch (ch) {
        case '\t':
          return '\\t';
        case '\n':
          return '\\n';
        case '\r':
          return '\\r';
        default:
          return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
      }
    },
  );
  const mark = visible.includes('"') && !visible.includes("'") ? "'" : '"';
  return `${mark}${visible}${mark}`;
}
