/**
 * The `value` of a CSP policy (spec 2.6): the directives the service accepts, such as
 * `script-src 'self' cdn.example.com https://js.example.net/app.js; frame-ancestors 'none'`.
 *
 * What the service accepts is narrower than CSP Level 3 (contract "Page security", from the
 * vendor's "Supported CSP directives"): sixteen directives, four keywords and hashes, no nonces,
 * at most 6,000 characters. Sources follow the source grammar of CSP Level 3
 * (https://www.w3.org/TR/CSP3/#framework-directive-source-list), stricter in a few places where
 * the grammar accepts text that is almost always a typing mistake (an unquoted `self`, a comma
 * between sources); each such place says why. What CSP has and the service refuses is refused by
 * name, saying what to write instead: this parser once took CSP3 whole, so programs may still hold
 * a nonce or a `script-src-elem`.
 */

import { findLabelProblem, HOSTNAME_MAX_LENGTH } from './hostname';
import { failure, quoteForMessage, unwrap, type ParseResult, type RuleError } from './result';

/** The directives a policy value may hold, in the order of the service's documentation. */
export const CSP_DIRECTIVES = [
  'script-src',
  'connect-src',
  'default-src',
  'img-src',
  'style-src',
  'font-src',
  'object-src',
  'media-src',
  'child-src',
  'form-action',
  'worker-src',
  'base-uri',
  'manifest-src',
  'frame-src',
  'frame-ancestors',
  'upgrade-insecure-requests',
] as const;

/** A directive name the service accepts, lowercase. */
export type CspDirectiveName = (typeof CSP_DIRECTIVES)[number];

/** The one directive that takes no sources. */
const SOURCELESS_DIRECTIVE: CspDirectiveName = 'upgrade-insecure-requests';

/** The keyword sources the service accepts, without quotes, in the order {@link normalizeCspValue} sorts them. */
export const CSP_KEYWORDS = ['self', 'none', 'unsafe-inline', 'unsafe-eval'] as const;

/** A keyword source, lowercase and without its quotes. */
export type CspKeyword = (typeof CSP_KEYWORDS)[number];

/** The longest value the service takes, in characters (UTF-16 code units) of the value as given. */
export const CSP_VALUE_MAX_LENGTH = 6000;

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
  /** The sources in the order written; empty only for `upgrade-insecure-requests`, which takes none. */
  sources: CspSource[];
}

/** Why the service refuses a reporting directive, and what to do instead. */
const REPORTING = 'the service adds its own reporting; remove it';

/** Why the service refuses `name`, followed by what to write instead when there is something. */
function unsupported(name: string, instead?: string): string {
  return `the service does not support ${name}${instead === undefined ? '' : `; ${instead}`}`;
}

/**
 * CSP directives the service refuses, each with the reason, so that a user who writes one learns
 * why and what to write instead rather than "unknown directive".
 */
const REFUSED_DIRECTIVES: ReadonlyMap<string, string> = new Map([
  ['report-uri', REPORTING],
  ['report-to', REPORTING],
  ['script-src-elem', unsupported('script-src-elem', 'write script-src')],
  ['script-src-attr', unsupported('script-src-attr', 'write script-src')],
  ['style-src-elem', unsupported('style-src-elem', 'write style-src')],
  ['style-src-attr', unsupported('style-src-attr', 'write style-src')],
  ['block-all-mixed-content', unsupported('block-all-mixed-content', 'write upgrade-insecure-requests')],
  ...[
    'sandbox',
    'trusted-types',
    'require-trusted-types-for',
    'prefetch-src',
    'navigate-to',
    'fenced-frame-src',
    'plugin-types',
    'require-sri-for',
    'webrtc',
    'referrer',
    'reflected-xss',
    'disown-opener',
  ].map((name): [string, string] => [name, unsupported(name)]),
]);

/** The reason a nonce is refused, as the vendor's FAQ words it. */
const NONCE_REFUSAL = 'the service does not support nonces; use a hash';

