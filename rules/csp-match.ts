/**
 * What a CSP policy does to a fetch: whether a page loading a script or opening a connection gets
 * it past the policy. The grammar of a policy value is `./csp.ts`.
 */

import { type CspDirective, type CspDirectiveName, type CspSource } from './csp';
import { quoteForMessage, RuleViolation } from './result';

/** Default ports of the schemes scripts are fetched over; other schemes have none. */
const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443, ws: 80, wss: 443, ftp: 21 };

/**
 * Whether a policy allows a script URL loaded by a page, with the allow semantics of spec 2.6.
 *
 * The source list used is `script-src`, else `default-src` (the browser's order for a script
 * loaded by a `<script>` element, which is how detected scripts arrive; the service takes no
 * `script-src-elem`); with neither, nothing restricts scripts and the result is `true`.
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
 * - `'none'`, hashes and the other keywords never allow a script by its URL alone.
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
