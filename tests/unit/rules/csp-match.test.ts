import { parseCspValue, type CspDirective } from '../../../rules/csp';
import {
  BROWSERS,
  cspAllowsUrl,
  cspAllowsUrlIn,
  decodePath,
  isMixedContent,
  judgeFetch,
  plainPath,
  plainPathOrigin,
  type Browser,
  type CspFetchKind,
  type FetchVerdict,
} from '../../../rules/csp-match';

function parsed(text: string): CspDirective[] {
  const result = parseCspValue(text);
  if (!result.ok) {
    throw new Error(result.error.message);
  }
  return result.value;
}

const page = 'https://shop.example.com/checkout';
const httpPage = 'http://shop.example.com/checkout';

/** Whether the policy lets a script at `url` (relative to the page) through in every browser. */
function allowsScript(value: string, url: string, pageUrl: string): boolean {
  return cspAllowsUrl(parsed(value), 'script', new URL(url, pageUrl), new URL(pageUrl));
}

describe('cspAllowsUrl: one policy, the verdict of both browsers', () => {
  test.each<[string, string, string, string, boolean]>([
    ['a bare host allows its exact host', 'script-src cdn.example.com', 'https://cdn.example.com/a.js', page, true],
    [
      'a bare host allows any path on it',
      'script-src cdn.example.com',
      'https://cdn.example.com/x/y/z.js?v=1',
      page,
      true,
    ],
    [
      'a bare host refuses its subdomains',
      'script-src cdn.example.com',
      'https://eu.cdn.example.com/a.js',
      page,
      false,
    ],
    ['a bare host refuses its parent domain', 'script-src www.example.com', 'https://example.com/a.js', page, false],
    ['a bare host refuses a look-alike suffix', 'script-src example.com', 'https://badexample.com/a.js', page, false],
    [
      'a bare host compares case-insensitively',
      'script-src CDN.Example.com',
      'https://cdn.EXAMPLE.com/a.js',
      page,
      true,
    ],
    ["a bare host takes the page's scheme", 'script-src cdn.example.com', 'http://cdn.example.com/a.js', page, false],
    [
      'a bare host on an http page also allows https',
      'script-src cdn.example.com',
      'https://cdn.example.com/a.js',
      httpPage,
      true,
    ],
    [
      'a bare host on an http page allows http',
      'script-src cdn.example.com',
      'http://cdn.example.com/a.js',
      httpPage,
      true,
    ],
    [
      'a bare host refuses a non-default port',
      'script-src cdn.example.com',
      'https://cdn.example.com:8443/a.js',
      page,
      false,
    ],
    [
      'a bare host allows the default port written out',
      'script-src cdn.example.com',
      'https://cdn.example.com:443/a.js',
      page,
      true,
    ],
    ['an IP host matches exactly', 'script-src 10.0.0.1:8080', 'https://10.0.0.1:8080/a.js', page, true],
    ['a wildcard allows a subdomain', 'script-src *.example.net', 'https://js.example.net/a.js', page, true],
    ['a wildcard allows a deeper subdomain', 'script-src *.example.net', 'https://a.b.example.net/a.js', page, true],
    ['a wildcard refuses the apex', 'script-src *.example.net', 'https://example.net/a.js', page, false],
    [
      'a wildcard refuses a look-alike suffix',
      'script-src *.example.net',
      'https://js.badexample.net/a.js',
      page,
      false,
    ],
    ['a lone * allows any https host', 'script-src *', 'https://anything.example.org/a.js', page, true],
    ['a lone * allows http hosts too', 'script-src *', 'http://anything.example.org/a.js', page, true],
    ['a lone * refuses data: URLs', 'script-src *', 'data:text/javascript,alert(1)', page, false],
    ["'self' allows the page's origin", "script-src 'self'", 'https://shop.example.com/app.js', page, true],
    ["'self' allows a relative script URL", "script-src 'self'", '/static/app.js', page, true],
    ["'self' refuses a downgrade to http", "script-src 'self'", 'http://shop.example.com/app.js', page, false],
    [
      "'self' of an http page allows its host over https (both browsers let an origin upgrade)",
      "script-src 'self'",
      'https://shop.example.com/app.js',
      httpPage,
      true,
    ],
    ["'self' refuses a subdomain", "script-src 'self'", 'https://cdn.shop.example.com/app.js', page, false],
    ["'self' refuses the parent domain", "script-src 'self'", 'https://example.com/app.js', page, false],
    [
      "'self' refuses another port of the page's host (browsers compare the origin, port included)",
      "script-src 'self'",
      'https://shop.example.com:8443/app.js',
      page,
      false,
    ],
    [
      "'self' of a page on a port refuses the default port (the origin's port is compared)",
      "script-src 'self'",
      'http://localhost/app.js',
      'http://localhost:3000/',
      false,
    ],
    [
      "'self' matches the page's own port",
      "script-src 'self'",
      'http://localhost:3000/app.js',
      'http://localhost:3000/',
      true,
    ],
    [
      'a full URL allows that script',
      'script-src https://js.example.net/app.js',
      'https://js.example.net/app.js',
      page,
      true,
    ],
    [
      'a full URL ignores the query',
      'script-src https://js.example.net/app.js',
      'https://js.example.net/app.js?v=2',
      page,
      true,
    ],
    [
      'a full URL refuses another script on the host',
      'script-src https://js.example.net/app.js',
      'https://js.example.net/other.js',
      page,
      false,
    ],
    [
      'a full URL refuses a longer path',
      'script-src https://js.example.net/app.js',
      'https://js.example.net/app.js/x',
      page,
      false,
    ],
    [
      'a full URL path is case-sensitive',
      'script-src https://js.example.net/app.js',
      'https://js.example.net/App.js',
      page,
      false,
    ],
    [
      'a full URL refuses another host',
      'script-src https://js.example.net/app.js',
      'https://cdn.example.net/app.js',
      page,
      false,
    ],
    [
      'a full URL with https refuses http',
      'script-src https://js.example.net/app.js',
      'http://js.example.net/app.js',
      httpPage,
      false,
    ],
    [
      'a full URL with http allows the https upgrade',
      'script-src http://js.example.net/app.js',
      'https://js.example.net/app.js',
      page,
      true,
    ],
    [
      'a full URL compares percent-decoded paths',
      'script-src https://js.example.net/a%20b.js',
      'https://js.example.net/a b.js',
      page,
      true,
    ],
    [
      'a path ending in / allows a script under it',
      'script-src https://js.example.net/lib/',
      'https://js.example.net/lib/a.js',
      page,
      true,
    ],
    [
      'a path ending in / allows deeper scripts',
      'script-src https://js.example.net/lib/',
      'https://js.example.net/lib/v2/b.js',
      page,
      true,
    ],
    [
      'a path ending in / refuses a sibling prefix',
      'script-src https://js.example.net/lib/',
      'https://js.example.net/library.js',
      page,
      false,
    ],
    [
      'a path ending in / refuses the bare directory',
      'script-src https://js.example.net/lib/',
      'https://js.example.net/lib',
      page,
      false,
    ],
    [
      'a scheme-less path source uses the page scheme',
      'script-src js.example.net/lib/',
      'https://js.example.net/lib/a.js',
      page,
      true,
    ],
    [
      'a scheme source allows any host of that scheme',
      'script-src https:',
      'https://anything.example.org/a.js',
      page,
      true,
    ],
    ['a scheme source refuses another scheme', 'script-src https:', 'http://anything.example.org/a.js', page, false],
    ['http: also allows https', 'script-src http:', 'https://anything.example.org/a.js', page, true],
    ['data: allows data URLs', 'script-src data:', 'data:text/javascript,alert(1)', page, true],
    ['data: refuses https URLs', 'script-src data:', 'https://cdn.example.com/a.js', page, false],
    ["'none' allows nothing", "script-src 'none'", 'https://shop.example.com/app.js', page, false],
    [
      'a hash cannot allow a URL',
      "script-src 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='",
      'https://shop.example.com/app.js',
      page,
      false,
    ],
    [
      "'unsafe-inline' cannot allow a URL",
      "script-src 'unsafe-inline'",
      'https://shop.example.com/app.js',
      page,
      false,
    ],
    [
      'default-src applies without script-src',
      'default-src cdn.example.com',
      'https://cdn.example.com/a.js',
      page,
      true,
    ],
    [
      'default-src refuses without script-src',
      'default-src cdn.example.com',
      'https://js.example.net/a.js',
      page,
      false,
    ],
    [
      'script-src wins over default-src (allow)',
      "default-src 'none'; script-src cdn.example.com",
      'https://cdn.example.com/a.js',
      page,
      true,
    ],
    [
      'script-src wins over default-src (refuse)',
      "script-src 'self'; default-src cdn.example.com",
      'https://cdn.example.com/a.js',
      page,
      false,
    ],
    [
      'no script directive restricts nothing',
      "img-src 'none'; style-src 'self'",
      'https://anything.example.org/a.js',
      page,
      true,
    ],
    [
      'an explicit port allows that port',
      'script-src cdn.example.com:8443',
      'https://cdn.example.com:8443/a.js',
      page,
      true,
    ],
    [
      'an explicit port refuses the default port',
      'script-src cdn.example.com:8443',
      'https://cdn.example.com/a.js',
      page,
      false,
    ],
    [
      'an explicit default port allows the default port',
      'script-src cdn.example.com:443',
      'https://cdn.example.com/a.js',
      page,
      true,
    ],
    ['port * allows any port', 'script-src cdn.example.com:*', 'https://cdn.example.com:9000/a.js', page, true],
    ['port * allows the default port', 'script-src cdn.example.com:*', 'https://cdn.example.com/a.js', page, true],
    ['port * still checks the host', 'script-src cdn.example.com:*', 'https://js.example.com:9000/a.js', page, false],
    [
      'any one matching source is enough',
      "script-src 'self' a.example.org cdn.example.com",
      'https://cdn.example.com/a.js',
      page,
      true,
    ],
    [
      'upgrade-insecure-requests: an http script matches an https source (rewritten before the check)',
      'script-src https://cdn.example.com; upgrade-insecure-requests',
      'http://cdn.example.com/a.js',
      page,
      true,
    ],
    [
      'upgrade-insecure-requests: http on port 80 becomes https on 443, which a bare host allows',
      'script-src cdn.example.com; upgrade-insecure-requests',
      'http://cdn.example.com/a.js',
      page,
      true,
    ],
    [
      'without upgrade-insecure-requests an http script does not match an https source',
      'script-src https://cdn.example.com',
      'http://cdn.example.com/a.js',
      page,
      false,
    ],
  ])('%s', (_rule, value, url, pageUrl, allowed) => {
    expect(allowsScript(value, url, pageUrl)).toBe(allowed);
  });

  /** Whether the policy lets a connection to `url` from `pageUrl` through in every browser. */
  function allowsConnection(value: string, url: string, pageUrl = page): boolean {
    return cspAllowsUrl(parsed(value), 'connection', new URL(url), new URL(pageUrl));
  }

  test.each<[string, string, string, string, boolean]>([
    [
      'a ws: host source refuses https: (CSP3 says it matches; no browser does)',
      'connect-src ws://api.example.com',
      'https://api.example.com/x',
      page,
      false,
    ],
    [
      'a ws: host source refuses http: (no browser matches it)',
      'connect-src ws://api.example.com',
      'http://api.example.com/x',
      httpPage,
      false,
    ],
    [
      'a wss: scheme source refuses https: (no browser matches it)',
      'connect-src wss:',
      'https://a.example/x',
      page,
      false,
    ],
    [
      'an https: scheme source refuses wss: (no browser matches it)',
      'connect-src https:',
      'wss://a.example/x',
      page,
      false,
    ],
    ['an http: scheme source refuses ws:', 'connect-src http:', 'ws://a.example/x', httpPage, false],
    ['a ws: scheme source allows wss: (the secure upgrade)', 'connect-src ws:', 'wss://a.example/x', page, true],
    ['a lone * allows wss: (both browsers)', 'connect-src *', 'wss://a.example/x', page, true],
    ['a lone * allows ws: from an http page (both browsers)', 'connect-src *', 'ws://a.example/x', httpPage, true],
    ["'self' allows wss: to the page's host", "connect-src 'self'", 'wss://shop.example.com/live', page, true],
    [
      "'self' of an http page allows ws: to its host",
      "connect-src 'self'",
      'ws://shop.example.com/live',
      httpPage,
      true,
    ],
    ["'self' refuses wss: to another port", "connect-src 'self'", 'wss://shop.example.com:8443/live', page, false],
    ['connect-src falls back to default-src', "default-src 'self'", 'https://api.example.com/x', page, false],
    ['script-src does not govern connections', "script-src 'none'", 'https://api.example.com/x', page, true],
  ])('connection: %s', (_rule, value, url, pageUrl, allowed) => {
    expect(allowsConnection(value, url, pageUrl)).toBe(allowed);
  });
});

