/**
 * The rules of a script inventory (issue 25, PCI DSS 4.0 requirement 6.4.3): the payment pages,
 * the scripts authorized on them with a written justification for each, which entry authorizes a
 * detected script, and the `script-src` sources that let the browser load exactly those scripts.
 *
 * Pure: the provider's check and the review call the same rules, and a test holds the sources to
 * the browsers' judgement (`./csp-match.ts`).
 *
 * Decisions, each for the reason given where it is made:
 * - scripts are `https:` only (a payment page is served over https, where an `http:` script is
 *   mixed content the browser blocks);
 * - a `url` entry authorizes that URL with that query exactly (the query names another script for
 *   page security, though CSP cannot tell them apart); the fragment never counts;
 * - a `prefix` entry is a CSP path prefix, `https://host[:port]/path/`, ending in `/`;
 * - the most specific entry wins: a `url` entry over any prefix, then the longest prefix;
 * - paths compare percent-decoded, as both browsers compare a CSP source's path with a URL's;
 * - pages match by host (any port, either scheme) and by whole path segments.
 */

import { normalizeCspValue, parseCspValue } from './csp';
import { decodePath } from './csp-match';
import { validateHostname } from './hostname';
import { failure, quoteForMessage, type ParseResult, type RuleError } from './result';

/**
 * The marked blank `edgeguard-inventory` writes as each entry's justification: the inventory's
 * parser refuses any justification still holding it, so that preview fails until a person writes
 * the reason (a justification a tool wrote is no justification).
 */
export const JUSTIFICATION_PLACEHOLDER = 'TODO: justify';

/** What a justification must say, which every refusal of one ends with. */
const JUSTIFY =
  'write why the script is on the payment pages (the business or technical reason PCI DSS 6.4.3 asks for)';

/** The hash of a script version as page security reports it (spec 2.3): 8 to 128 hexadecimal digits. */
const HEX_DIGEST = /^[0-9a-fA-F]{8,128}$/;

/** Where a script comes from, reduced to what matching and CSP look at. */
export interface ScriptAddress {
  /** The canonical text: the URL as the WHATWG URL parser writes it (lowercase host, default port dropped). */
  text: string;
  /** `https://host[:port]`, the URL's origin. */
  origin: string;
  /** The path percent-decoded, as browsers compare a CSP source's path with a URL's. */
  path: string;
  /** The query with its `?`, or `''`; always `''` for a prefix. */
  query: string;
  /** The `script-src` source that allows it: scheme, host, port and path, never the query. */
  cspSource: string;
}

/** A payment page of the inventory: a host, or a host and the path under which every page counts. */
export interface InventoryPage {
  /** The host, lowercase. */
  host: string;
  /** The path prefix percent-decoded, without a trailing `/`; `''` for every page of the host. */
  path: string;
  /** The canonical text: host and path, as in `shop.example.com/checkout`. */
  text: string;
}

/** What every entry has, whatever its kind. */
interface EntryCommon {
  /** The entry's index in the inventory's `scripts`, which messages and the review name it by. */
  index: number;
  /** Where its scripts come from. */
  address: ScriptAddress;
  /** Why the script is on the payment pages, trimmed. */
  justification: string;
  /** Who answers for it, trimmed, when given. */
  owner?: string;
}

/**
 * One entry of the inventory: a `url` entry authorizes one script and may pin the version approved
 * (`hash`, lowercase); a `prefix` entry authorizes every script under a path and pins nothing, as
 * the scripts it covers are not known in advance.
 */
export type ScriptEntry =
  (EntryCommon & { kind: 'url'; url: string; hash?: string }) | (EntryCommon & { kind: 'prefix'; prefix: string });

/**
 * An `inline` entry of `scripts` (issue 41): one inline script, authorized by the SHA-256 of its
 * text, which the enforcing policy allows as the hash source {@link InlineEntry.cspSource}.
 */
export interface InlineEntry {
  /** The entry's index in the inventory's `scripts`. */
  index: number;
  /** The SHA-256 of the script's text, base64 as CSP writes it (without `sha256-` and quotes). */
  base64: string;
  /** The same digest in lowercase hexadecimal, as the probe and page security write hashes. */
  hex: string;
  /** `'sha256-<base64>'`, the `script-src` source that lets exactly this script run. */
  cspSource: string;
  /** Why the script is on the payment pages, trimmed. */
  justification: string;
  /** Who answers for it, trimmed, when given. */
  owner?: string;
}

/**
 * A frame the payment pages may embed (`frames`, issue 41): a payment provider's card frame. The
 * scripts inside a frame of another origin that an entry authorizes are the provider's, not judged
 * against the page's entries.
 */
export interface FrameEntry {
  /** The entry's index in the inventory's `frames`. */
  index: number;
  /** The frame's URLs: `https://host[:port]/path/`, canonical. */
  address: ScriptAddress;
  justification: string;
  owner?: string;
}

