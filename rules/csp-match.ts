/**
 * What a page's CSP headers do to a fetch: whether a browser lets a page load a script or open a
 * connection, blocks it, reports it, or stops it as mixed content whatever the policies allow. The grammar
 * of a policy value is `./csp.ts`.
 *
 * The judgement is what Chromium and Firefox do, not the wording of CSP Level 3: where the two
 * differ the browser wins, and where the browsers differ each gets its own answer. It follows
 * Blink's `csp_source.cc` / `source_list_directive.cc` and Gecko's `nsCSPUtils.cpp` /
 * `nsCSPParser.cpp`, and is held to what Chromium 156 and Firefox 153 did on recorded cases
 * (`tests/fixtures/csp-browser-truth.json`). Where they depart from the CSP text:
 * - a `ws:`/`wss:` source allows no `http:`/`https:` URL, and `https:` allows no `wss:` (CSP3's
 *   scheme-part match says both do); only `'self'` lets the page's host be reached over
 *   `ws:`/`wss:`;
 * - the lone `*` allows `ws:` and `wss:` URLs as well as `http:`, `https:` and the page's scheme
 *   (in Firefox, any scheme but `blob:`, `data:` and `filesystem:`);
 * - ports on a scheme upgrade: Chromium lets an `http:` source match `https:` only on the default
 *   ports (80 to 443); Firefox keeps any port through the upgrade and lets a `:80` source match
 *   port 443 whatever the schemes;
 * - Firefox drops a source whose host is `*` followed by a path without a port (`https://*` + `/a/`),
 *   so a directive made only of those allows nothing;
 * - `upgrade-insecure-requests`: both rewrite `http:`/`ws:` to `https:`/`wss:` (port 80 to 443,
 *   other ports kept; Chromium leaves loopback hosts alone). Chromium judges the rewritten URL
 *   (for `fetch`, the URL as written too; report-only headers see the URL as written for scripts
 *   and `fetch`); Firefox judges the URL as written and lets a policy that upgrades match
 *   `http:`/`ws:` against `https:`/`wss:` sources.
 */

import { type CspDirective, type CspDirectiveName, type CspSource } from './csp';

/** The browsers whose behaviour the judgement reproduces. */
export type Browser = 'chromium' | 'firefox';

/** Every browser the judgement knows, in a fixed order. */
export const BROWSERS: readonly Browser[] = ['chromium', 'firefox'];

/**
 * What a page fetches that a policy judges by its URL: a script loaded by a `<script>` element
 * (spec 2.3) or an outgoing connection (spec 2.4): `fetch` (or XHR, a beacon) for an `http:` or
 * `https:` URL, a WebSocket for a `ws:` or `wss:` one.
 */
export type CspFetchKind = 'script' | 'connection';

/**
 * The directives that govern each kind of fetch, most specific first (the browser's order):
 * `script-src`, `default-src` for a script (the service has no `script-src-elem`); `connect-src`,
 * `default-src` for a connection.
 */