/** CSP keywords the service refuses, each with the reason and what to write instead. */
const REFUSED_KEYWORDS: ReadonlyMap<string, string> = new Map([
  ['strict-dynamic', unsupported("'strict-dynamic'", 'list the hosts the scripts come from')],
  ['report-sample', unsupported("'report-sample'", 'remove it (the service adds its own reporting)')],
  [
    'wasm-unsafe-eval',
    unsupported("'wasm-unsafe-eval'", "write 'unsafe-eval', which allows WebAssembly as well as eval()"),
  ],
  [
    'unsafe-hashes',
    unsupported(
      "'unsafe-hashes'",
      "move the inline event handlers into a script the policy allows, or write 'unsafe-inline'",
    ),
  ],
  ['unsafe-allow-redirects', unsupported("'unsafe-allow-redirects'", 'remove it (browsers ignore it)')],
  ['inline-speculation-rules', unsupported("'inline-speculation-rules'", 'remove it')],
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
 * Parses a CSP policy value into its directives, accepting what the service accepts.
 *
 * Grammar: at most {@link CSP_VALUE_MAX_LENGTH} characters; directives separated by `;` (empty
 * ones, such as after a trailing `;`, are skipped as CSP does); each is a name of
 * {@link CSP_DIRECTIVES} (case-insensitive) followed by its sources, separated by ASCII
 * whitespace: at least one, except `upgrade-insecure-requests`, which takes none. A repeated
 * directive is refused, because browsers silently ignore the second one, which is never what the
 * author meant.
 *
 * @returns the directives in the order written, or the first problem with the offending directive
 *   name or source and its position.
 */
export function parseCspValue(text: string): ParseResult<CspDirective[]> {
  if (text.length > CSP_VALUE_MAX_LENGTH) {
    return { ok: false, error: tooLong(text) };
  }
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
      const instead = name.value === SOURCELESS_DIRECTIVE ? 'remove this one' : 'merge the sources into one directive';
      return failure(
        'directive',
        nameToken.text,
        nameToken.position,
        `${name.value} is already given at position ${earlier}; ${instead}`,
      );
    }
    seen.set(name.value, nameToken.position);
    const [first] = sourceTokens;
    if (name.value === SOURCELESS_DIRECTIVE) {
      if (first !== undefined) {
        return failure('source', first.text, first.position, sourceAfterSourceless(first.text));
      }
    } else if (first === undefined) {
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

/**
 * The refusal of a value over the limit. The part is what lies past the limit; the message counts
 * it instead of quoting it, as it may be thousands of characters long.
 */
function tooLong(text: string): RuleError {
  const count = (n: number) => n.toLocaleString('en-US');
  const over = text.length - CSP_VALUE_MAX_LENGTH;
  const reason =
    `the value is ${count(text.length)} characters long and the service takes at most ${count(CSP_VALUE_MAX_LENGTH)}; ` +
    'shorten it, for example with one host source (cdn.example.com) or path (https://cdn.example.com/js/) ' +
    'instead of the full URLs of its scripts';
  return {
    part: text.slice(CSP_VALUE_MAX_LENGTH),
    position: CSP_VALUE_MAX_LENGTH,
    reason,
    message: `invalid CSP value (its last ${over === 1 ? 'character' : `${count(over)} characters`}) at position ${CSP_VALUE_MAX_LENGTH}: ${reason}`,
  };
}

/** Why a token after `upgrade-insecure-requests` is refused; a directive name there lacks its `;`. */
function sourceAfterSourceless(token: string): string {
  const lower = token.toLowerCase();
  return CSP_DIRECTIVES.some((name) => name === lower)
    ? `${SOURCELESS_DIRECTIVE} takes no sources; put a ";" before ${lower} to start another directive`
    : `${SOURCELESS_DIRECTIVE} takes no sources; remove it`;
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
  const known = CSP_DIRECTIVES.find((directive) => directive === name);
  if (known) {
    return { ok: true, value: known };
  }
  return failure('directive', token.text, token.position, REFUSED_DIRECTIVES.get(name) ?? unknownDirective(name));
}

/** Why `name`, neither accepted nor refused by name, is not a directive. */
function unknownDirective(name: string): string {
  if (name.includes(',')) {
    return 'directives are separated by ";", not commas';
  }
  if (/['.:/*]/.test(name)) {
    return 'a directive must start with its name, such as script-src; is a ";" misplaced?';
  }
  const suggestion = closest(name, CSP_DIRECTIVES);
  return suggestion
    ? `unknown directive; did you mean ${suggestion}?`
    : `unknown directive; the service supports ${CSP_DIRECTIVES.join(', ')}`;
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
      : "a single quote is only allowed around a keyword or hash, as in 'self'";
  }
  // The grammar reads these as host names, but a host called "self" or "nonce-abc" is always a
  // forgotten pair of quotes, and the browser would silently allow nothing useful. Quoting a
  // nonce or a keyword the service refuses would not help, so the refusal comes at once.
  if (isQuotedOnlyWord(bare)) {
    return refusedQuotedSource(bare) ?? `keywords and hashes must be in single quotes (write '${token}')`;
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
    REFUSED_KEYWORDS.has(word) ||
    (/^(nonce|sha256|sha384|sha512)-/.test(word) && !word.includes('.'))
  );
}

/** Why the service refuses a quoted source (lowercase, without its quotes) that CSP has: a nonce or a keyword. */
function refusedQuotedSource(lower: string): string | undefined {
  return lower === 'nonce' || lower.startsWith('nonce-') ? NONCE_REFUSAL : REFUSED_KEYWORDS.get(lower);
}

function parseQuotedSource(token: string): CspSource | string {
  if (token === "'") {
    return "a lone single quote; quotes wrap a keyword or a hash, as in 'self'";
  }
  if (!token.endsWith("'")) {
    return `unbalanced quote: the opening quote is never closed (write ${token}')`;
  }
  const inner = token.slice(1, -1);
  if (inner.includes("'")) {
    return 'unbalanced quotes: a quoted source holds no quote inside; separate sources with spaces';
  }
  if (inner === '') {
    return "empty quotes; a quoted source is a keyword such as 'self' or a hash";
  }
  const lower = inner.toLowerCase();
  const keyword = CSP_KEYWORDS.find((candidate) => candidate === lower);
  if (keyword) {
    return { kind: 'keyword', keyword };
  }
  const refused = refusedQuotedSource(lower);
  if (refused !== undefined) {
    return refused;
  }
  const algorithm = CSP_HASH_ALGORITHMS.find((candidate) => lower.startsWith(`${candidate}-`));
  if (algorithm) {
    return parseHash(algorithm, inner.slice(algorithm.length + 1));
  }
  if (/^(sha256|sha384|sha512)$/.test(lower)) {
    return `${lower} needs its value after a hyphen, as in '${lower}-...'`;
  }
  if (/^sha\d*-/.test(lower)) {
    return 'unsupported hash algorithm; use sha256, sha384 or sha512';
  }
  const suggestion = closest(lower, CSP_KEYWORDS);
  return suggestion
    ? `unknown keyword; did you mean '${suggestion}'?`
    : `unknown keyword; the keywords are ${CSP_KEYWORDS.map((k) => `'${k}'`).join(' ')}, or a hash such as 'sha256-...'`;
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
 * The canonical text of one source: quotes around keywords and hashes; scheme and host
 * lowercase; port only when given; path with its case kept.
 */
export function formatCspSource(source: CspSource): string {
  switch (source.kind) {
    case 'keyword':
      return `'${source.keyword}'`;
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
const KIND_ORDER: Record<CspSource['kind'], number> = { keyword: 0, hash: 1, scheme: 2, host: 3 };

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
 * then hashes, then schemes, then hosts, each group in code-unit order of its text.
 * Sources are separated by single spaces and directives by `"; "`, with no trailing `;`; a
 * directive without sources (`upgrade-insecure-requests`) is its name alone.
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

/**
 * Every source of `directives` as `<directive> <source>`, canonical, and a directive without
 * sources (`upgrade-insecure-requests`) as its name alone: the parts whose addition or removal
 * changes what a policy means, which a review lists.
 */
export function qualifiedCspSources(directives: readonly CspDirective[]): string[] {
  return directives.flatMap((directive) =>
    directive.sources.length === 0
      ? [directive.name]
      : directive.sources.map((source) => `${directive.name} ${formatCspSource(source)}`),
  );
}