/** A URL prefix a card number typed on the pages may be sent to (`cardDestinations`, issue 41). */
export interface CardDestination {
  /** Its index in the inventory's `cardDestinations`. */
  index: number;
  /** The prefix as the URL parser writes it (`https://api.pay.example/v1/tokens`). */
  text: string;
  /** Its origin, which a destination's URL must have exactly. */
  origin: string;
}

/** An inventory whose every rule holds, as {@link parseScriptInventory} returns it. */
export interface ScriptInventory {
  /** The payment pages, in the order written. */
  pages: readonly InventoryPage[];
  /** The `url` and `prefix` entries, in the order written. */
  scripts: readonly ScriptEntry[];
  /** The `inline` entries of `scripts`, in the order written; absent as empty. */
  inline?: readonly InlineEntry[];
  /** The frames the pages may embed; absent as empty. */
  frames?: readonly FrameEntry[];
  /** Where a card number typed on the pages may be sent; absent as empty (nowhere). */
  cardDestinations?: readonly CardDestination[];
}

/** One entry as written (the resource's input); every field is checked, none is trusted. */
export interface ScriptEntryInput {
  url?: string;
  prefix?: string;
  /** An inline script's CSP hash: `sha256-<base64>`, with or without the CSP form's quotes. */
  inline?: string;
  justification?: string;
  owner?: string;
  hash?: string;
}

/** A frame as written (`frames`). */
export interface FrameEntryInput {
  prefix?: string;
  justification?: string;
  owner?: string;
}

/** An inventory as written: the pages as `host` or `host/path-prefix`, and the entries. */
export interface ScriptInventoryInput {
  pages: readonly string[];
  scripts: readonly ScriptEntryInput[];
  frames?: readonly FrameEntryInput[];
  cardDestinations?: readonly string[];
}

/**
 * A problem of an inventory: the {@link RuleError} of the offending text, and where it is, so that
 * a check failure points at the property (`['scripts', 2, 'justification']`).
 */
export interface InventoryError extends RuleError {
  /** The property's path in the inventory: `pages` or `scripts`, the index, and the entry's field. */
  path: Array<string | number>;
}

/** What {@link parseScriptInventory} returns: a {@link ParseResult} whose error says where it is. */
export type InventoryParseResult = { ok: true; value: ScriptInventory } | { ok: false; error: InventoryError };

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
/** RFC 3986's path characters (pchar and `/`); `%` is checked apart, as it must start a byte. */
const PATH_CHARACTER = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]$/;
/** The path characters a CSP source may hold as they are (`./csp.ts`); the others are percent-encoded. */
const CSP_PATH_CHARACTER = /^[A-Za-z0-9\-._~!$&()*+=:@/%]$/;

/**
 * Parses the `url` of an entry: an absolute `https:` URL of one script, with its query if the page
 * loads it with one, without a fragment.
 *
 * @returns its address, or the first problem with the offending part and its position.
 */
export function parseScriptUrl(text: string): ParseResult<ScriptAddress> {
  return parseScriptAddress(text, 'url');
}

/**
 * Parses the `prefix` of an entry: `https://host[:port]/path/`, ending in `/`, which CSP matches
 * as every URL under that path (a CSP path without the final `/` matches one URL only, so a prefix
 * without it would authorize more than the browser allows).
 *
 * @returns its address, or the first problem with the offending part and its position.
 */
export function parseScriptPrefix(text: string): ParseResult<ScriptAddress> {
  return parseScriptAddress(text, 'prefix');
}

/**
 * Parses the `prefix` of a frame entry: `https://host[:port]/path/`, ending in `/`, as a script
 * prefix (`frame-src` reads a path prefix as `script-src` does).
 *
 * @returns its address, or the first problem with the offending part and its position.
 */
export function parseFramePrefix(text: string): ParseResult<ScriptAddress> {
  return parseScriptAddress(text, 'prefix', 'frame prefix');
}

