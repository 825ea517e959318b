/**
 * The `value` of a CSP policy (spec 2.6): Content Security Policy fetch directives such as
 * `script-src 'self' cdn.example.com https://js.example.net/app.js`.
 *
 * Parsing follows the source grammar of CSP Level 3 (https://www.w3.org/TR/CSP3/#framework-directive-source-list),
 * stricter in a few places where the grammar accepts text that is almost always a typing mistake
 * (an unquoted `self`, a comma between sources); each such place says why.
 */

import { findLabelProblem, HOSTNAME_MAX_LENGTH } from './hostname';
import { failure, quoteForMessage, RuleViolation, unwrap, type ParseResult } from './result';

/** The CSP Level 3 fetch directives a policy value may hold. */
export const CSP_FETCH_DIRECTIVES = [
  'script-src',
  'script-src-elem',
  'script-src-attr',
  'style-src',
  'style-src-elem',
  'style-src-attr',
  'img-src',
  'connect-src',
  'font-src',
  'object-src',
  'media-src',
  'frame-src',
  'child-src',
  'worker-src',
  'manifest-src',
  'default-src',
] as const;

/** A fetch directive name, lowercase. */
export type CspDirectiveName = (typeof CSP_FETCH_DIRECTIVES)[number];

/** The CSP Level 3 keyword sources, without quotes, in the order {@link normalizeCspValue} sorts them. */
export const CSP_KEYWORDS = [
  'self',
  'none',
  'unsafe-inline',
  'unsafe-eval',
  'strict-dynamic',
  'unsafe-hashes',
  'report-sample',
  'unsafe-allow-redirects',
  'wasm-unsafe-eval',
] as const;

/** A keyword source, lowercase and without its quotes. */
export type CspKeyword = (typeof CSP_KEYWORDS)[number];

/** The hash algorithms of hash sources (CSP3 accepts exactly these). */
export const CSP_HASH_ALGORITHMS = ['sha256', 'sha384', 'sha512'] as const;

/** The algorithm of a hash source. */
export type CspHashAlgorithm = (typeof CSP_HASH_ALGORITHMS)[number];

/** The digest length in bytes of each algorithm, which a hash source's base64 must decode to. */
export const CSP_HASH_LENGTHS: Readonly<Record<CspHashAlgorithm, number>> = { sha256: 32, sha384: 48, sha512: 64 };

/** One source of a directive's source list; `kind` tells which form it was written in. */
export type CspSource =
  /** A quoted keyword such as `'self'`. */
  | { kind: 'keyword'; keyword: CspKeyword }
  /** `'nonce-<value>'`; `value` keeps its case, as nonces are compared exactly. */
  | { kind: 'nonce'; value: string }
  /** `'sha256-<base64>'` and the like; `value` is the digest text as written. */
  | { kind: 'hash'; algorithm: CspHashAlgorithm; value: string }
  /** A scheme source such as `https:`; `scheme` is lowercase, without the colon. */
  | { kind: 'scheme'; scheme: string }
  /**
   * A host source `[scheme://]host[:port][path]`, which includes full URLs. `scheme` and `host`
   * are lowercase; `host` may be `*` or start with `*.`; `port` is absent for the scheme's
   * default; `path` keeps its case, as URL paths are case-sensitive.
   */
  | { kind: 'host'; scheme?: string; host: string; port?: number | '*'; path?: string };

/** One directive of a policy value. */
export interface CspDirective {
  /** The directive name, lowercased (CSP directive names are case-insensitive). */
  name: CspDirectiveName;
  /** The sources in the order written; never empty. */
  sources: CspSource[];
}

/**
 * Directives that exist in CSP but are not fetch directives, so a user who writes one gets told
 * why it is refused instead of "unknown directive".
 */