describe('cspAllowsUrlIn: where the two browsers differ', () => {
  function verdicts(value: string, kind: CspFetchKind, url: string, pageUrl: string): Record<Browser, boolean> {
    const directives = parsed(value);
    const result = {} as Record<Browser, boolean>;
    for (const browser of BROWSERS)
      result[browser] = cspAllowsUrlIn(browser, directives, kind, new URL(url), new URL(pageUrl));
    return result;
  }

  test.each<[string, string, CspFetchKind, string, string, Record<Browser, boolean>]>([
    [
      'a :80 source and https on 443: Firefox admits 80 for 443 whatever the scheme, Chromium only with an http scheme',
      'script-src cdn.example.com:80',
      'script',
      'https://cdn.example.com/a.js',
      page,
      { chromium: false, firefox: true },
    ],
    [
      'an http source on 8080 and https on 8080: Firefox keeps the port through the upgrade, Chromium upgrades default ports only',
      'script-src http://cdn.example.com:8080',
      'script',
      'https://cdn.example.com:8080/a.js',
      page,
      { chromium: false, firefox: true },
    ],
    [
      'an http source and https on port 80: Firefox compares with the source scheme default, Chromium with the URL one',
      'script-src http://cdn.example.com',
      'script',
      'https://cdn.example.com:80/a.js',
      page,
      { chromium: false, firefox: true },
    ],
    [
      'a * host with a path: Firefox drops the source, Chromium matches any host on that path',
      'script-src https://*/lib/',
      'script',
      'https://cdn.example.com/lib/a.js',
      page,
      { chromium: true, firefox: false },
    ],
    [
      'a * host with a port and a path: both keep it',
      'script-src https://*:*/lib/',
      'script',
      'https://cdn.example.com/lib/a.js',
      page,
      { chromium: true, firefox: true },
    ],
    [
      'upgrade-insecure-requests and fetch: Chromium also checks the URL as written, Firefox matches it as upgraded',
      'connect-src https://api.example.com; upgrade-insecure-requests',
      'connection',
      'http://api.example.com/x',
      page,
      { chromium: false, firefox: true },
    ],
    [
      'upgrade-insecure-requests and a WebSocket: both allow ws: under a wss: source',
      'connect-src wss://api.example.com; upgrade-insecure-requests',
      'connection',
      'ws://api.example.com/x',
      page,
      { chromium: true, firefox: true },
    ],
    [
      'upgrade-insecure-requests and a loopback host: Chromium does not rewrite it, Firefox matches it as upgraded',
      'script-src https://127.0.0.1:8080; upgrade-insecure-requests',
      'script',
      'http://127.0.0.1:8080/a.js',
      page,
      { chromium: false, firefox: true },
    ],
    [
      "upgrade-insecure-requests and 'self' over ws: Chromium judges wss:, Firefox lets https: match no ws:",
      "connect-src 'self'; upgrade-insecure-requests",
      'connection',
      'ws://shop.example.com/live',
      page,
      { chromium: true, firefox: false },
    ],
    [
      'a lone * and ftp: Chromium stopped matching it, Firefox allows every scheme naming a server',
      'script-src *',
      'script',
      'ftp://files.example.com/a.js',
      page,
      { chromium: false, firefox: true },
    ],
  ])('%s', (_rule, value, kind, url, pageUrl, expected) => {
    expect(verdicts(value, kind, url, pageUrl)).toEqual(expected);
    expect(cspAllowsUrl(parsed(value), kind, new URL(url), new URL(pageUrl))).toBe(
      expected.chromium && expected.firefox,
    );
  });
});