function parseScriptAddress(
  text: string,
  kind: 'url' | 'prefix',
  subject: string = `script ${kind}`,
): ParseResult<ScriptAddress> {
  const example = kind === 'url' ? 'https://cdn.example.com/app.js' : 'https://cdn.example.com/js/';
  const space = /\s/.exec(text);
  if (space) {
    return failure(subject, space[0], space.index, 'a URL holds no spaces; remove them, or percent-encode one as %20');
  }
  const scheme = SCHEME.exec(text);
  if (!scheme) {
    return failure(subject, text, 0, `write the whole URL with its scheme, as in ${example}`);
  }
  const schemeName = (scheme[1] ?? '').toLowerCase();
  if (schemeName !== 'https') {
    const reason =
      schemeName === 'http'
        ? 'a payment page is served over https, where the browser blocks an http: script as mixed content; write https://'
        : `a script of a payment page is an https: URL, not ${schemeName}:`;
    return failure(subject, scheme[0], 0, reason);
  }
  const hashAt = text.indexOf('#');
  if (hashAt >= 0) {
    return failure(
      subject,
      text.slice(hashAt),
      hashAt,
      'a fragment never reaches the server, so it names no other script; remove it',
    );
  }
  const authorityStart = scheme[0].length;
  const authorityEnd = text.slice(authorityStart).search(/[/?]/);
  const authority =
    authorityEnd < 0 ? text.slice(authorityStart) : text.slice(authorityStart, authorityStart + authorityEnd);
  const rest = authorityEnd < 0 ? '' : text.slice(authorityStart + authorityEnd);
  const queryAt = rest.indexOf('?');
  const rawPath = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const pathStart = authorityStart + authority.length;
  const authorityProblem = checkAuthority(authority);
  if (authorityProblem) {
    return failure(subject, authority, authorityStart, authorityProblem);
  }
  const pathProblem = checkPath(rawPath);
  if (pathProblem) {
    return failure(subject, pathProblem.part, pathStart + pathProblem.offset, pathProblem.reason);
  }
  if (kind === 'prefix') {
    if (queryAt >= 0) {
      return failure(
        subject,
        rest.slice(queryAt),
        pathStart + queryAt,
        'a prefix holds no query: CSP matches scripts by path only; remove it',
      );
    }
    if (!rawPath.endsWith('/')) {
      return failure(
        subject,
        rawPath,
        pathStart,
        `a prefix ends in "/": CSP reads a path without it as one URL, not a prefix (write ${text}/, or make it a url entry)`,
      );
    }
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return failure(subject, text, 0, `not a URL the browser can load; write it as in ${example}`);
  }
  const cspSource = `https://${url.host}${cspPath(url.pathname)}`;
  const csp = parseCspValue(`script-src ${cspSource}`);
  if (!csp.ok) {
    const at = text.indexOf(csp.error.part);
    return failure(subject, csp.error.part, Math.max(at, 0), `CSP cannot express it: ${csp.error.reason}`);
  }
  return {
    ok: true,
    value: { text: url.href, origin: url.origin, path: decodePath(url.pathname), query: url.search, cspSource },
  };
}

/** Why an entry's host and port cannot name a script's server exactly, or `undefined`. */
function checkAuthority(authority: string): string | undefined {
  if (authority.includes('@')) {
    return 'a user name or password cannot be part of a CSP source; remove it';
  }
  if (authority.startsWith('[')) {
    return 'CSP cannot name an IPv6 address; use a host name';
  }
  if (authority.includes('*')) {
    return 'an entry names one host: a wildcard would authorize scripts from hosts nobody listed; write each host';
  }
  if (authority === '') {
    return 'the host is missing';
  }
  return undefined;
}

/** A problem of a path as written: the offending part, its offset in the path, and why. */
interface PathProblem {
  part: string;
  offset: number;
  reason: string;
}

/**
 * Why a path as written is refused, or `undefined`. Dot segments are refused because the browser
 * resolves them before it loads or matches anything, so what the entry says would not be the URL it
 * authorizes; an invalid percent-encoding because browsers then compare paths undecoded.
 */
function checkPath(path: string): PathProblem | undefined {
  const dots = /(?:^|\/)(\.{1,2})(?=\/|$)/.exec(path);
  if (dots) {
    const part = dots[1] ?? '';
    return {
      part,
      offset: dots.index + dots[0].length - part.length,
      reason: 'a "." or ".." segment is resolved by the browser; write the path it leads to',
    };
  }
  if (path.includes('//')) {
    return { part: '//', offset: path.indexOf('//'), reason: 'two slashes in a row; remove one' };
  }
  for (let i = 0; i < path.length; i += 1) {
    const ch = path.charAt(i);
    if (ch === '%') {
      if (!/^%[0-9A-Fa-f]{2}/.test(path.slice(i))) {
        return { part: path.slice(i, i + 3), offset: i, reason: 'a "%" must start a percent-encoded byte such as %20' };
      }
    } else if (!PATH_CHARACTER.test(ch) && ch.charCodeAt(0) < 0x80) {
      return {
        part: ch,
        offset: i,
        reason: `the character ${quoteForMessage(ch)} is not allowed in a path; percent-encode it`,
      };
    }
  }
  try {
    decodeURIComponent(path);
  } catch {
    return { part: path, offset: 0, reason: 'its percent-encoded bytes are not UTF-8 text' };
  }
  return undefined;
}

/**
 * The path of a URL as a CSP source writes it: the characters CSP reserves or refuses in a path
 * (`;`, `,`, `'`, `[`, `|` and the like) percent-encoded, which matches the same URLs, as browsers
 * compare paths decoded.
 */