const OTHER_DIRECTIVES = new Set([
  'base-uri',
  'block-all-mixed-content',
  'fenced-frame-src',
  'form-action',
  'frame-ancestors',
  'navigate-to',
  'plugin-types',
  'prefetch-src',
  'report-to',
  'report-uri',
  'require-sri-for',
  'require-trusted-types-for',
  'sandbox',
  'trusted-types',
  'upgrade-insecure-requests',
  'webrtc',
]);

/** CSP splits on ASCII whitespace only; other spaces are characters of a token, and get reported. */
const ASCII_SPACE = /[\t\n\f\r ]/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
/** base64-value of CSP3: base64 or base64url characters, at most two `=` of padding. */
const BASE64_VALUE = /^[A-Za-z0-9+/_-]+={0,2}$/;
/** The path characters of RFC 3986 (pchar and "/"), less `;` `,` and `'`, which CSP reserves. */
const PATH_CHARACTER = /^[A-Za-z0-9\-._~!$&()*+=:@/]$/;
/** Schemes people write; used only to word the error for `https:x.com`. */
const COMMON_SCHEMES = new Set(['http', 'https', 'ws', 'wss', 'ftp', 'data', 'blob']);

interface Token {
  text: string;
  position: number;
}

/**
 * Parses a CSP policy value into its directives.
 *
 * Grammar: directives separated by `;` (empty ones, such as after a trailing `;`, are skipped as
 * CSP does); each is a fetch directive name (case-insensitive) followed by at least one source,
 * separated by ASCII whitespace. A repeated directive is refused, because browsers silently ignore
 * the second one, which is never what the author meant.
 *
 * @returns the directives in the order written, or the first problem with the offending directive
 *   name or source and its position.
 */
export function parseCspValue(text: string): ParseResult<CspDirective[]> {
  const directives: CspDirective[] = [];
  const seen = new Map<string, number>();
  for (const segment of splitDirectives(text)) {
    const [nameToken, ...sourceTokens] = tokenize(segment);
    if (nameToken === undefined) {
      continue;
    }
    const name = parseDirectiveName(nameToken);
    if (!name.ok) {
      return name;
    }
    const earlier = seen.get(name.value);
    if (earlier !== undefined) {
      return failure(
        'directive',
        nameToken.text,
        nameToken.position,
        `${name.value} is already given at position ${earlier}; merge the sources into one directive`,
      );
    }
    seen.set(name.value, nameToken.position);
    if (sourceTokens.length === 0) {
      return failure(
        'directive',
        nameToken.text,
        nameToken.position,
        `${name.value} has no sources; give at least one, or 'none' to allow nothing`,
      );
    }
    const sources: CspSource[] = [];
    for (const token of sourceTokens) {
      const source = parseSource(token.text);
      if (typeof source === 'string') {
        return failure('source', token.text, token.position, source);
      }
      sources.push(source);
    }
    const none = sourceTokens.find((token) => token.text.toLowerCase() === "'none'");
    if (none && sources.some((source) => !(source.kind === 'keyword' && source.keyword === 'none'))) {
      return failure(
        'source',
        none.text,
        none.position,
        `'none' must be the only source of ${name.value}; remove it or the other sources`,
      );
    }
    directives.push({ name: name.value, sources });
  }
  if (directives.length === 0) {
    return failure('CSP value', '', 0, `the value has no directive; write at least one, such as script-src 'self'`);
  }
  return { ok: true, value: directives };
}

function splitDirectives(text: string): Token[] {
  const segments: Token[] = [];
  let start = 0;
  for (const part of text.split(';')) {
    segments.push({ text: part, position: start });
    start += part.length + 1;
  }
  return segments;
}

function tokenize(segment: Token): Token[] {
  const tokens: Token[] = [];
  let start = -1;
  for (let i = 0; i <= segment.text.length; i += 1) {
    const atSpace = i === segment.text.length || ASCII_SPACE.test(segment.text.charAt(i));
    if (atSpace && start >= 0) {
      tokens.push({ text: segment.text.slice(start, i), position: segment.position + start });
      start = -1;
    } else if (!atSpace && start < 0) {
      start = i;
    }
  }
  return tokens;
}

