/**
 * Hostname validation shared by custom hostnames, policy expressions and CSP host sources.
 */

import { quoteForMessage, type ParseResult } from './result';

/**
 * The longest hostname that fits a certificate's Common Name (RFC 5280 `ub-common-name`; spec 8).
 *
 * A custom hostname longer than this cannot be its certificate's Common Name, so the service refuses
 * it with error 1469 unless it is created with branding, which puts a short vendor name there instead.
 */
export const COMMON_NAME_LIMIT = 64;

/** The longest hostname DNS can carry in text form (RFC 1035: 255 octets on the wire). */
export const HOSTNAME_MAX_LENGTH = 253;

/** The longest DNS label (RFC 1035). */
export const LABEL_MAX_LENGTH = 63;

/** Options of {@link validateHostname}. */
export interface HostnameOptions {
  /**
   * Accept a leading `*.` label, as custom hostnames do for wildcard certificates. Default `false`,
   * because most fields (such as a policy expression) need one exact hostname.
   */
  allowWildcard?: boolean;
}

/** A problem in dotted labels, as found by {@link findLabelProblem}. */
export interface LabelProblem {
  /** The offending label or character. */
  part: string;
  /** Offset of `part` in the text given to {@link findLabelProblem}. */
  offset: number;
  /** Why it is wrong; names `part` so it reads well inside any caller's message. */
  reason: string;
}

/**
 * Finds the first problem in a dot-separated list of DNS labels, reading left to right.
 *
 * Exported because CSP host sources share the label rules but not the rest of
 * {@link validateHostname} (CSP accepts single labels and IP addresses).
 *
 * @param text - the labels, without any wildcard prefix the caller accepts.
 * @param wildcardReason - the reason given for a `*`, which depends on whether the caller accepts
 *   wildcards at all.
 * @returns the problem, or `undefined` when every label is well formed.
 */
export function findLabelProblem(text: string, wildcardReason: string): LabelProblem | undefined {
  if (text === '') {
    return { part: '', offset: 0, reason: 'the hostname is empty' };
  }
  const labels = text.split('.');
  let start = 0;
  for (const [index, label] of labels.entries()) {
    if (label === '') {
      if (index === 0) {
        return { part: '.', offset: 0, reason: 'the hostname starts with a dot' };
      }
      if (index === labels.length - 1) {
        return { part: '.', offset: start - 1, reason: 'the hostname ends with a dot; remove it' };
      }
      return { part: '..', offset: start - 1, reason: 'two dots in a row leave an empty label' };
    }
    let charOffset = start;
    for (const ch of label) {
      if (!/^[A-Za-z0-9-]$/.test(ch)) {
        return { part: ch, offset: charOffset, reason: characterReason(ch, wildcardReason) };
      }
      charOffset += ch.length;
    }
    if (label.length > LABEL_MAX_LENGTH) {
      return {
        part: label,
        offset: start,
        reason: `the label ${quoteForMessage(label)} is ${label.length} characters long; a label has at most ${LABEL_MAX_LENGTH}`,
      };
    }
    if (label.startsWith('-') || label.endsWith('-')) {
      const where = label.startsWith('-') ? 'starts' : 'ends';
      return {
        part: label,
        offset: start,
        reason: `the label ${quoteForMessage(label)} ${where} with a hyphen; a label must start and end with a letter or digit`,
      };
    }
    start += label.length + 1;
  }
  return undefined;
}

function characterReason(ch: string, wildcardReason: string): string {
  if (ch === '*') {
    return wildcardReason;
  }
  const shown = quoteForMessage(ch);
  // eslint-disable-next-line no-control-regex -- the ASCII range, named by its bounds
  if (/[^\u0000-\u007f]/.test(ch)) {
    return `the character ${shown} is not allowed; write an internationalized name in its ASCII form (xn--...)`;
  }
  return `the character ${shown} is not allowed; a hostname holds only letters, digits, hyphens and dots`;
}

/**
 * Checks a hostname such as a custom hostname or the hostname of a policy expression.
 *
 * Rules: 1 to 253 characters; labels of 1 to 63 letters, digits and hyphens, none starting or
 * ending with a hyphen; at least two labels (a hostname the service can serve lives under a
 * domain); the last label not all digits (that would be an IP address); no trailing dot (the API
 * stores hostnames without it, so `a.com.` and `a.com` would otherwise differ). With
 * `allowWildcard`, a leading `*.` is accepted and at least two labels must follow it, because a
 * wildcard over a whole top-level domain is never a customer's hostname.
 *
 * @returns the hostname lowercased (DNS names are case-insensitive, so this is its canonical form),
 *   or the first problem with the offending label or character and its position.
 */
export function validateHostname(name: string, options: HostnameOptions = {}): ParseResult<string> {
  const allowWildcard = options.allowWildcard ?? false;
  const fail = (part: string, position: number, reason: string): ParseResult<string> => ({
    ok: false,
    error: {
      part,
      position,
      reason,
      message: `invalid hostname ${quoteForMessage(name)} at position ${position}: ${reason}`,
    },
  });

  if (name.length > HOSTNAME_MAX_LENGTH) {
    return fail(
      name,
      0,
      `the hostname is ${name.length} characters long; a hostname has at most ${HOSTNAME_MAX_LENGTH}`,
    );
  }
  const wildcard = allowWildcard && name.startsWith('*');
  if (wildcard && (name === '*' || name === '*.')) {
    return fail(name, 0, 'a wildcard needs a domain after it, as in *.example.com');
  }
  const offset = wildcard && name.startsWith('*.') ? 2 : 0;
  const body = name.slice(offset);
  const problem = findLabelProblem(
    body,
    allowWildcard
      ? 'the wildcard "*" can only be the whole first label, as in *.example.com'
      : 'a wildcard "*" is not allowed here; give one exact hostname',
  );
  if (problem) {
    return fail(problem.part, problem.offset + offset, problem.reason);
  }
  const labels = body.split('.');
  if (labels.length < 2) {
    return fail(
      name,
      0,
      offset > 0
        ? 'a wildcard needs a domain of at least two labels after it, as in *.example.com'
        : `${quoteForMessage(name)} has a single label; a hostname needs at least two, as in example.com`,
    );
  }
  const last = labels[labels.length - 1] ?? '';
  if (/^[0-9]+$/.test(last)) {
    return fail(
      last,
      name.length - last.length,
      `the last label ${quoteForMessage(last)} is all digits; IP addresses are not accepted as hostnames`,
    );
  }
  return { ok: true, value: name.toLowerCase() };
}