function cspPath(pathname: string): string {
  let out = '';
  for (const ch of pathname) {
    out += CSP_PATH_CHARACTER.test(ch) ? ch : `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Parses a page of the inventory: `host` (every page of the host) or `host/path-prefix` (the pages
 * at that path and under it, by whole segments: `shop.example.com/checkout` covers `/checkout` and
 * `/checkout/pay`, not `/checkout-old`). No scheme and no port: page security reports pages
 * without their scheme, and a payment page is one on any port of its host, so that no page of the
 * host escapes the inventory by its port.
 *
 * @returns the page, or the first problem with the offending part and its position.
 */
export function parseInventoryPage(text: string): ParseResult<InventoryPage> {
  const scheme = SCHEME.exec(text);
  if (scheme) {
    return failure(
      'page',
      scheme[0],
      0,
      `write the page without its scheme, as in ${text.slice(scheme[0].length) || 'shop.example.com/checkout'}: a page counts over http and https alike`,
    );
  }
  const slash = text.indexOf('/');
  const hostPart = slash < 0 ? text : text.slice(0, slash);
  const rawPath = slash < 0 ? '' : text.slice(slash);
  const colon = hostPart.indexOf(':');
  if (colon >= 0) {
    return failure(
      'page',
      hostPart.slice(colon),
      colon,
      'a page has no port: its host counts on every port; remove it',
    );
  }
  const host = validateHostname(hostPart);
  if (!host.ok) {
    return failure('page', host.error.part, host.error.position, host.error.reason);
  }
  const extra = /[?#\s]/.exec(rawPath);
  if (extra) {
    const reason = /\s/.test(extra[0])
      ? 'a page holds no spaces; percent-encode one as %20'
      : 'a page is matched by its path; the query and fragment never count, remove them';
    return failure('page', rawPath.slice(extra.index), slash + extra.index, reason);
  }
  const pathProblem = checkPath(rawPath);
  if (pathProblem) {
    return failure('page', pathProblem.part, slash + pathProblem.offset, pathProblem.reason);
  }
  // The path is made as the URL parser would make a page's path, so both compare alike.
  const path = rawPath === '' ? '' : decodePath(new URL(`https://${host.value}${rawPath}`).pathname).replace(/\/$/, '');
  return { ok: true, value: { host: host.value, path, text: `${host.value}${path}` } };
}

/**
 * Parses a justification: not blank, saying something (a letter or a digit), and not the marked
 * blank {@link JUSTIFICATION_PLACEHOLDER}, anywhere in it.
 *
 * @returns the justification trimmed, or the problem.
 */
export function parseJustification(text: string): ParseResult<string> {
  const trimmed = text.trim();
  if (trimmed === '') {
    return failure('justification', text, 0, `it is blank; ${JUSTIFY}`);
  }
  const placeholder = text.toLowerCase().indexOf(JUSTIFICATION_PLACEHOLDER.toLowerCase());
  if (placeholder >= 0) {
    return failure(
      'justification',
      text.slice(placeholder, placeholder + JUSTIFICATION_PLACEHOLDER.length),
      placeholder,
      `it holds the blank edgeguard-inventory writes; a person must ${JUSTIFY}`,
    );
  }
  if (!/[\p{L}\p{N}]/u.test(trimmed)) {
    return failure('justification', text, 0, `it says nothing; ${JUSTIFY}`);
  }
  return { ok: true, value: trimmed };
}

/**
 * Parses the pinned `hash` of a `url` entry: the hexadecimal digest page security reports for the
 * script's version (spec 2.3), in either case.
 *
 * @returns the hash lowercase, as the service writes it, or the problem.
 */
export function parseScriptHash(text: string): ParseResult<string> {
  if (HEX_DIGEST.test(text)) {
    return { ok: true, value: text.toLowerCase() };
  }
  const what = "the hexadecimal digest page security reports as the script's hash, 8 to 128 digits";
  const bad = /[^0-9a-fA-F]/.exec(text);
  if (bad) {
    return failure(
      'hash',
      bad[0],
      bad.index,
      `the character ${quoteForMessage(bad[0])} is not hexadecimal; write ${what}`,
    );
  }
  return failure('hash', text, 0, `it has ${text.length} digits; write ${what}`);
}

/**
 * Parses the `inline` of an entry: the CSP hash of one inline script, `sha256-<base64>`, with or
 * without the quotes of its CSP form (`'sha256-<base64>'`), as `./csp.ts` reads a hash source:
 * SHA-256 only (what browsers and the probe compute for a `<script>`'s text), base64 of 32 bytes.
 *
 * @returns the entry's digest (base64 and hexadecimal) and its source, or the problem.
 */
export function parseInlineHash(text: string): ParseResult<Pick<InlineEntry, 'base64' | 'hex' | 'cspSource'>> {
  const example =
    "sha256-, then the base64 SHA-256 of the script's text, as in 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='";
  const bare = text.startsWith("'") && text.endsWith("'") && text.length > 1 ? text.slice(1, -1) : text;
  const offset = bare === text ? 0 : 1;
  const algorithm = /^([A-Za-z0-9]+)-/.exec(bare)?.[1];
  if (algorithm === undefined) return failure('inline hash', text, 0, `write ${example}`);
  if (algorithm.toLowerCase() !== 'sha256')
    return failure(
      'inline hash',
      algorithm,
      offset,
      "an inline entry is a sha256 hash, the one the probe and browsers' consoles give for an inline script",
    );
  const parsed = parseCspValue(`script-src '${bare}'`);
  const source = parsed.ok ? parsed.value[0]?.sources[0] : undefined;
  if (!parsed.ok || source?.kind !== 'hash') {
    const reason = parsed.ok ? `write ${example}` : parsed.error.reason;
    return failure('inline hash', bare.slice(algorithm.length + 1), offset + algorithm.length + 1, reason);
  }
  const base64 = source.value;
  const bytes = atob(base64.replace(/-/g, '+').replace(/_/g, '/'));
  const hex = Array.from(bytes, (byte) => byte.charCodeAt(0).toString(16).padStart(2, '0')).join('');
  return { ok: true, value: { base64, hex, cspSource: `'sha256-${base64}'` } };
}

/**
 * The CSP hash source of a script's text given as its SHA-256 in hexadecimal: `'sha256-<base64>'`,
 * which {@link parseInlineHash} reads back.
 */
export function inlineSourceOfHex(hex: string): string {
  const bytes = (hex.match(/[0-9a-fA-F]{2}/g) ?? []).map((pair) => String.fromCharCode(parseInt(pair, 16)));
  return `'sha256-${btoa(bytes.join(''))}'`;
}

/**
 * Parses a card destination: an absolute `https:` or `wss:` URL prefix (a payment provider's API or
 * socket), with no user name, fragment or wildcard. A URL is a destination when it has the prefix's
 * origin and its text starts with the prefix's.
 *
 * @returns the destination's canonical text and origin, or the problem.
 */
export function parseCardDestination(text: string): ParseResult<Omit<CardDestination, 'index'>> {
  const example = 'https://api.pay.example/v1/tokens';
  const space = /\s/.exec(text);
  if (space) return failure('card destination', space[0], space.index, 'a URL holds no spaces; remove them');
  const scheme = SCHEME.exec(text);
  if (!scheme) return failure('card destination', text, 0, `write the whole URL with its scheme, as in ${example}`);
  const name = (scheme[1] ?? '').toLowerCase();
  if (name !== 'https' && name !== 'wss')
    return failure(
      'card destination',
      scheme[0],
      0,
      'a card number is sent over https: or wss: only; anything else would carry it in clear text',
    );
  const hashAt = text.indexOf('#');
  if (hashAt >= 0)
    return failure('card destination', text.slice(hashAt), hashAt, 'a fragment is never sent; remove it');
  const authorityEnd = text.slice(scheme[0].length).search(/[/?]/);
  const authority =
    authorityEnd < 0 ? text.slice(scheme[0].length) : text.slice(scheme[0].length, scheme[0].length + authorityEnd);
  const problem = checkAuthority(authority);
  if (problem) return failure('card destination', authority, scheme[0].length, problem);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return failure('card destination', text, 0, `not a URL; write it as in ${example}`);
  }
  return { ok: true, value: { text: url.href, origin: url.origin } };
}