function parseDirectiveName(token: Token): ParseResult<CspDirectiveName> {
  const name = token.text.toLowerCase();
  const known = CSP_FETCH_DIRECTIVES.find((directive) => directive === name);
  if (known) {
    return { ok: true, value: known };
  }
  let reason: string;
  if (name.includes(',')) {
    reason = 'directives are separated by ";", not commas';
  } else if (OTHER_DIRECTIVES.has(name)) {
    reason = `${name} is not a fetch directive; a policy value holds only fetch directives (${CSP_FETCH_DIRECTIVES.join(', ')})`;
  } else if (/['.:/*]/.test(name)) {
    reason = 'a directive must start with its name, such as script-src; is a ";" misplaced?';
  } else {
    const suggestion = closest(name, CSP_FETCH_DIRECTIVES);
    reason = suggestion
      ? `unknown directive; did you mean ${suggestion}?`
      : `unknown directive; use a fetch directive (${CSP_FETCH_DIRECTIVES.join(', ')})`;
  }
  return failure('directive', token.text, token.position, reason);
}

/** Parses one source token; returns the reason it is invalid as a string. */
function parseSource(token: string): CspSource | string {
  if (token.includes(',')) {
    return 'sources are separated by spaces and directives by ";", not commas';
  }
  if (token.startsWith("'")) {
    return parseQuotedSource(token);
  }
  if (token.startsWith('"')) {
    const inner = token.replace(/^"|"$/g, '');
    return `CSP uses single quotes, not double quotes (write '${inner}')`;
  }
  const bare = token.toLowerCase();
  if (token.includes("'")) {
    const inner = token.replace(/'/g, '');
    return isQuotedOnlyWord(inner.toLowerCase())
      ? `unbalanced quote: the closing quote has no opening one (write '${inner}')`
      : "a single quote is only allowed around a keyword, nonce or hash, as in 'self'";
  }
  // The grammar reads these as host names, but a host called "self" or "nonce-abc" is always a
  // forgotten pair of quotes, and the browser would silently allow nothing useful.
  if (isQuotedOnlyWord(bare)) {
    return `keywords, nonces and hashes must be in single quotes (write '${token}')`;
  }
  // The grammar allows dots in a scheme, but `cdn.example.com:` is a host whose port was
  // forgotten far more often than a scheme, so dotted ones are read (and refused) as hosts.
  if (token.endsWith(':') && SCHEME.test(token.slice(0, -1)) && !token.includes('.')) {
    return { kind: 'scheme', scheme: bare.slice(0, -1) };
  }
  return parseHostSource(token);
}

function isQuotedOnlyWord(word: string): boolean {
  return (
    CSP_KEYWORDS.some((keyword) => keyword === word) ||
    (/^(nonce|sha256|sha384|sha512)-/.test(word) && !word.includes('.'))
  );
}

function parseQuotedSource(token: string): CspSource | string {
  if (token === "'") {
    return "a lone single quote; quotes wrap a keyword, nonce or hash, as in 'self'";
  }
  if (!token.endsWith("'")) {
    return `unbalanced quote: the opening quote is never closed (write ${token}')`;
  }
  const inner = token.slice(1, -1);
  if (inner.includes("'")) {
    return 'unbalanced quotes: a quoted source holds no quote inside; separate sources with spaces';
  }
  if (inner === '') {
    return "empty quotes; a quoted source is a keyword such as 'self', a nonce or a hash";
  }
  const lower = inner.toLowerCase();
  const keyword = CSP_KEYWORDS.find((candidate) => candidate === lower);
  if (keyword) {
    return { kind: 'keyword', keyword };
  }
  if (lower.startsWith('nonce-')) {
    const value = inner.slice('nonce-'.length);
    if (!BASE64_VALUE.test(value)) {
      return 'a nonce must be base64 or base64url text after "nonce-"';
    }
    return { kind: 'nonce', value };
  }
  const algorithm = CSP_HASH_ALGORITHMS.find((candidate) => lower.startsWith(`${candidate}-`));
  if (algorithm) {
    return parseHash(algorithm, inner.slice(algorithm.length + 1));
  }
  if (/^(nonce|sha256|sha384|sha512)$/.test(lower)) {
    return `${lower} needs its value after a hyphen, as in '${lower}-...'`;
  }
  if (/^sha\d*-/.test(lower)) {
    return 'unsupported hash algorithm; use sha256, sha384 or sha512';
  }
  const suggestion = closest(lower, CSP_KEYWORDS);
  return suggestion
    ? `unknown keyword; did you mean '${suggestion}'?`
    : `unknown keyword; the keywords are ${CSP_KEYWORDS.map((k) => `'${k}'`).join(' ')}, or use 'nonce-...' or 'sha256-...'`;
}

function parseHash(algorithm: CspHashAlgorithm, value: string): CspSource | string {
  if (!BASE64_VALUE.test(value)) {
    return `a ${algorithm} hash must be base64 text after "${algorithm}-"`;
  }
  const digits = value.replace(/=+$/, '').length;
  // Base64 carries 6 bits per digit, so one digit past a group of four cannot end a byte.
  if (digits % 4 === 1 || (digits < value.length && value.length % 4 !== 0)) {
    return `the ${algorithm} hash is not valid base64: its length or padding is wrong`;
  }
  const bytes = Math.floor((digits * 6) / 8);
  const expected = CSP_HASH_LENGTHS[algorithm];
  if (bytes !== expected) {
    const encoded = Math.ceil(expected / 3) * 4;
    return `a ${algorithm} hash is ${expected} bytes (${encoded} base64 characters with padding), but this one decodes to ${bytes}`;
  }
  return { kind: 'hash', algorithm, value };
}

function parseHostSource(token: string): CspSource | string {
  let rest = token;
  let scheme: string | undefined;
  const withScheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(token);
  if (withScheme) {
    scheme = (withScheme[1] ?? '').toLowerCase();
    rest = token.slice(withScheme[0].length);
  } else {
    // No dot in the scheme here, so that `cdn.example.com//a.js` is reported as a bad path instead.
    const broken = /^([A-Za-z][A-Za-z0-9+-]*)(\/\/|:\/(?!\/))(.*)$/.exec(token);
    if (broken) {
      return `a scheme must be followed by "://" (write ${broken[1] ?? ''}://${broken[3] ?? ''})`;
    }
  }
  if (rest.startsWith('[')) {
    return 'CSP host sources cannot be IPv6 addresses; use a host name';
  }
  if (rest.startsWith('/')) {
    return scheme
      ? `the host is missing after ${scheme}://`
      : 'a source cannot start with "/"; write the host, as in cdn.example.com or https://cdn.example.com/path';
  }

  const hostEnd = rest.search(/[:/]/);
  const host = hostEnd < 0 ? rest : rest.slice(0, hostEnd);
  rest = hostEnd < 0 ? '' : rest.slice(hostEnd);

  let port: number | '*' | undefined;
  if (rest.startsWith(':')) {
    const portEnd = rest.indexOf('/');
    const portText = portEnd < 0 ? rest.slice(1) : rest.slice(1, portEnd);
    rest = portEnd < 0 ? '' : rest.slice(portEnd);
    if (portText === '*') {
      port = '*';
    } else if (/^[0-9]+$/.test(portText)) {
      port = Number(portText);
      if (port < 1 || port > 65535) {
        return `the port ${portText} is out of range; a port is 1 to 65535, or * for any`;
      }
    } else if (scheme === undefined && COMMON_SCHEMES.has(host.toLowerCase())) {
      return `a scheme must be followed by "://" (write ${host}://${portText}${rest})`;
    } else if (portText === '') {
      return 'the port is missing after ":"; remove the ":" or give a port';
    } else {
      return `the port ${quoteForMessage(portText)} is not a number; a port is 1 to 65535, or * for any`;
    }
  }

  const hostProblem = checkHost(host);
  if (hostProblem) {
    return hostProblem;
  }
  const pathProblem = rest === '' ? undefined : checkPath(rest);
  if (pathProblem) {
    return pathProblem;
  }

  const source: CspSource = { kind: 'host', host: host.toLowerCase() };
  if (scheme !== undefined) {
    source.scheme = scheme;
  }
  if (port !== undefined) {
    source.port = port;
  }
  if (rest !== '') {
    source.path = rest;
  }
  return source;
}

function checkHost(host: string): string | undefined {
  if (host === '') {
    return 'the host is missing';
  }
  if (host === '*') {
    return undefined;
  }
  if (host.length > HOSTNAME_MAX_LENGTH) {
    return `the host is ${host.length} characters long; a host has at most ${HOSTNAME_MAX_LENGTH}`;
  }
  if (host === '*.') {
    return 'a wildcard must be followed by a domain, as in *.example.com';
  }
  const labels = host.startsWith('*.') ? host.slice(2) : host;
  if (host.startsWith('*') && !host.startsWith('*.')) {
    return 'a wildcard must be a whole label followed by a dot, as in *.example.com';
  }
  const problem = findLabelProblem(labels, 'a wildcard "*" can only be the whole first label, as in *.example.com');
  return problem?.reason;
}

function checkPath(path: string): string | undefined {
  if (path.startsWith('//')) {
    return 'the path cannot start with "//"';
  }
  for (let i = 0; i < path.length; i += 1) {
    const ch = path.charAt(i);
    if (ch === '%') {
      if (!/^%[0-9A-Fa-f]{2}/.test(path.slice(i))) {
        return 'a "%" in the path must start a percent-encoded byte such as %20';
      }
      continue;
    }
    if (ch === '?' || ch === '#') {
      return `a source cannot hold a query or fragment ("${ch}..."); scripts are matched by path only`;
    }
    if (!PATH_CHARACTER.test(ch)) {
      return `the character ${quoteForMessage(ch)} is not allowed in a path; percent-encode it`;
    }
  }
  return undefined;
}

/** The candidate within two edits of `word`, so a typing mistake gets a "did you mean". */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The canonical text of one source: quotes around keywords, nonces and hashes; scheme and host
 * lowercase; port only when given; path with its case kept.
 */
export function formatCspSource(source: CspSource): string {
  switch (source.kind) {
    case 'keyword':
      return `'${source.keyword}'`;
    case 'nonce':
      return `'nonce-${source.value}'`;
    case 'hash':
      return `'${source.algorithm}-${source.value}'`;
    case 'scheme':
      return `${source.scheme}:`;
    case 'host': {
      const scheme = source.scheme === undefined ? '' : `${source.scheme}://`;
      const port = source.port === undefined ? '' : `:${source.port}`;
      return `${scheme}${source.host}${port}${source.path ?? ''}`;
    }
  }
}

/** Sort group of each source kind in the canonical form. */
const KIND_ORDER: Record<CspSource['kind'], number> = { keyword: 0, nonce: 1, hash: 1, scheme: 2, host: 3 };

function compareSources(a: CspSource, b: CspSource): number {
  const group = KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  if (group !== 0) {
    return group;
  }
  if (a.kind === 'keyword' && b.kind === 'keyword') {
    return CSP_KEYWORDS.indexOf(a.keyword) - CSP_KEYWORDS.indexOf(b.keyword);
  }
  // Code-unit order rather than localeCompare, so the result does not depend on the machine's locale.
  const left = formatCspSource(a);
  const right = formatCspSource(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * The canonical form of a policy value, which the provider compares to decide whether a value
 * changed: two values that differ only in whitespace, source order, repeated sources or the case
 * of directive names, keywords, schemes and hosts give the same text.
 *
 * Directives stay in the order given (reordering them is a visible edit a user may want to see);
 * within each, sources are deduplicated and sorted: keywords in the order of {@link CSP_KEYWORDS},
 * then nonces and hashes, then schemes, then hosts, each group in code-unit order of its text.
 * Sources are separated by single spaces and directives by `"; "`, with no trailing `;`.
 *
 * @throws {@link RuleViolation} when `text` is not a valid value; validate with
 *   {@link parseCspValue} first to report the problem to a user.
 */
export function normalizeCspValue(text: string): string {
  return unwrap(parseCspValue(text))
    .map((directive) => {
      const unique = new Map<string, CspSource>();
      for (const source of [...directive.sources].sort(compareSources)) {
        unique.set(formatCspSource(source), source);
      }
      return [directive.name, ...unique.keys()].join(' ');
    })
    .join('; ');
}

/** Default ports of the schemes scripts are fetched over; other schemes have none. */
const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443, ws: 80, wss: 443, ftp: 21 };

/**
 * Whether a policy allows a script URL loaded by a page, with the allow semantics of spec 2.6.
 *
 * The source list used is the first present of `script-src-elem`, `script-src`, `default-src`
 * (the browser's order for a script loaded by a `<script>` element, which is how detected scripts
 * arrive); with none of them, nothing restricts scripts and the result is `true`.
 *
 * A script is allowed when one source matches it:
 * - `'self'`: same scheme and hostname as the page. Spec 2.6 defines the origin it allows as "same
 *   scheme and hostname", so the port is not compared (CSP3 would also compare it).
 * - a scheme source (`https:`): any URL of that scheme; as in CSP3, `http:` also allows `https:`
 *   and `ws:` allows `wss:`, since an upgrade to a secure scheme never loosens a policy.
 * - a host source: the host exactly (a bare `example.com` allows neither `www.example.com` nor,
 *   for `www.example.com`, its parent domain); `*.example.com` any subdomain but not
 *   `example.com` itself; `*` any host over http(s) or the page's scheme. Without a scheme, the
 *   script must use the page's scheme, or https when the page uses http. Without a port, the
 *   script must use its scheme's default port; `*` allows any port. A path allows exactly that
 *   path, or everything under it when it ends in `/`; the query is ignored.
 * - `'none'`, nonces, hashes and the other keywords never allow a script by its URL alone.
 *
 * @param scriptUrl - the script's URL; a relative URL is resolved against `pageUrl`. A URL that
 *   cannot be parsed is not allowed.
 * @param pageUrl - the absolute URL of the page loading the script ('self' and scheme-less hosts
 *   are relative to it).
 * @throws {@link RuleViolation} when `pageUrl` is not an absolute URL, since no source can be
 *   judged without it and the caller is expected to pass a URL it has already checked.
 */
export function cspAllowsScript(directives: readonly CspDirective[], scriptUrl: string, pageUrl: string): boolean {
  let page: URL;
  try {
    page = new URL(pageUrl);
  } catch {
    throw new RuleViolation({
      part: pageUrl,
      position: 0,
      reason: 'the page URL is not an absolute URL',
      message: `invalid page URL ${quoteForMessage(pageUrl)} at position 0: the page URL is not an absolute URL`,
    });
  }
  if (governingDirective(directives, 'script') === undefined) {
    return true;
  }
  let script: URL;
  try {
    script = new URL(scriptUrl, page);
  } catch {
    return false;
  }
  return cspAllowsUrl(directives, 'script', script, page);
}

/**
 * What a page fetches that a policy judges by its URL: a script loaded by a `<script>` element
 * (spec 2.3) or an outgoing connection such as `fetch`, XHR, WebSocket or a beacon (spec 2.4).
 */
export type CspFetchKind = 'script' | 'connection';

/**
 * The directives that govern each kind of fetch, most specific first (the browser's order):
 * `script-src-elem`, `script-src`, `default-src` for a script; `connect-src`, `default-src` for a
 * connection.
 */
export const GOVERNING_DIRECTIVES: Readonly<Record<CspFetchKind, readonly CspDirectiveName[]>> = {
  script: ['script-src-elem', 'script-src', 'default-src'],
  connection: ['connect-src', 'default-src'],
};

/**
 * The directive whose sources govern a fetch of `kind`: the first present of
 * {@link GOVERNING_DIRECTIVES}, or `undefined` when nothing restricts it.
 */
export function governingDirective(directives: readonly CspDirective[], kind: CspFetchKind): CspDirective | undefined {
  // Loops rather than map and find: the review calls this for every detected item it judges.
  for (const name of GOVERNING_DIRECTIVES[kind]) {
    for (const directive of directives) if (directive.name === name) return directive;
  }
  return undefined;
}

/**
 * Whether a policy allows a fetch of `kind` to `url` from `page`, for URLs already parsed: the
 * rules of {@link cspAllowsScript} applied to the directive that governs `kind`
 * ({@link governingDirective}), for a caller that judges many detected items and pages (the
 * review of a zone's detected scripts and connections) and parses each URL once.
 */
export function cspAllowsUrl(directives: readonly CspDirective[], kind: CspFetchKind, url: URL, page: URL): boolean {
  const directive = governingDirective(directives, kind);
  if (directive === undefined) {
    return true;
  }
  return directive.sources.some((source) => sourceMatches(source, url, page));
}

function schemeOf(url: URL): string {
  return url.protocol.slice(0, -1);
}

function effectivePort(url: URL): number | undefined {
  return url.port === '' ? DEFAULT_PORTS[schemeOf(url)] : Number(url.port);
}

/** CSP3 "scheme-part match": equal, or `url` upgrades `expected` to its secure counterpart. */
function schemeMatches(expected: string, actual: string): boolean {
  return (
    expected === actual ||
    (expected === 'http' && actual === 'https') ||
    (expected === 'ws' && (actual === 'wss' || actual === 'http' || actual === 'https')) ||
    (expected === 'wss' && actual === 'https')
  );
}

function sourceMatches(source: CspSource, script: URL, page: URL): boolean {
  switch (source.kind) {
    case 'keyword':
      return (
        source.keyword === 'self' &&
        script.hostname !== '' &&
        script.protocol === page.protocol &&
        script.hostname === page.hostname
      );
    case 'nonce':
    case 'hash':
      return false;
    case 'scheme':
      return schemeMatches(source.scheme, schemeOf(script));
    case 'host':
      return hostSourceMatches(source, script, page);
  }
}

function hostSourceMatches(source: Extract<CspSource, { kind: 'host' }>, script: URL, page: URL): boolean {
  const scheme = schemeOf(script);
  if (source.host === '*' && source.scheme === undefined && source.port === undefined && source.path === undefined) {
    // CSP3 gives a lone "*" its own rule: any host, but only over the web schemes or the page's own.
    return scheme === 'http' || scheme === 'https' || scheme === schemeOf(page);
  }
  if (script.hostname === '') {
    return false;
  }
  if (!schemeMatches(source.scheme ?? schemeOf(page), scheme)) {
    return false;
  }
  if (source.host !== '*') {
    const matchesHost = source.host.startsWith('*.')
      ? script.hostname.endsWith(source.host.slice(1))
      : script.hostname === source.host;
    if (!matchesHost) {
      return false;
    }
  }
  // The URL class empties the port when it is the scheme's default, so an empty port is the
  // default one; an explicit port is compared against the script's port or its default.
  if (source.port === undefined ? script.port !== '' : source.port !== '*' && effectivePort(script) !== source.port) {
    return false;
  }
  if (source.path !== undefined) {
    const expected = decodePath(source.path);
    const actual = decodePath(script.pathname);
    return expected.endsWith('/') ? actual.startsWith(expected) : actual === expected;
  }
  return true;
}

/** Paths compare after percent-decoding (as CSP3 does), so `/a%20b.js` and `/a b.js` are one path. */
function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