export const GOVERNING_DIRECTIVES: Readonly<Record<CspFetchKind, readonly CspDirectiveName[]>> = {
  script: ['script-src', 'default-src'],
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

/** One CSP header of a response: an `allow` policy is enforced, a `log` policy report-only. */
export interface PageHeader {
  /** The policy's directives, as `parseCspValue` gives them. */
  directives: readonly CspDirective[];
  /** A `Content-Security-Policy-Report-Only` header: it reports what it would block, and blocks nothing. */
  reportOnly: boolean;
}

/**
 * What a browser does with one fetch of a page: `allowed`; `reported` (loaded, and a report-only
 * header reports it); `blocked` by an enforced header; `mixed-content` (an `https:` page fetching
 * an insecure URL nothing upgrades, which no enforced header blocks: the browser stops it after
 * the policies, with no violation of theirs).
 */
export type FetchOutcome = 'allowed' | 'reported' | 'blocked' | 'mixed-content';

/** The judgement of one fetch under all of a page's headers, in one browser. */
export interface FetchVerdict {
  /**
   * The outcome; when several apply, blocked over mixed-content over reported over allowed (both
   * browsers check the policies first: an enforced header that refuses the fetch reports a
   * violation, mixed content or not).
   */
  outcome: FetchOutcome;
  /** Indexes into the headers of the enforced headers that refuse the fetch. */
  blockedBy: number[];
  /** Indexes of the report-only headers that would report it. */
  reportedBy: number[];
  /** Whether `upgrade-insecure-requests` (of an enforced header) rewrote the URL to `https:`/`wss:`. */
  upgraded: boolean;
  /**
   * Whether the URL as sent is mixed content ({@link isMixedContent}): the browser stops it
   * whatever the headers say, so a header's block changes nothing for it. Its outcome is
   * `blocked` when a header refuses it anyway, `mixed-content` otherwise.
   */
  mixedContent: boolean;
}

/**
 * What `browser` does with a fetch of `kind` to `url` from `page` under all of the page's headers:
 * it loads only if every enforced header allows it; report-only headers only report; the
 * `upgrade-insecure-requests` of any enforced header rewrites the URL first (report-only headers
 * cannot upgrade); an insecure URL left on an `https:` page that no enforced header blocks is
 * mixed content.
 *
 * @param headers - the page's CSP headers, in any order (the verdict's indexes refer to it).
 * @param url - the fetched URL, absolute.
 * @param page - the URL of the page that fetches it.
 */
export function judgeFetch(
  headers: readonly PageHeader[],
  kind: CspFetchKind,
  url: URL,
  page: URL,
  browser: Browser,
): FetchVerdict {
  const target = targetOf(url);
  const origin = targetOf(page);
  let upgradeRequested = false;
  for (const header of headers) {
    if (!header.reportOnly && upgradesInsecureRequests(header.directives)) upgradeRequested = true;
  }
  const sent = upgradeRequested ? upgradedTarget(browser, target) : target;
  const blockedBy: number[] = [];
  const reportedBy: number[] = [];
  headers.forEach((header, index) => {
    const directive = governingDirective(header.directives, kind);
    if (directive === undefined) return;
    if (header.reportOnly) {
      if (!reportOnlyAllows(browser, directive, kind, target, sent, origin)) reportedBy.push(index);
    } else if (
      !enforcedAllows(browser, directive, upgradesInsecureRequests(header.directives), kind, target, sent, origin)
    ) {
      blockedBy.push(index);
    }
  });
  const mixedContent = isMixed(sent, origin);
  let outcome: FetchOutcome = 'allowed';
  if (blockedBy.length > 0) outcome = 'blocked';
  else if (mixedContent) outcome = 'mixed-content';
  else if (reportedBy.length > 0) outcome = 'reported';
  return { outcome, blockedBy, reportedBy, upgraded: sent !== target, mixedContent };
}

/**
 * Whether one policy, enforced, lets a fetch of `kind` to `url` from `page` through in `browser`,
 * with the policy's own `upgrade-insecure-requests` applied. Mixed content is the browser's
 * decision, not the policy's, and does not count: see {@link isMixedContent}.
 */
export function cspAllowsUrlIn(
  browser: Browser,
  directives: readonly CspDirective[],
  kind: CspFetchKind,
  url: URL,
  page: URL,
): boolean {
  const directive = governingDirective(directives, kind);
  if (directive === undefined) return true;
  const target = targetOf(url);
  const upgrades = upgradesInsecureRequests(directives);
  const sent = upgrades ? upgradedTarget(browser, target) : target;
  return enforcedAllows(browser, directive, upgrades, kind, target, sent, targetOf(page));
}

/**
 * Whether a policy lets a fetch of `kind` to `url` from `page` through in every browser of
 * {@link BROWSERS} ({@link cspAllowsUrlIn} for each), for a caller that judges many detected items
 * (the review of a zone's detected scripts and connections) and parses each URL once. With no
 * directive governing `kind`, nothing restricts it.
 */
export function cspAllowsUrl(directives: readonly CspDirective[], kind: CspFetchKind, url: URL, page: URL): boolean {
  const directive = governingDirective(directives, kind);
  if (directive === undefined) return true;
  const target = targetOf(url);
  const origin = targetOf(page);
  const upgrades = upgradesInsecureRequests(directives);
  for (const browser of BROWSERS) {
    const sent = upgrades ? upgradedTarget(browser, target) : target;
    if (!enforcedAllows(browser, directive, upgrades, kind, target, sent, origin)) return false;
  }
  return true;
}

/**
 * Whether a fetch from `page` to `url` is mixed content, which the browser stops whatever the policies allow: an
 * `https:` page fetching an `http:` or `ws:` URL whose host is not potentially trustworthy
 * (`localhost` and its subdomains, `127.0.0.0/8`, `[::1]` are). This is the URL as sent: apply
 * `upgrade-insecure-requests` first ({@link judgeFetch} does).
 */
export function isMixedContent(url: URL, page: URL): boolean {
  return isMixed(targetOf(url), targetOf(page));
}

/**
 * A URL reduced to what sources are matched against, so that an upgraded URL needs no parsing:
 * the scheme without its colon, the hostname, the port when the URL gives one other than its
 * scheme's default (the URL class empties a default port), and the path.
 */
interface Target {
  scheme: string;
  host: string;
  port: number | undefined;
  path: string;
}

function targetOf(url: URL): Target {
  return {
    scheme: url.protocol.slice(0, -1),
    host: url.hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: url.pathname,
  };
}

/** The default port of a scheme, as both browsers know them; `undefined` for other schemes. */
function defaultPort(scheme: string): number | undefined {
  switch (scheme) {
    case 'http':
    case 'ws':
      return 80;
    case 'https':
    case 'wss':
      return 443;
    case 'ftp':
      return 21;
    default:
      return undefined;
  }
}

function upgradesInsecureRequests(directives: readonly CspDirective[]): boolean {
  for (const directive of directives) if (directive.name === 'upgrade-insecure-requests') return true;
  return false;
}

/** Hosts a browser trusts over plain http (the "potentially trustworthy" ones of Secure Contexts). */
function isTrustworthyHost(host: string): boolean {
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    (host.startsWith('127.') && /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host))
  );
}