/**
 * Parses a whole inventory: at least one page, no page twice; each entry with exactly one of
 * `url` and `prefix`, a justification ({@link parseJustification}), an owner that is not blank
 * when given, a `hash` on a `url` entry only; no two entries naming the same script (url and
 * query) or the same prefix, even written differently.
 *
 * @returns the inventory, or the first problem reading in order, its message naming the page or
 *   the entry (index, and url or prefix) and the reason.
 */
export function parseScriptInventory(input: ScriptInventoryInput): InventoryParseResult {
  if (input.pages.length === 0) {
    return located(['pages'], 'pages', missing('list at least one payment page, as in shop.example.com/checkout'));
  }
  const pages: InventoryPage[] = [];
  const pageAt = new Map<string, number>();
  for (const [index, text] of input.pages.entries()) {
    const label = `pages[${index}]`;
    const page = parseInventoryPage(text);
    if (!page.ok) return located(['pages', index], label, page.error);
    const earlier = pageAt.get(page.value.text);
    if (earlier !== undefined) {
      return located(
        ['pages', index],
        label,
        failure('page', text, 0, `it is the page of pages[${earlier}]; keep one`).error,
      );
    }
    pageAt.set(page.value.text, index);
    pages.push(page.value);
  }

  const scripts: ScriptEntry[] = [];
  const inline: InlineEntry[] = [];
  const entryAt = new Map<string, number>();
  for (const [index, written] of input.scripts.entries()) {
    const entry = parseEntry(written, index);
    if (!entry.ok) return entry;
    if (entry.value.kind === 'inline') {
      const { kind: _kind, ...parsedInline } = entry.value;
      const key = JSON.stringify(['inline', parsedInline.base64]);
      const earlier = entryAt.get(key);
      if (earlier !== undefined)
        return located(
          ['scripts', index, 'inline'],
          entryLabel(index, written),
          failure(
            'inline hash',
            written.inline ?? '',
            0,
            `it names the same script as scripts[${earlier}]; keep one entry`,
          ).error,
        );
      entryAt.set(key, index);
      inline.push(parsedInline);
      continue;
    }
    const key = matchKey(entry.value.kind, entry.value.address);
    const earlier = entryAt.get(key);
    if (earlier !== undefined) {
      const same = entry.value.kind === 'url' ? 'the same script' : 'the same prefix';
      return located(
        ['scripts', index, entry.value.kind],
        entryLabel(index, written),
        failure(
          `script ${entry.value.kind}`,
          entry.value.address.text,
          0,
          `it names ${same} as scripts[${earlier}]; keep one entry`,
        ).error,
      );
    }
    entryAt.set(key, index);
    scripts.push(entry.value);
  }
  const frames = parseFrames(input.frames ?? []);
  if (!frames.ok) return frames;
  const cardDestinations = parseCardDestinations(input.cardDestinations ?? []);
  if (!cardDestinations.ok) return cardDestinations;
  return {
    ok: true,
    value: { pages, scripts, inline, frames: frames.value, cardDestinations: cardDestinations.value },
  };
}