describe('isMixedContent', () => {
  test.each<[string, string, string, boolean]>([
    ['http from an https page', 'http://cdn.example.com/a.js', page, true],
    ['ws from an https page', 'ws://api.example.com/x', page, true],
    ['https from an https page', 'https://cdn.example.com/a.js', page, false],
    ['wss from an https page', 'wss://api.example.com/x', page, false],
    ['http from an http page', 'http://cdn.example.com/a.js', httpPage, false],
    ['localhost is potentially trustworthy', 'http://localhost:8080/a.js', page, false],
    ['a subdomain of localhost is potentially trustworthy', 'http://app.localhost/a.js', page, false],
    ['all of 127.0.0.0/8 is potentially trustworthy', 'http://127.0.0.5/a.js', page, false],
    ['[::1] is potentially trustworthy', 'http://[::1]:8080/a.js', page, false],
    ['another private address is not', 'http://10.0.0.1/a.js', page, true],
  ])('%s', (_rule, url, pageUrl, mixed) => {
    expect(isMixedContent(new URL(url), new URL(pageUrl))).toBe(mixed);
  });
});

describe('judgeFetch: all of a page headers together', () => {
  function judge(
    headers: { value: string; reportOnly?: boolean }[],
    kind: CspFetchKind,
    url: string,
    pageUrl = page,
  ): Record<Browser, FetchVerdict> {
    const pageHeaders = headers.map((header) => ({
      directives: parsed(header.value),
      reportOnly: header.reportOnly ?? false,
    }));
    const result = {} as Record<Browser, FetchVerdict>;
    for (const browser of BROWSERS)
      result[browser] = judgeFetch(pageHeaders, kind, new URL(url), new URL(pageUrl), browser);
    return result;
  }

  function both(verdict: FetchVerdict): Record<Browser, FetchVerdict> {
    return { chromium: verdict, firefox: verdict };
  }

  test('a fetch loads only if every enforced header allows it; the verdict names the refusing one', () => {
    expect(
      judge(
        [{ value: 'script-src cdn.example.com' }, { value: "script-src 'self'" }],
        'script',
        'https://cdn.example.com/a.js',
      ),
    ).toEqual(both({ outcome: 'blocked', blockedBy: [1], reportedBy: [], upgraded: false, mixedContent: false }));
  });

  test('a report-only header reports what it would block and blocks nothing', () => {
    expect(
      judge(
        [{ value: 'script-src cdn.example.com' }, { value: "script-src 'self'", reportOnly: true }],
        'script',
        'https://cdn.example.com/a.js',
      ),
    ).toEqual(both({ outcome: 'reported', blockedBy: [], reportedBy: [1], upgraded: false, mixedContent: false }));
  });

  test('a header with nothing governing the kind neither blocks nor reports', () => {
    expect(judge([{ value: "img-src 'none'" }], 'connection', 'https://api.example.com/x')).toEqual(
      both({ outcome: 'allowed', blockedBy: [], reportedBy: [], upgraded: false, mixedContent: false }),
    );
  });

  test('an insecure URL from an https page that the policies allow is mixed content', () => {
    expect(judge([{ value: 'script-src http:' }], 'script', 'http://cdn.example.com/a.js')).toEqual(
      both({ outcome: 'mixed-content', blockedBy: [], reportedBy: [], upgraded: false, mixedContent: true }),
    );
  });

  test('an enforced header that refuses an insecure URL blocks it (both browsers check policies before mixed content), and it is mixed content all the same', () => {
    expect(judge([{ value: "script-src 'self'" }], 'script', 'http://cdn.example.com/a.js')).toEqual(
      both({ outcome: 'blocked', blockedBy: [0], reportedBy: [], upgraded: false, mixedContent: true }),
    );
  });

  test('a report-only header reports an insecure URL, which is still stopped as mixed content', () => {
    expect(judge([{ value: "script-src 'self'", reportOnly: true }], 'script', 'http://cdn.example.com/a.js')).toEqual(
      both({ outcome: 'mixed-content', blockedBy: [], reportedBy: [0], upgraded: false, mixedContent: true }),
    );
  });

  test('upgrade-insecure-requests of an enforced header rewrites the URL, so there is no mixed content', () => {
    expect(
      judge([{ value: 'script-src https:; upgrade-insecure-requests' }], 'script', 'http://cdn.example.com/a.js'),
    ).toEqual(both({ outcome: 'allowed', blockedBy: [], reportedBy: [], upgraded: true, mixedContent: false }));
  });

  test('upgrade-insecure-requests in a report-only header is ignored', () => {
    expect(
      judge([{ value: 'upgrade-insecure-requests', reportOnly: true }], 'script', 'http://cdn.example.com/a.js'),
    ).toEqual(both({ outcome: 'mixed-content', blockedBy: [], reportedBy: [], upgraded: false, mixedContent: true }));
  });

  test('a report-only header sees the URL as written for a script, so an upgraded script is reported', () => {
    expect(
      judge(
        [{ value: 'upgrade-insecure-requests' }, { value: 'script-src https:', reportOnly: true }],
        'script',
        'http://cdn.example.com/a.js',
      ),
    ).toEqual(both({ outcome: 'reported', blockedBy: [], reportedBy: [1], upgraded: true, mixedContent: false }));
  });

  test('Firefox relaxes the scheme only in the policy that upgrades; Chromium judges the upgraded URL in every one', () => {
    const verdicts = judge(
      [{ value: 'script-src https://cdn.example.com' }, { value: 'upgrade-insecure-requests' }],
      'script',
      'http://cdn.example.com/a.js',
    );
    expect(verdicts.chromium).toEqual({
      outcome: 'allowed',
      blockedBy: [],
      reportedBy: [],
      upgraded: true,
      mixedContent: false,
    });
    expect(verdicts.firefox).toEqual({
      outcome: 'blocked',
      blockedBy: [0],
      reportedBy: [],
      upgraded: true,
      mixedContent: false,
    });
  });

  test('Chromium leaves a loopback URL alone under upgrade-insecure-requests; Firefox rewrites it', () => {
    const verdicts = judge([{ value: 'upgrade-insecure-requests' }], 'script', 'http://127.0.0.1:8080/a.js');
    expect(verdicts.chromium.upgraded).toBe(false);
    expect(verdicts.firefox.upgraded).toBe(true);
    expect(verdicts.chromium.outcome).toBe('allowed');
  });
});