function isMixed(sent: Target, origin: Target): boolean {
  return origin.scheme === 'https' && (sent.scheme === 'http' || sent.scheme === 'ws') && !isTrustworthyHost(sent.host);
}

/**
 * The URL `upgrade-insecure-requests` makes of `target` in `browser`: `http:`/`ws:` become
 * `https:`/`wss:`, the default port follows the scheme (80 to 443), another port is kept.
 * Chromium leaves potentially trustworthy hosts alone, as they are no mixed content.
 */
function upgradedTarget(browser: Browser, target: Target): Target {
  const secure = target.scheme === 'http' ? 'https' : target.scheme === 'ws' ? 'wss' : undefined;
  if (secure === undefined || (browser === 'chromium' && isTrustworthyHost(target.host))) return target;
  return { scheme: secure, host: target.host, port: target.port === 443 ? undefined : target.port, path: target.path };
}

/**
 * Whether an enforced policy's governing `directive` allows the fetch. `target` is the URL as
 * written, `sent` as upgraded; `upgrades` says whether this policy holds
 * `upgrade-insecure-requests` (Firefox relaxes scheme matching for such a policy only).
 */
function enforcedAllows(
  browser: Browser,
  directive: CspDirective,
  upgrades: boolean,
  kind: CspFetchKind,
  target: Target,
  sent: Target,
  origin: Target,
): boolean {
  if (browser === 'firefox') return firefoxAllows(directive, target, origin, upgrades);
  // Chromium's fetch() checks the URL as written before its loader upgrades and checks it again.
  if (kind === 'connection' && !isWebSocket(target) && sent !== target && !chromiumAllows(directive, target, origin)) {
    return false;
  }
  return chromiumAllows(directive, sent, origin);
}