/**
 * What makes an entry answered for: its justification ({@link parseJustification}; `justify` says
 * what to write when it is missing) and its owner, trimmed, refused when blank, absent when not
 * given; a problem at its field through `at`.
 */
function accountable(
  input: { justification?: string; owner?: string },
  justify: string,
  at: (field: string, error: RuleError) => { ok: false; error: InventoryError },
): { ok: true; value: { justification: string; owner?: string } } | { ok: false; error: InventoryError } {
  if (input.justification === undefined)
    return at('justification', missing(`the justification is missing; ${justify}`));
  const justification = parseJustification(input.justification);
  if (!justification.ok) return at('justification', justification.error);
  const owner = input.owner?.trim();
  if (owner === '')
    return at(
      'owner',
      failure('owner', input.owner ?? '', 0, 'it is blank; name the person or team, or leave the owner out').error,
    );
  return { ok: true, value: { justification: justification.value, ...(owner !== undefined ? { owner } : {}) } };
}

/** The frames: each a prefix with a justification, no prefix twice. */
function parseFrames(
  input: readonly FrameEntryInput[],
): { ok: true; value: FrameEntry[] } | { ok: false; error: InventoryError } {
  const frames: FrameEntry[] = [];
  const seen = new Map<string, number>();
  for (const [index, written] of input.entries()) {
    const label = `frames[${index}]${written.prefix !== undefined ? ` (prefix ${quoteForMessage(written.prefix)})` : ''}`;
    const at = (field: string, error: RuleError) => located(['frames', index, field], label, error);
    if (written.prefix === undefined)
      return at(
        'prefix',
        missing("the prefix is missing; write the frames' URL prefix, as in https://js.pay.example/v3/"),
      );
    const address = parseFramePrefix(written.prefix);
    if (!address.ok) return at('prefix', address.error);
    const why = accountable(written, 'write why the frame is on the payment pages', at);
    if (!why.ok) return why;
    const key = matchKey('prefix', address.value);
    const earlier = seen.get(key);
    if (earlier !== undefined)
      return at(
        'prefix',
        failure('frame prefix', written.prefix, 0, `it names the same frames as frames[${earlier}]; keep one entry`)
          .error,
      );
    seen.set(key, index);
    frames.push({ index, address: address.value, ...why.value });
  }
  return { ok: true, value: frames };
}

/** The card destinations: each a prefix, none twice. */
function parseCardDestinations(
  input: readonly string[],
): { ok: true; value: CardDestination[] } | { ok: false; error: InventoryError } {
  const destinations: CardDestination[] = [];
  for (const [index, text] of input.entries()) {
    const label = `cardDestinations[${index}]`;
    const destination = parseCardDestination(text);
    if (!destination.ok) return located(['cardDestinations', index], label, destination.error);
    const earlier = destinations.find((other) => other.text === destination.value.text);
    if (earlier !== undefined)
      return located(
        ['cardDestinations', index],
        label,
        failure('card destination', text, 0, `it is cardDestinations[${earlier.index}]; keep one`).error,
      );
    destinations.push({ index, ...destination.value });
  }
  return { ok: true, value: destinations };
}

