import { parseCspValue, type CspDirective } from '../../../rules/csp';
import { cspAllowsScript, cspAllowsUrl } from '../../../rules/csp-match';
import { RuleViolation } from '../../../rules/result';

function parsed(text: string): CspDirective[] {
  const result = parseCspValue(text);
  if (!result.ok) {
    throw new Error(result.error.message);
  }
  return result.value;
}

describe('cspAllowsScript (spec 2.6)', () => {
  const page = 'https://shop.example.com/checkout';
  const httpPage = 'http://shop.example.com/checkout';

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
    ['a lone * allows http hosts too (CSP3)', 'script-src *', 'http://anything.example.org/a.js', page, true],
    ['a lone * refuses data: URLs', 'script-src *', 'data:text/javascript,alert(1)', page, false],
    ["'self' allows the page's origin", "script-src 'self'", 'https://shop.example.com/app.js', page, true],
    ["'self' allows a relative script URL", "script-src 'self'", '/static/app.js', page, true],
    ["'self' refuses another scheme", "script-src 'self'", 'http://shop.example.com/app.js', page, false],
    [
      "'self' refuses an upgrade from an http page",
      "script-src 'self'",
      'https://shop.example.com/app.js',
      httpPage,
      false,
    ],
    ["'self' refuses a subdomain", "script-src 'self'", 'https://cdn.shop.example.com/app.js', page, false],
    ["'self' refuses the parent domain", "script-src 'self'", 'https://example.com/app.js', page, false],
    // Spec 2.6: 'self' is "the same origin (same scheme and hostname)"; CSP3 would also compare the port.
    [
      "'self' allows another port of the page's host",
      "script-src 'self'",
      'https://shop.example.com:8443/app.js',
      page,
      true,
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
    ['http: also allows https (CSP3)', 'script-src http:', 'https://anything.example.org/a.js', page, true],
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
    ['an unparseable script URL is refused', 'script-src *', 'https://[broken/a.js', page, false],
  ])('%s', (_rule, value, script, pageUrl, allowed) => {
    expect(cspAllowsScript(parsed(value), script, pageUrl)).toBe(allowed);
    // The same rules on URLs parsed once (the review's form), for every URL that parses.
    if (URL.canParse(script, pageUrl))
      expect(cspAllowsUrl(parsed(value), 'script', new URL(script, pageUrl), new URL(pageUrl))).toBe(allowed);
  });

  test('an invalid page URL is a RuleViolation naming it', () => {
    expect(() => cspAllowsScript(parsed("script-src 'self'"), '/a.js', 'not a url')).toThrow(
      new RuleViolation({
        part: 'not a url',
        position: 0,
        reason: 'the page URL is not an absolute URL',
        message: 'invalid page URL "not a url" at position 0: the page URL is not an absolute URL',
      }),
    );
  });
});