/** Whether a report-only policy's governing `directive` would let the fetch through unreported. */
function reportOnlyAllows(
  browser: Browser,
  directive: CspDirective,
  kind: CspFetchKind,
  target: Target,
  sent: Target,
  origin: Target,
): boolean {
  if (browser === 'firefox') return firefoxAllows(directive, target, origin, false);
  // Chromium reads report-only headers before it upgrades a script or fetch; a WebSocket is
  // upgraded when it is made, before any check.
  return chromiumAllows(directive, kind === 'connection' && isWebSocket(target) ? sent : target, origin);
}

function isWebSocket(target: Target): boolean {
  return target.scheme === 'ws' || target.scheme === 'wss';
}

// ---- Chromium: Blink's CSPSourceListAllows, CSPSourceMatches and CSPSourceMatchesAsSelf. ----

/** How a scheme or port matched in Blink; an upgrade must hold for both scheme and port. */
const NO_MATCH = 0;
const WILDCARD = 1;
const UPGRADE = 2;
const EXACT = 3;
type Match = typeof NO_MATCH | typeof WILDCARD | typeof UPGRADE | typeof EXACT;

function chromiumAllows(directive: CspDirective, target: Target, origin: Target): boolean {
  for (const source of directive.sources) if (chromiumSourceMatches(source, target, origin)) return true;
  return false;
}

function chromiumSourceMatches(source: CspSource, target: Target, origin: Target): boolean {
  switch (source.kind) {
    case 'keyword':
      return source.keyword === 'self' && chromiumSelfMatches(target, origin);
    case 'hash':
      return false;
    case 'scheme':
      return chromiumScheme(source.scheme, target.scheme) !== NO_MATCH;
    case 'host':
      if (isLoneStar(source)) {
        // Web schemes and the page's own; ws: and wss: pass as a legacy exception Chromium counts.
        const scheme = target.scheme;
        return (
          scheme === 'http' || scheme === 'https' || scheme === 'ws' || scheme === 'wss' || scheme === origin.scheme
        );
      }
      return chromiumHostSourceMatches(source, target, origin);
  }
}

function chromiumScheme(expected: string, actual: string): Match {
  if (expected === actual) return EXACT;
  return (expected === 'http' && actual === 'https') || (expected === 'ws' && actual === 'wss') ? UPGRADE : NO_MATCH;
}

/** Blink's PortMatches: `sourceScheme` is the source's scheme, or the page's when it has none. */
function chromiumPort(sourcePort: number | '*' | undefined, sourceScheme: string, target: Target): Match {
  if (sourcePort === '*') return WILDCARD;
  const port = target.port;
  if (port === sourcePort) return port === undefined ? WILDCARD : EXACT;
  const toSecureDefault = port === 443 || (port === undefined && defaultPort(target.scheme) === 443);
  if (
    (sourcePort === 80 || ((sourcePort === undefined || sourcePort === 443) && sourceScheme === 'http')) &&
    toSecureDefault
  ) {
    return UPGRADE;
  }
  if (port === undefined) return sourcePort === defaultPort(target.scheme) ? EXACT : NO_MATCH;
  if (sourcePort === undefined) return port === defaultPort(target.scheme) ? EXACT : NO_MATCH;
  return NO_MATCH;
}

/** An upgrade of scheme or port is allowed only when both the scheme and the port can upgrade. */
function upgradesTogether(scheme: Match, port: Match): boolean {
  if (scheme !== UPGRADE && port !== UPGRADE) return true;
  return scheme === UPGRADE && (port === UPGRADE || port === WILDCARD);
}

function chromiumHostSourceMatches(
  source: Extract<CspSource, { kind: 'host' }>,
  target: Target,
  origin: Target,
): boolean {
  const sourceScheme = source.scheme ?? origin.scheme;
  const scheme = chromiumScheme(sourceScheme, target.scheme);
  if (scheme === NO_MATCH) return false;
  const port = chromiumPort(source.port, sourceScheme, target);
  return (
    upgradesTogether(scheme, port) &&
    port !== NO_MATCH &&
    hostMatches(source.host, target.host) &&
    pathMatches(source.path, target.path)
  );
}

/**
 * Blink's 'self': the page's origin (its effective port included), or the same host reached more
 * securely (`https:`/`wss:`, or anything from an `http:` page) on the same port or on default
 * ports at both ends.
 */