function parseEntry(
  input: ScriptEntryInput,
  index: number,
): { ok: true; value: ScriptEntry | (InlineEntry & { kind: 'inline' }) } | { ok: false; error: InventoryError } {
  const label = entryLabel(index, input);
  const at = (field: string, error: RuleError) => located(['scripts', index, field], label, error);
  if (input.inline !== undefined) {
    const other = input.url !== undefined ? 'url' : input.prefix !== undefined ? 'prefix' : undefined;
    if (other !== undefined)
      return at(
        other,
        failure(
          'script entry',
          input[other] ?? '',
          0,
          `an entry is inline, a url or a prefix, one of them; make them two entries, each with its justification`,
        ).error,
      );
    if (input.hash !== undefined)
      return at(
        'hash',
        failure('hash', input.hash, 0, 'an inline entry is pinned by its own hash already; remove hash').error,
      );
    const hash = parseInlineHash(input.inline);
    if (!hash.ok) return at('inline', hash.error);
    const why = accountable(input, JUSTIFY, at);
    return why.ok ? { ok: true, value: { kind: 'inline', index, ...hash.value, ...why.value } } : why;
  }
  if (input.url !== undefined && input.prefix !== undefined) {
    return at(
      'prefix',
      failure(
        'script entry',
        input.prefix,
        0,
        'an entry has a url or a prefix, not both; make them two entries, each with its justification',
      ).error,
    );
  }
  const kind = input.url !== undefined ? 'url' : 'prefix';
  const text = input.url ?? input.prefix;
  if (text === undefined) {
    return at(
      'url',
      missing(
        "it has neither a url, a prefix nor an inline hash; give a url for one script (https://cdn.example.com/app.js), a prefix for every script under a path (https://cdn.example.com/js/) or the hash of an inline script ('sha256-<base64>')",
      ),
    );
  }
  const address = parseScriptAddress(text, kind);
  if (!address.ok) return at(kind, address.error);
  const why = accountable(input, JUSTIFY, at);
  if (!why.ok) return why;
  const common = { index, address: address.value, ...why.value };
  if (kind === 'prefix') {
    if (input.hash !== undefined) {
      return at(
        'hash',
        failure(
          'hash',
          input.hash,
          0,
          'only a url entry pins a hash: a prefix covers scripts of many versions; make this script a url entry to pin it',
        ).error,
      );
    }
    return { ok: true, value: { kind, prefix: address.value.text, ...common } };
  }
  if (input.hash === undefined) return { ok: true, value: { kind, url: address.value.text, ...common } };
  const hash = parseScriptHash(input.hash);
  if (!hash.ok) return at('hash', hash.error);
  return { ok: true, value: { kind, url: address.value.text, hash: hash.value, ...common } };
}

/** A problem that is something left out rather than some text: its message is the reason alone. */
function missing(reason: string): RuleError {
  return { part: '', position: 0, reason, message: reason };
}

/** How messages name an entry: its index, and its url or prefix as written. */
function entryLabel(index: number, input: ScriptEntryInput): string {
  const named =
    input.url !== undefined
      ? ` (url ${quoteForMessage(input.url)})`
      : input.prefix !== undefined
        ? ` (prefix ${quoteForMessage(input.prefix)})`
        : input.inline !== undefined
          ? ` (inline ${quoteForMessage(input.inline)})`
          : '';
  return `scripts[${index}]${named}`;
}

/** A problem of a part of the inventory, its message led by the part's name. */
function located(path: Array<string | number>, label: string, error: RuleError): { ok: false; error: InventoryError } {
  return { ok: false, error: { ...error, path, message: `${label}: ${error.message}` } };
}

/**
 * What makes two entries the same, and what a detected URL is looked up by: the origin, the decoded
 * path and, for a url, the query. JSON keeps the parts apart, as a decoded path may hold any
 * character.
 */
export function matchKey(kind: 'url' | 'prefix', address: Pick<ScriptAddress, 'origin' | 'path' | 'query'>): string {
  return JSON.stringify(
    kind === 'url' ? [address.origin, address.path, address.query] : [address.origin, address.path],
  );
}

/**
 * The inventory's page that `pageUrl` is on, as page security gives pages (`first_page_url`,
 * `page_urls`): with or without its `http:`/`https:` scheme. Hosts compare case-insensitively and
 * on any port; paths case-sensitively (URL paths are), percent-decoded, by whole segments. When
 * several pages hold it, the one with the longest path.
 *
 * @returns the page, or `undefined` when the URL is on none of them or is no web URL.
 */
export function inventoryPageOf(inventory: ScriptInventory, pageUrl: string): InventoryPage | undefined {
  const scheme = SCHEME.exec(pageUrl)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https') return undefined;
  let url: URL;
  try {
    url = new URL(scheme === undefined ? `https://${pageUrl}` : pageUrl);
  } catch {
    return undefined;
  }
  const path = decodePath(url.pathname);
  let found: InventoryPage | undefined;
  for (const page of inventory.pages) {
    if (
      page.host === url.hostname &&
      (page.path === '' || path === page.path || path.startsWith(`${page.path}/`)) &&
      (found === undefined || page.path.length > found.path.length)
    ) {
      found = page;
    }
  }
  return found;
}

/** An inventory's entries arranged for lookup: url entries by their key, prefixes by origin, longest first. */
interface EntryIndex {
  urls: Map<string, ScriptEntry>;
  prefixes: Map<string, ScriptEntry[]>;
}

/** Built once per inventory: the review looks up every detected script of a zone. */
const indexes = new WeakMap<ScriptInventory, EntryIndex>();

function indexOf(inventory: ScriptInventory): EntryIndex {
  let index = indexes.get(inventory);
  if (index === undefined) {
    index = { urls: new Map(), prefixes: new Map() };
    for (const entry of inventory.scripts) {
      if (entry.kind === 'url') {
        index.urls.set(matchKey('url', entry.address), entry);
      } else {
        const list = index.prefixes.get(entry.address.origin) ?? [];
        list.push(entry);
        index.prefixes.set(entry.address.origin, list);
      }
    }
    for (const list of index.prefixes.values()) list.sort((a, b) => b.address.path.length - a.address.path.length);
    indexes.set(inventory, index);
  }
  return index;
}

