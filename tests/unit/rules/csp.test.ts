import {
  CSP_DIRECTIVES,
  CSP_KEYWORDS,
  CSP_VALUE_MAX_LENGTH,
  formatCspSource,
  normalizeCspValue,
  parseCspValue,
  qualifiedCspSources,
  type CspDirective,
  type CspSource,
} from '../../../rules/csp';
import { RuleViolation } from '../../../rules/result';
import { expectRefusal } from '../../helpers/rules';

/** Base64 text of `bytes` bytes, so hash fixtures have exact, readable lengths. */
const base64Of = (bytes: number): string => Buffer.alloc(bytes, 0xab).toString('base64');
const sha256 = base64Of(32);
const sha384 = base64Of(48);
const sha512 = base64Of(64);

/** A `script-src` of as many hosts as fit, padded with spaces to `length` characters. */
function sourcesUpTo(length: number): string {
  let text = 'script-src';
  for (let i = 0; `${text} h${i}.example.com`.length <= length; i += 1) text += ` h${i}.example.com`;
  return text.padEnd(length, ' ');
}

function parsed(text: string): CspDirective[] {
  const result = parseCspValue(text);
  if (!result.ok) {
    throw new Error(result.error.message);
  }
  return result.value;
}

describe('parseCspValue accepts every source form', () => {
  test.each<[string, CspSource]>([
    ["'self'", { kind: 'keyword', keyword: 'self' }],
    ["'SELF'", { kind: 'keyword', keyword: 'self' }],
    ["'Unsafe-Inline'", { kind: 'keyword', keyword: 'unsafe-inline' }],
    ["'Unsafe-Eval'", { kind: 'keyword', keyword: 'unsafe-eval' }],
    [`'sha256-${sha256}'`, { kind: 'hash', algorithm: 'sha256', value: sha256 }],
    [`'sha256-${sha256.replace(/=+$/, '')}'`, { kind: 'hash', algorithm: 'sha256', value: sha256.replace(/=+$/, '') }],
    [
      `'sha256-${sha256.replace(/\+/g, '-').replace(/\//g, '_')}'`,
      { kind: 'hash', algorithm: 'sha256', value: sha256.replace(/\+/g, '-').replace(/\//g, '_') },
    ],
    [`'SHA384-${sha384}'`, { kind: 'hash', algorithm: 'sha384', value: sha384 }],
    [`'sha512-${sha512}'`, { kind: 'hash', algorithm: 'sha512', value: sha512 }],
    ['https:', { kind: 'scheme', scheme: 'https' }],
    ['HTTPS:', { kind: 'scheme', scheme: 'https' }],
    ['data:', { kind: 'scheme', scheme: 'data' }],
    ['blob:', { kind: 'scheme', scheme: 'blob' }],
    ['web+app:', { kind: 'scheme', scheme: 'web+app' }],
    ['cdn.example.com', { kind: 'host', host: 'cdn.example.com' }],
    ['CDN.Example.COM', { kind: 'host', host: 'cdn.example.com' }],
    ['localhost', { kind: 'host', host: 'localhost' }],
    ['127.0.0.1', { kind: 'host', host: '127.0.0.1' }],
    ['10.0.0.1:8080', { kind: 'host', host: '10.0.0.1', port: 8080 }],
    ['*', { kind: 'host', host: '*' }],
    ['*.example.com', { kind: 'host', host: '*.example.com' }],
    ['https://*', { kind: 'host', scheme: 'https', host: '*' }],
    ['https://*.example.com', { kind: 'host', scheme: 'https', host: '*.example.com' }],
    ['HTTPS://CDN.example.com', { kind: 'host', scheme: 'https', host: 'cdn.example.com' }],
    ['wss://socket.example.com', { kind: 'host', scheme: 'wss', host: 'socket.example.com' }],
    ['cdn.example.com:8443', { kind: 'host', host: 'cdn.example.com', port: 8443 }],
    ['cdn.example.com:*', { kind: 'host', host: 'cdn.example.com', port: '*' }],
    ['cdn.example.com:65535', { kind: 'host', host: 'cdn.example.com', port: 65535 }],
    [
      'https://cdn.example.com:443/js/',
      { kind: 'host', scheme: 'https', host: 'cdn.example.com', port: 443, path: '/js/' },
    ],
    ['https://js.example.net/app.js', { kind: 'host', scheme: 'https', host: 'js.example.net', path: '/app.js' }],
    [
      'https://js.example.net/Lib/App.JS',
      { kind: 'host', scheme: 'https', host: 'js.example.net', path: '/Lib/App.JS' },
    ],
    ['js.example.net/lib/', { kind: 'host', host: 'js.example.net', path: '/lib/' }],
    ['https://cdn.example.com/a%20b.js', { kind: 'host', scheme: 'https', host: 'cdn.example.com', path: '/a%20b.js' }],
    [
      'https://cdn.example.com/~u/app-1.0_(x)!$&*+=:@.js',
      { kind: 'host', scheme: 'https', host: 'cdn.example.com', path: '/~u/app-1.0_(x)!$&*+=:@.js' },
    ],
  ])('%s', (source, expected) => {
    expect(parseCspValue(`script-src ${source}`)).toStrictEqual({
      ok: true,
      value: [{ name: 'script-src', sources: [expected] }],
    });
  });

  test("the service's keywords are 'self', 'none', 'unsafe-inline' and 'unsafe-eval'", () => {
    expect(CSP_KEYWORDS).toStrictEqual(['self', 'none', 'unsafe-inline', 'unsafe-eval']);
  });

  test.each(CSP_KEYWORDS.map((keyword) => [keyword]))("the keyword '%s'", (keyword) => {
    expect(parsed(`script-src '${keyword}'`)).toStrictEqual([
      { name: 'script-src', sources: [{ kind: 'keyword', keyword }] },
    ]);
  });

  test("the service's directives, and no other", () => {
    expect(CSP_DIRECTIVES).toStrictEqual([
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
    ]);
  });

  const withSources = CSP_DIRECTIVES.filter((name) => name !== 'upgrade-insecure-requests');
  test.each(withSources.map((name) => [name]))('the directive %s, in any case, with every form of source', (name) => {
    const sources = `'self' 'unsafe-inline' 'unsafe-eval' 'sha256-${sha256}' https: *.example.com https://cdn.example.com:*/js/`;
    expect(parsed(`${name.toUpperCase()} ${sources}`)).toStrictEqual([
      {
        name,
        sources: [
          { kind: 'keyword', keyword: 'self' },
          { kind: 'keyword', keyword: 'unsafe-inline' },
          { kind: 'keyword', keyword: 'unsafe-eval' },
          { kind: 'hash', algorithm: 'sha256', value: sha256 },
          { kind: 'scheme', scheme: 'https' },
          { kind: 'host', host: '*.example.com' },
          { kind: 'host', scheme: 'https', host: 'cdn.example.com', port: '*', path: '/js/' },
        ],
      },
    ]);
    expect(parsed(`${name} 'none'`)).toStrictEqual([{ name, sources: [{ kind: 'keyword', keyword: 'none' }] }]);
  });

  test.each([
    ['upgrade-insecure-requests', [{ name: 'upgrade-insecure-requests', sources: [] }]],
    ['UPGRADE-INSECURE-REQUESTS ;', [{ name: 'upgrade-insecure-requests', sources: [] }]],
    [
      "frame-ancestors 'none'; upgrade-insecure-requests",
      [
        { name: 'frame-ancestors', sources: [{ kind: 'keyword', keyword: 'none' }] },
        { name: 'upgrade-insecure-requests', sources: [] },
      ],
    ],
    [
      "upgrade-insecure-requests; form-action 'self'; base-uri 'self'",
      [
        { name: 'upgrade-insecure-requests', sources: [] },
        { name: 'form-action', sources: [{ kind: 'keyword', keyword: 'self' }] },
        { name: 'base-uri', sources: [{ kind: 'keyword', keyword: 'self' }] },
      ],
    ],
  ])('%j: upgrade-insecure-requests, with no sources', (text, expected) => {
    expect(parsed(text)).toStrictEqual(expected);
  });

  test('a value of 6,000 characters, the limit, whitespace included', () => {
    const text = sourcesUpTo(CSP_VALUE_MAX_LENGTH);
    expect(text).toHaveLength(6000);
    expect(parsed(text)[0]?.sources).toHaveLength(358);
    expect(parsed("script-src 'self'".padEnd(6000, ' '))).toHaveLength(1);
  });

  test('several directives, sources in the order written, any whitespace and a trailing ";"', () => {
    expect(
      parsed("\n script-src  'self'\tcdn.example.com https://js.example.net/app.js ;; img-src data: ;  "),
    ).toStrictEqual([
      {
        name: 'script-src',
        sources: [
          { kind: 'keyword', keyword: 'self' },
          { kind: 'host', host: 'cdn.example.com' },
          { kind: 'host', scheme: 'https', host: 'js.example.net', path: '/app.js' },
        ],
      },
      { name: 'img-src', sources: [{ kind: 'scheme', scheme: 'data' }] },
    ]);
  });

  test("'none' alone, even twice", () => {
    expect(parsed("script-src 'none' 'NONE'")).toStrictEqual([
      {
        name: 'script-src',
        sources: [
          { kind: 'keyword', keyword: 'none' },
          { kind: 'keyword', keyword: 'none' },
        ],
      },
    ]);
  });
});

describe('parseCspValue refuses', () => {
  test.each<[string, string, number, string]>([
    ['', '', 0, 'the value has no directive'],
    ['  ;  ; ', '', 0, 'the value has no directive'],
    ['script-src', 'script-src', 0, 'script-src has no sources'],
    ['script-src ;img-src a.com', 'script-src', 0, "give at least one, or 'none'"],
    ['scirpt-src a.com', 'scirpt-src', 0, 'unknown directive; did you mean script-src?'],
    [
      'javascript a.com',
      'javascript',
      0,
      'unknown directive; the service supports script-src, connect-src, default-src, img-src, style-src, font-src, object-src, media-src, child-src, form-action, worker-src, base-uri, manifest-src, frame-src, frame-ancestors, upgrade-insecure-requests',
    ],
    ['frame-ancestor a.com', 'frame-ancestor', 0, 'unknown directive; did you mean frame-ancestors?'],
    ['upgrade-insecure-request', 'upgrade-insecure-request', 0, 'did you mean upgrade-insecure-requests?'],
    ["'self' cdn.example.com", "'self'", 0, 'a directive must start with its name'],
    ['script-src a.com, img-src b.com', 'a.com,', 11, 'not commas'],
    ['script-src, img-src b.com', 'script-src,', 0, 'directives are separated by ";", not commas'],
    [
      'script-src a.com; style-src b.com; Script-Src c.com',
      'Script-Src',
      35,
      'script-src is already given at position 0',
    ],
    ["script-src 'self', cdn.example.com", "'self',", 11, 'not commas'],
    ['script-src a.com,b.com', 'a.com,b.com', 11, 'not commas'],
    ['script-src  https//x.com', 'https//x.com', 12, 'a scheme must be followed by "://" (write https://x.com)'],
    [
      'script-src http:/x.com/a.js',
      'http:/x.com/a.js',
      11,
      'a scheme must be followed by "://" (write http://x.com/a.js)',
    ],
    [
      'script-src https:cdn.example.com',
      'https:cdn.example.com',
      11,
      'a scheme must be followed by "://" (write https://cdn.example.com)',
    ],
    ['script-src https://', 'https://', 11, 'the host is missing'],
    ['script-src https:///app.js', 'https:///app.js', 11, 'the host is missing after https://'],
    ['script-src /js/app.js', '/js/app.js', 11, 'a source cannot start with "/"'],
    ['script-src //cdn.example.com', '//cdn.example.com', 11, 'a source cannot start with "/"'],
    ['script-src *.', '*.', 11, 'a wildcard must be followed by a domain'],
    ['script-src *example.com', '*example.com', 11, 'a wildcard must be a whole label'],
    ['script-src cdn.*.example.com', 'cdn.*.example.com', 11, 'can only be the whole first label'],
    ['script-src https://*.*.example.com', 'https://*.*.example.com', 11, 'can only be the whole first label'],
    ['script-src cdn.example.com:70000', 'cdn.example.com:70000', 11, 'the port 70000 is out of range'],
    ['script-src cdn.example.com:0', 'cdn.example.com:0', 11, 'the port 0 is out of range'],
    ['script-src cdn.example.com:', 'cdn.example.com:', 11, 'the port is missing after ":"'],
    ['script-src cdn.example.com:https', 'cdn.example.com:https', 11, 'the port "https" is not a number'],
    ['script-src [::1]:8080', '[::1]:8080', 11, 'cannot be IPv6 addresses'],
    ['script-src -cdn.example.com', '-cdn.example.com', 11, 'the label "-cdn" starts with a hyphen'],
    ['script-src cdn-.example.com', 'cdn-.example.com', 11, 'the label "cdn-" ends with a hyphen'],
    ['script-src cdn..example.com', 'cdn..example.com', 11, 'two dots in a row'],
    ['script-src cdn.example.com.', 'cdn.example.com.', 11, 'ends with a dot'],
    ['script-src cdn_x.example.com', 'cdn_x.example.com', 11, 'the character "_" is not allowed'],
    [`script-src ${'a'.repeat(64)}.com`, `${'a'.repeat(64)}.com`, 11, 'a label has at most 63'],
    ['script-src a.com\u00a0b.com', 'a.com\u00a0b.com', 11, 'the character "\\u00a0" is not allowed'],
    ['script-src cdn.example.com//a.js', 'cdn.example.com//a.js', 11, 'the path cannot start with "//"'],
    [
      'script-src https://cdn.example.com/app.js?v=1',
      'https://cdn.example.com/app.js?v=1',
      11,
      'cannot hold a query or fragment',
    ],
    [
      'script-src https://cdn.example.com/app.js#x',
      'https://cdn.example.com/app.js#x',
      11,
      'cannot hold a query or fragment',
    ],
    ['script-src https://cdn.example.com/a%zz.js', 'https://cdn.example.com/a%zz.js', 11, 'percent-encoded byte'],
    [
      'script-src https://cdn.example.com/a"b.js',
      'https://cdn.example.com/a"b.js',
      11,
      "the character '\"' is not allowed in a path",
    ],
    [
      'script-src https://cdn.example.com/a<b>.js',
      'https://cdn.example.com/a<b>.js',
      11,
      'the character "<" is not allowed in a path',
    ],
    ["script-src 'self", "'self", 11, "the opening quote is never closed (write 'self')"],
    ["script-src self'", "self'", 11, "the closing quote has no opening one (write 'self')"],
    ["script-src '", "'", 11, 'a lone single quote'],
    ["script-src ''", "''", 11, 'empty quotes'],
    ["script-src 'self''none'", "'self''none'", 11, 'a quoted source holds no quote inside'],
    ["script-src https://x.com/a'b", "https://x.com/a'b", 11, 'a single quote is only allowed around a keyword'],
    ['script-src "self"', '"self"', 11, "CSP uses single quotes, not double quotes (write 'self')"],
    ['script-src self', 'self', 11, "must be in single quotes (write 'self')"],
    ['script-src unsafe-inline', 'unsafe-inline', 11, "must be in single quotes (write 'unsafe-inline')"],
    ['script-src sha256-abc', 'sha256-abc', 11, "must be in single quotes (write 'sha256-abc')"],
    ["script-src 'sefl'", "'sefl'", 11, "unknown keyword; did you mean 'self'?"],
    ["script-src 'unsafe_inline'", "'unsafe_inline'", 11, "did you mean 'unsafe-inline'?"],
    ["script-src 'anything-goes'", "'anything-goes'", 11, "unknown keyword; the keywords are 'self' 'none'"],
    ["script-src 'sha384'", "'sha384'", 11, "sha384 needs its value after a hyphen, as in 'sha384-...'"],
    ["script-src 'sha1-abc='", "'sha1-abc='", 11, 'unsupported hash algorithm'],
    [
      "script-src 'sha256-abc='",
      "'sha256-abc='",
      11,
      'a sha256 hash is 32 bytes (44 base64 characters with padding), but this one decodes to 2',
    ],
    [
      `script-src 'sha384-${sha256}'`,
      `'sha384-${sha256}'`,
      11,
      'a sha384 hash is 48 bytes (64 base64 characters with padding), but this one decodes to 32',
    ],
    [`script-src 'sha512-${sha384}'`, `'sha512-${sha384}'`, 11, 'a sha512 hash is 64 bytes'],
    [`script-src 'sha256-${sha256}='`, `'sha256-${sha256}='`, 11, 'its length or padding is wrong'],
    [
      `script-src 'sha256-${sha256.slice(0, 41)}'`,
      `'sha256-${sha256.slice(0, 41)}'`,
      11,
      'its length or padding is wrong',
    ],
    ["script-src 'sha256-ab*d'", "'sha256-ab*d'", 11, 'a sha256 hash must be base64 text'],
    ["script-src 'none' 'self'", "'none'", 11, "'none' must be the only source of script-src"],
    ["script-src 'self' 'none'", "'none'", 18, "'none' must be the only source of script-src"],
    ["img-src 'NONE' data:", "'NONE'", 8, "'none' must be the only source of img-src"],
    ['script-src a.com; img-src b_c.com', 'b_c.com', 26, 'the character "_" is not allowed'],
  ])('%j', (text, part, position, reason) => {
    expectRefusal(parseCspValue(text), text, part, position, reason);
  });

  const SERVICE_SUPPORTS = 'the service does not support';
  test.each<['directive' | 'source', string, string, number, string]>([
    [
      'directive',
      'report-uri https://r.example.com/csp',
      'report-uri',
      0,
      'the service adds its own reporting; remove it',
    ],
    [
      'directive',
      "script-src 'self'; report-to csp-endpoint",
      'report-to',
      19,
      'the service adds its own reporting; remove it',
    ],
    [
      'directive',
      'script-src-elem cdn.example.com',
      'script-src-elem',
      0,
      `${SERVICE_SUPPORTS} script-src-elem; write script-src`,
    ],
    [
      'directive',
      "script-src-attr 'none'",
      'script-src-attr',
      0,
      `${SERVICE_SUPPORTS} script-src-attr; write script-src`,
    ],
    [
      'directive',
      'Style-Src-Elem fonts.example.com',
      'Style-Src-Elem',
      0,
      `${SERVICE_SUPPORTS} style-src-elem; write style-src`,
    ],
    [
      'directive',
      "style-src-attr 'unsafe-inline'",
      'style-src-attr',
      0,
      `${SERVICE_SUPPORTS} style-src-attr; write style-src`,
    ],
    [
      'directive',
      'block-all-mixed-content',
      'block-all-mixed-content',
      0,
      `${SERVICE_SUPPORTS} block-all-mixed-content; write upgrade-insecure-requests`,
    ],
    ['directive', 'sandbox allow-scripts', 'sandbox', 0, `${SERVICE_SUPPORTS} sandbox`],
    ['directive', 'trusted-types default', 'trusted-types', 0, `${SERVICE_SUPPORTS} trusted-types`],
    [
      'directive',
      "require-trusted-types-for 'script'",
      'require-trusted-types-for',
      0,
      `${SERVICE_SUPPORTS} require-trusted-types-for`,
    ],
    ['directive', "prefetch-src 'self'", 'prefetch-src', 0, `${SERVICE_SUPPORTS} prefetch-src`],
    ['directive', "navigate-to 'self'", 'navigate-to', 0, `${SERVICE_SUPPORTS} navigate-to`],
    ['directive', "fenced-frame-src 'self'", 'fenced-frame-src', 0, `${SERVICE_SUPPORTS} fenced-frame-src`],
    ['directive', 'plugin-types application/pdf', 'plugin-types', 0, `${SERVICE_SUPPORTS} plugin-types`],
    ['directive', 'require-sri-for script', 'require-sri-for', 0, `${SERVICE_SUPPORTS} require-sri-for`],
    ['source', "script-src 'nonce-r4nd0m'", "'nonce-r4nd0m'", 11, 'the service does not support nonces; use a hash'],
    [
      'source',
      "script-src 'self' 'NONCE-AbC=='",
      "'NONCE-AbC=='",
      18,
      'the service does not support nonces; use a hash',
    ],
    ['source', "script-src 'nonce-'", "'nonce-'", 11, 'the service does not support nonces; use a hash'],
    ['source', "script-src 'nonce'", "'nonce'", 11, 'the service does not support nonces; use a hash'],
    ['source', 'script-src nonce-r4nd0m', 'nonce-r4nd0m', 11, 'the service does not support nonces; use a hash'],
    [
      'source',
      "script-src 'strict-dynamic'",
      "'strict-dynamic'",
      11,
      `${SERVICE_SUPPORTS} 'strict-dynamic'; list the hosts the scripts come from`,
    ],
    [
      'source',
      'script-src strict-dynamic',
      'strict-dynamic',
      11,
      `${SERVICE_SUPPORTS} 'strict-dynamic'; list the hosts the scripts come from`,
    ],
    [
      'source',
      "script-src 'self' 'report-sample'",
      "'report-sample'",
      18,
      `${SERVICE_SUPPORTS} 'report-sample'; remove it (the service adds its own reporting)`,
    ],
    [
      'source',
      "script-src 'wasm-unsafe-eval'",
      "'wasm-unsafe-eval'",
      11,
      `${SERVICE_SUPPORTS} 'wasm-unsafe-eval'; write 'unsafe-eval', which allows WebAssembly as well as eval()`,
    ],
    [
      'source',
      "script-src 'unsafe-hashes'",
      "'unsafe-hashes'",
      11,
      `${SERVICE_SUPPORTS} 'unsafe-hashes'; move the inline event handlers into a script the policy allows, or write 'unsafe-inline'`,
    ],
    [
      'source',
      "script-src 'unsafe-allow-redirects'",
      "'unsafe-allow-redirects'",
      11,
      `${SERVICE_SUPPORTS} 'unsafe-allow-redirects'; remove it (browsers ignore it)`,
    ],
    [
      'source',
      "script-src 'inline-speculation-rules'",
      "'inline-speculation-rules'",
      11,
      `${SERVICE_SUPPORTS} 'inline-speculation-rules'; remove it`,
    ],
    [
      'source',
      "upgrade-insecure-requests 'self'",
      "'self'",
      26,
      'upgrade-insecure-requests takes no sources; remove it',
    ],
    [
      'source',
      "upgrade-insecure-requests https: script-src 'self'",
      'https:',
      26,
      'upgrade-insecure-requests takes no sources; remove it',
    ],
    [
      'source',
      "upgrade-insecure-requests script-src 'self'",
      'script-src',
      26,
      'upgrade-insecure-requests takes no sources; put a ";" before script-src to start another directive',
    ],
    [
      'directive',
      'upgrade-insecure-requests; Upgrade-Insecure-Requests',
      'Upgrade-Insecure-Requests',
      27,
      'upgrade-insecure-requests is already given at position 0; remove this one',
    ],
    [
      'directive',
      'frame-ancestors',
      'frame-ancestors',
      0,
      "frame-ancestors has no sources; give at least one, or 'none' to allow nothing",
    ],
  ])('a %s of %j is refused with the exact reason', (subject, text, part, position, reason) => {
    const result = parseCspValue(text);
    expectRefusal(result, text, part, position, reason);
    expect(!result.ok && result.error.message).toBe(`invalid ${subject} "${part}" at position ${position}: ${reason}`);
  });

  test('a value over 6,000 characters is refused with its length and the limit', () => {
    const text = sourcesUpTo(6012).trimEnd() + ' last.example.com';
    const result = parseCspValue(text);
    expect(text.length).toBeGreaterThan(6012);
    expectRefusal(result, text, text.slice(6000), 6000, `the value is 6,0`);
    const over = text.length - 6000;
    const reason =
      `the value is ${text.length.toLocaleString('en-US')} characters long and the service takes at most 6,000; ` +
      'shorten it, for example with one host source (cdn.example.com) or path (https://cdn.example.com/js/) ' +
      'instead of the full URLs of its scripts';
    expect(result).toStrictEqual({
      ok: false,
      error: {
        part: text.slice(6000),
        position: 6000,
        reason,
        message: `invalid CSP value (its last ${over} characters) at position 6000: ${reason}`,
      },
    });
    const oneOver = `${"script-src 'self'".padEnd(6000, ' ')};`;
    expect(!parseCspValue(oneOver).ok && parseCspValue(oneOver)).toMatchObject({
      error: {
        part: ';',
        message: expect.stringMatching(
          /^invalid CSP value \(its last character\) at position 6000: the value is 6,001 characters long and the service takes at most 6,000;/,
        ),
      },
    });
  });

  test('the message is a whole sentence naming the source, its position and the fix', () => {
    expect(parseCspValue("script-src 'self' https//x.com")).toStrictEqual({
      ok: false,
      error: {
        part: 'https//x.com',
        position: 18,
        reason: 'a scheme must be followed by "://" (write https://x.com)',
        message:
          'invalid source "https//x.com" at position 18: a scheme must be followed by "://" (write https://x.com)',
      },
    });
  });
});

describe('formatCspSource', () => {
  test.each<[CspSource, string]>([
    [{ kind: 'keyword', keyword: 'unsafe-eval' }, "'unsafe-eval'"],
    [{ kind: 'hash', algorithm: 'sha384', value: sha384 }, `'sha384-${sha384}'`],
    [{ kind: 'scheme', scheme: 'blob' }, 'blob:'],
    [{ kind: 'host', host: '*.example.com' }, '*.example.com'],
    [{ kind: 'host', host: 'cdn.example.com', port: '*' }, 'cdn.example.com:*'],
    [
      { kind: 'host', scheme: 'https', host: 'js.example.net', port: 8443, path: '/Lib/' },
      'https://js.example.net:8443/Lib/',
    ],
  ])('%j is %s', (source, text) => {
    expect(formatCspSource(source)).toBe(text);
  });

  test.each<[string, string]>([
    ['HTTPS://CDN.Example.COM:0443/Path/App.js', 'https://cdn.example.com:443/Path/App.js'],
    ["'SHA256-" + sha256 + "'", `'sha256-${sha256}'`],
    ['Data:', 'data:'],
  ])('a parsed %s formats as %s', (written, canonical) => {
    const [directive] = parsed(`script-src ${written}`);
    const [source] = directive?.sources ?? [];
    expect(source && formatCspSource(source)).toBe(canonical);
  });
});

describe('normalizeCspValue', () => {
  test.each<[string, string]>([
    ["script-src 'self'", "script-src 'self'"],
    [
      "  SCRIPT-SRC  b.com https: HTTPS://A.com 'unsafe-inline' 'sha256-" +
        sha256 +
        "' a.com 'self' b.com ;img-src *  ;",
      "script-src 'self' 'unsafe-inline' 'sha256-" + sha256 + "' https: a.com b.com https://a.com; img-src *",
    ],
    [`script-src 'unsafe-eval' 'unsafe-inline' 'self'`, `script-src 'self' 'unsafe-inline' 'unsafe-eval'`],
    [
      `script-src 'sha512-${sha512}' 'sha256-${sha256}' 'self'`,
      `script-src 'self' 'sha256-${sha256}' 'sha512-${sha512}'`,
    ],
    ["frame-ancestors 'none';UPGRADE-INSECURE-REQUESTS;", "frame-ancestors 'none'; upgrade-insecure-requests"],
    ["  upgrade-insecure-requests  ;  base-uri  'self'", "upgrade-insecure-requests; base-uri 'self'"],
    ['script-src wss: data: blob: https:', 'script-src blob: data: https: wss:'],
    ["img-src 'none' 'none'; script-src a.com", "img-src 'none'; script-src a.com"],
  ])('%j normalizes to %j', (text, canonical) => {
    expect(normalizeCspValue(text)).toBe(canonical);
  });

  test.each<[string, string]>([
    ["script-src b.com a.com 'self'", "script-src 'self' a.com b.com"],
    ["script-src 'self' a.com", "\tscript-src\n\n'self'   a.com ;"],
    ["SCRIPT-SRC HTTPS://CDN.EXAMPLE.COM 'SELF'", "script-src 'self' https://cdn.example.com"],
    ['script-src a.com A.COM a.com', 'script-src a.com'],
    ['script-src cdn.example.com:08443', 'script-src cdn.example.com:8443'],
    ["script-src a.com; img-src data: 'self'", "script-src a.com;img-src 'self' data:;"],
  ])('%j and %j are the same value', (a, b) => {
    expect(normalizeCspValue(a)).toBe(normalizeCspValue(b));
  });

  test.each<[string, string]>([
    ['script-src https://a.com/app.js', 'script-src https://a.com/App.js'],
    [`script-src 'sha256-${sha256}'`, `script-src 'sha256-${sha256.toUpperCase()}'`],
    ["frame-ancestors 'none'", "frame-ancestors 'none'; upgrade-insecure-requests"],
    ['script-src a.com; img-src b.com', 'img-src b.com; script-src a.com'],
    ['script-src a.com', 'script-src https://a.com'],
    ['script-src a.com', 'script-src a.com:8443'],
    ['script-src a.com', 'script-src *.a.com'],
    ['script-src a.com', 'default-src a.com'],
  ])('%j and %j are different values', (a, b) => {
    expect(normalizeCspValue(a)).not.toBe(normalizeCspValue(b));
  });

  test('throws a RuleViolation carrying the parse error for an invalid value', () => {
    const thrown = (() => {
      try {
        normalizeCspValue('script-src https//x.com');
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(RuleViolation);
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown instanceof RuleViolation && thrown.ruleError).toStrictEqual({
      part: 'https//x.com',
      position: 11,
      reason: 'a scheme must be followed by "://" (write https://x.com)',
      message: 'invalid source "https//x.com" at position 11: a scheme must be followed by "://" (write https://x.com)',
    });
    expect(thrown instanceof Error && thrown.message).toBe(
      'invalid source "https//x.com" at position 11: a scheme must be followed by "://" (write https://x.com)',
    );
  });
});

describe('qualifiedCspSources', () => {
  test('each source under its directive, canonical; upgrade-insecure-requests by its name alone', () => {
    expect(
      qualifiedCspSources(
        parsed("SCRIPT-SRC 'SELF' CDN.example.com; upgrade-insecure-requests; frame-ancestors 'none'"),
      ),
    ).toStrictEqual([
      "script-src 'self'",
      'script-src cdn.example.com',
      'upgrade-insecure-requests',
      "frame-ancestors 'none'",
    ]);
  });
});