function chromiumSelfMatches(target: Target, origin: Target): boolean {
  if (target.host === '' || target.host !== origin.host) return false;
  const scheme = chromiumScheme(origin.scheme, target.scheme);
  const port = chromiumPort(origin.port ?? defaultPort(origin.scheme), origin.scheme, target);
  if (scheme === EXACT && (port === EXACT || port === WILDCARD)) return true;
  const portsAgree = port === EXACT || (origin.port === undefined && target.port === undefined);
  return portsAgree && (target.scheme === 'https' || target.scheme === 'wss' || origin.scheme === 'http');
}

// ---- Firefox: Gecko's nsCSPHostSrc / nsCSPSchemeSrc ::permits, permitsScheme and permitsPort. ----

/** `upgrades`: the policy is enforced and holds `upgrade-insecure-requests`. */
function firefoxAllows(directive: CspDirective, target: Target, origin: Target, upgrades: boolean): boolean {
  for (const source of directive.sources) if (firefoxSourceMatches(source, target, origin, upgrades)) return true;
  return false;
}

function firefoxSourceMatches(source: CspSource, target: Target, origin: Target, upgrades: boolean): boolean {
  switch (source.kind) {
    case 'keyword':
      // Gecko turns 'self' into a host source of the page's scheme, host and non-default port.
      return (
        source.keyword === 'self' &&
        origin.host !== '' &&
        firefoxHostMatches(origin.scheme, origin.host, origin.port, undefined, true, target, upgrades)
      );
    case 'hash':
      return false;
    case 'scheme':
      return firefoxScheme(source.scheme, target.scheme, upgrades, false);
    case 'host':
      if (isLoneStar(source)) return !isLocalScheme(target.scheme);
      // Gecko's parser refuses a "*" host followed by anything but ":" (a port), and drops the source.
      if (source.host === '*' && source.port === undefined && source.path !== undefined) return false;
      return firefoxHostMatches(
        source.scheme ?? origin.scheme,
        source.host,
        source.port,
        source.path,
        false,
        target,
        upgrades,
      );
  }
}

/** Schemes of URLs that name no server, which a host `*` never matches. */
function isLocalScheme(scheme: string): boolean {
  return scheme === 'blob' || scheme === 'data' || scheme === 'filesystem';
}

function firefoxScheme(expected: string, actual: string, upgrades: boolean, fromSelf: boolean): boolean {
  if (expected === actual) return true;
  if (expected === 'http' && (actual === 'https' || (fromSelf && (actual === 'ws' || actual === 'wss')))) return true;
  if (expected === 'https' && actual === 'wss' && fromSelf) return true;
  if (expected === 'ws' && actual === 'wss') return true;
  // The request will be upgraded before it leaves, so Gecko matches it as if it already were.
  return upgrades && ((actual === 'http' && expected === 'https') || (actual === 'ws' && expected === 'wss'));
}

function firefoxHostMatches(
  scheme: string,
  host: string,
  port: number | '*' | undefined,
  path: string | undefined,
  fromSelf: boolean,
  target: Target,
  upgrades: boolean,
): boolean {
  if (!firefoxScheme(scheme, target.scheme, upgrades, fromSelf)) return false;
  if (host === '*' ? isLocalScheme(target.scheme) : !hostMatches(host, target.host)) return false;
  return firefoxPort(scheme, port, target) && pathMatches(path, target.path);
}

/** Gecko's permitsPort: default ports compare by the source's scheme, and :80 also admits 443. */
function firefoxPort(scheme: string, sourcePort: number | '*' | undefined, target: Target): boolean {
  if (sourcePort === '*') return true;
  if (target.port === undefined && sourcePort === undefined) return true;
  const port = target.port ?? defaultPort(target.scheme);
  const expected = sourcePort ?? defaultPort(scheme);
  return expected === port || (expected === 80 && port === 443);
}

// ---- Shared by both browsers. ----