/**
 * The entry that authorizes a script at `scriptUrl` (absolute, as page security reports it), the
 * most specific one: the `url` entry of that URL and query (the fragment does not count), else the
 * prefix entry with the longest path the URL's path starts with (same origin: scheme, host, port).
 *
 * @returns the entry, or `undefined` when none authorizes it (or the URL cannot be read).
 */
export function authorizingEntry(inventory: ScriptInventory, scriptUrl: string): ScriptEntry | undefined {
  let url: URL;
  try {
    url = new URL(scriptUrl);
  } catch {
    return undefined;
  }
  const address = { origin: url.origin, path: decodePath(url.pathname), query: url.search };
  const index = indexOf(inventory);
  const exact = index.urls.get(matchKey('url', address));
  if (exact !== undefined) return exact;
  return index.prefixes.get(address.origin)?.find((entry) => isUnderPrefix(entry.address, address));
}

/** A URL reduced to what the prefix rule compares: its origin and its percent-decoded path. */
export type PrefixAddress = Pick<ScriptAddress, 'origin' | 'path'>;

/**
 * The origin and percent-decoded path of the absolute URL `text`, as {@link isUnderPrefix} compares
 * them; `undefined` when it is no URL, or one without an origin (`data:`, `blob:`).
 */
export function prefixAddressOf(text: string): PrefixAddress | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  return url.origin === 'null' ? undefined : { origin: url.origin, path: decodePath(url.pathname) };
}

/**
 * The one prefix rule of the package: an inventory's prefix entries, and the scripts and
 * connections the review's configuration accepts by prefix. A URL is under a prefix when both have
 * the same origin (scheme, host and port, so `https://cdn.example.com` is no prefix of
 * `https://cdn.example.com.evil.net/x.js`) and the URL's path starts with the prefix's, both
 * percent-decoded.
 */
export function isUnderPrefix(prefix: PrefixAddress, url: PrefixAddress): boolean {
  return url.origin === prefix.origin && url.path.startsWith(prefix.path);
}

/**
 * The `script-src` sources that allow what the inventory authorizes, as one space-separated string
 * in the canonical order of `normalizeCspValue`: each url entry's URL without its query, each
 * prefix entry's prefix; a source another one already allows (a url under a prefix) is left out;
 * `'none'` for an inventory without entries, which authorizes nothing.
 *
 * Exactly what the inventory authorizes, with two limits CSP sets: a source has no query, so url
 * entries differing only in their query give one source, which allows that path with any query;
 * and a url whose path ends in `/` (`https://js.stripe.com/v3/`) is, as a source, a path prefix
 * that allows everything under it. Page security's detection, judged by {@link authorizingEntry},
 * catches a script loaded through either.
 */
export function cspSources(inventory: ScriptInventory): string {
  const addresses = inventory.scripts.map((entry) => entry.address);
  const kept = addresses.filter(
    (address) =>
      !addresses.some(
        (other) =>
          other.origin === address.origin &&
          other.path.endsWith('/') &&
          other.path !== address.path &&
          address.path.startsWith(other.path),
      ),
  );
  const hashes = (inventory.inline ?? []).map((entry) => entry.cspSource);
  if (kept.length === 0 && hashes.length === 0) return "'none'";
  const directive = 'script-src';
  return normalizeCspValue(`${directive} ${[...hashes, ...kept.map((address) => address.cspSource)].join(' ')}`).slice(
    directive.length + 1,
  );
}

/**
 * The `inline` entry that authorizes an inline script (or code given to `eval`) whose text has the
 * SHA-256 `hex` (lowercase hexadecimal), or `undefined`.
 */
export function authorizingInline(inventory: ScriptInventory, hex: string): InlineEntry | undefined {
  return inventory.inline?.find((entry) => entry.hex === hex.toLowerCase());
}

/** The frame entry whose prefix holds `frameUrl` by the one prefix rule ({@link isUnderPrefix}), the longest first, or `undefined`. */
export function authorizingFrame(inventory: ScriptInventory, frameUrl: string): FrameEntry | undefined {
  const address = prefixAddressOf(frameUrl);
  if (address === undefined) return undefined;
  return (inventory.frames ?? [])
    .filter((frame) => isUnderPrefix(frame.address, address))
    .sort((a, b) => b.address.path.length - a.address.path.length)[0];
}

/**
 * The card destination `url` is under (its origin, and its text without the fragment starting with
 * the destination's), or `undefined` when a card number sent there leaves what the inventory allows.
 */
export function cardDestinationOf(inventory: ScriptInventory, target: string): CardDestination | undefined {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  url.hash = '';
  return (inventory.cardDestinations ?? []).find(
    (destination) => destination.origin === url.origin && url.href.startsWith(destination.text),
  );
}