describe('plainPath reads a path as the URL parser gives it, or leaves it to the parser (issue 30)', () => {
  const ORIGIN = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\\]*/;
  const read = (url: string) => {
    const origin = ORIGIN.exec(url)![0];
    return plainPathOrigin(origin) ? plainPath(url, origin.length) : undefined;
  };

  test('a plain path, with or without a query or fragment, is read as written', () => {
    const plain: Array<[string, string]> = [
      ['https://cdn.example/lib/a.js', '/lib/a.js'],
      ['HTTPS://CDN.example:8443/Lib/A.js', '/Lib/A.js'],
      ['http://u:p@cdn.example/a.js?x=1/../y', '/a.js'],
      ["wss://cdn.example/a;b=c/@d:e,f!$&'()*+~_-.js#frag?x", "/a;b=c/@d:e,f!$&'()*+~_-.js"],
      ['https://cdn.example', '/'],
      ['https://cdn.example?x', '/'],
      ['https://cdn.example#x', '/'],
      ['https://cdn.example//a//b/', '//a//b/'],
      ['https://cdn.example/.a/..b/a./a../...', '/.a/..b/a./a../...'],
    ];
    for (const [url, path] of plain) {
      expect([url, read(url)]).toEqual([url, path]);
      expect([url, decodePath(new URL(url).pathname)]).toEqual([url, path]);
    }
  });

  test('whatever the parser would change, or decoding would, is left to it', () => {
    const parsed = [
      'https://cdn.example/a/./b.js',
      'https://cdn.example/a/../b.js',
      'https://cdn.example/a/..',
      'https://cdn.example/a/.',
      'https://cdn.example/a%20b.js',
      'https://cdn.example/a%2e%2e/b.js',
      'https://cdn.example/a b.js',
      'https://cdn.example/a\tb.js',
      'https://cdn.example/a\\b.js',
      'https://cdn.example/a"b<c>`{d}^|e.js',
      'https://cdn.example/é.js',
      'https://cdn.example/a.js ',
      'file://host/C:/a.js',
      'ftp://cdn.example/a.js',
      'custom://cdn.example/a/./b.js',
    ];
    for (const url of parsed) expect([url, read(url)]).toEqual([url, undefined]);
  });

  test("on any URL, a path it reads is the parser's", () => {
    const chars = ['a', '/', '.', '%', '2', 'e', '?', '#', ' ', '\\', ';', '@', '~', 'é', '\t', '"', "'", '|'];
    let read_ = 0;
    for (let i = 0; i < 4000; i++) {
      let rest = '';
      for (let n = (i * 7) % 9, k = i; n > 0; n--, k = Math.floor(k / chars.length) + i * 31)
        rest += chars[k % chars.length];
      const url = `https://cdn.example/${rest}`;
      const path = read(url);
      if (path === undefined) continue;
      read_ += 1;
      expect([url, path]).toEqual([url, decodePath(new URL(url).pathname)]);
    }
    expect(read_).toBeGreaterThan(500);
  });
});