/** The lone `*` source, which both browsers treat apart from a `*` host with a scheme or port. */
function isLoneStar(source: Extract<CspSource, { kind: 'host' }>): boolean {
  return source.host === '*' && source.scheme === undefined && source.port === undefined && source.path === undefined;
}

/** `*` any host; `*.example.com` any host ending in `.example.com`; otherwise the same host. */
export function hostMatches(sourceHost: string, host: string): boolean {
  if (sourceHost === '*') return true;
  if (sourceHost.charCodeAt(0) !== 42 /* * */) return sourceHost === host;
  // Compared in place: the review matches every detected item, and a slice per match adds up.
  const start = host.length - (sourceHost.length - 1);
  if (start <= 0) return false;
  for (let i = 1; i < sourceHost.length; i += 1) {
    if (host.charCodeAt(start + i - 1) !== sourceHost.charCodeAt(i)) return false;
  }
  return true;
}

/** A host source with a path: its host (or host pattern) and its path, percent-decoded. */
export interface PathSource {
  host: string;
  path: string;
}

/**
 * The host sources with a path that govern `kind` in any of `headers`. The only part of a fetched
 * URL's path {@link judgeFetch} looks at is whether it matches the path of such a source whose host
 * {@link hostMatches} the URL's (both browsers match the host first; an upgrade keeps the path). So
 * two URLs with the same scheme, host and port whose paths match the same of those paths get the
 * same verdicts; with none, the verdicts depend on the origin alone.
 */
export function governingPathSources(headers: readonly PageHeader[], kind: CspFetchKind): PathSource[] {
  const sources: PathSource[] = [];
  for (const header of headers) {
    for (const source of governingDirective(header.directives, kind)?.sources ?? []) {
      if (source.kind === 'host' && source.path !== undefined)
        sources.push({ host: source.host, path: decodePath(source.path) });
    }
  }
  return sources;
}

/**
 * A path source allows exactly that path, or everything under it when it ends in `/`; both sides
 * compare percent-decoded, so `/a%20b.js` and `/a b.js` are one path; the query never counts.
 */
function pathMatches(sourcePath: string | undefined, path: string): boolean {
  if (sourcePath === undefined) return true;
  return decodedPathMatches(decodePath(sourcePath), decodePath(path));
}

/** {@link pathMatches} of a source's path and a URL's path both percent-decoded already ({@link decodePath}). */
export function decodedPathMatches(expected: string, actual: string): boolean {
  return expected.endsWith('/') ? actual.startsWith(expected) : actual === expected;
}

/** An http, https, ws or wss URL's scheme and authority: the parser's special schemes other than `file`. */
const WEB_ORIGIN = /^(?:https?|wss?):\/\//i;
/** A path with no character the URL parser encodes, drops or reads as `/`, and no `%` to decode. */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
/** A `.` or `..` segment, which the parser resolves. */
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/**
 * Whether {@link plainPath} can read the paths of URLs with this scheme and authority as written:
 * an http(s) or ws(s) one.
 */
export function plainPathOrigin(origin: string): boolean {
  return WEB_ORIGIN.test(origin);
}

/**
 * The path of `url` as the URL parser gives it, percent-decoded ({@link decodePath}), read from the
 * text itself: `url` begins with a {@link plainPathOrigin} of `originLength` characters, and what
 * follows up to its query or fragment is a plain path (`/` and characters the parser keeps as they
 * are, no `%`, no dot segment) or nothing (`/`). `undefined` for any other path: parse the URL.
 * Parsing every detected URL was a quarter of the review's judging at 200,000 scripts
 * (bench/RESULTS.md, issue 30).
 */
export function plainPath(url: string, originLength: number): string | undefined {
  let end = url.indexOf('?', originLength);
  const fragment = url.indexOf('#', originLength);
  if (end < 0 || (fragment >= 0 && fragment < end)) end = fragment;
  const path = end < 0 ? url.slice(originLength) : url.slice(originLength, end);
  if (path === '') return '/';
  return PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) ? path : undefined;
}

/** A URL path percent-decoded, or as it is when it does not decode, as both browsers compare paths. */
export function decodePath(path: string): string {
  if (!path.includes('%')) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
