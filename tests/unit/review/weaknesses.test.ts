import { parseCspValue, type CspDirective } from '../../../rules/csp';
import { unwrap } from '../../../rules/result';
import {
  cspWeaknesses,
  policiesWeaknesses,
  weaknessText,
  type CspWeakness,
  type PolicyOnHost,
} from '../../../provider/impact/weaknesses';

/**
 * The weaknesses of a policy (issue 24, item 4), as Google's CSP Evaluator finds them, less the
 * advice the service cannot follow, and judged for what the policy governs.
 */

const parse = (value: string): CspDirective[] => unwrap(parseCspValue(value));
const weaknesses = (value: string, alongside: string[] = []) =>
  cspWeaknesses(parse(value), { alongside: alongside.map(parse) });
/** The weaknesses without their messages, which the cases below read apart. */
const found = (value: string, alongside: string[] = []) =>
  weaknesses(value, alongside).map(({ severity, directive, source, check }) => ({
    severity,
    directive,
    ...(source !== undefined ? { source } : {}),
    check,
  }));
const highs = (list: CspWeakness[]) => list.filter((weakness) => weakness.severity === 'high');

/** The flagship's storefront policy (index.ts, examples/csp-review). */
const STOREFRONT = "script-src 'self' www.googletagmanager.com cdn.jsdelivr.net static.hotjar.com";
const CLEAN =
  "script-src 'self' https://cdn.jsdelivr.net/npm/pkg@1.0.0/dist/app.js; object-src 'none'; base-uri 'self'";

test('the storefront policy: cdn.jsdelivr.net is a bypass, object-src is missing, and nothing is said of the other hosts', () => {
  expect(found(STOREFRONT)).toEqual([
    { severity: 'high', directive: 'object-src', check: 'MISSING_DIRECTIVES' },
    { severity: 'high', directive: 'script-src', source: 'cdn.jsdelivr.net', check: 'SCRIPT_ALLOWLIST_BYPASS' },
  ]);
  const bypass = weaknesses(STOREFRONT).find((weakness) => weakness.source === 'cdn.jsdelivr.net')!;
  expect(bypass.message).toContain('cdn.jsdelivr.net is known to host JSONP endpoints and Angular libraries');
  expect(bypass.message).toContain('by their full URLs');
  expect(weaknessText(bypass)).toMatch(/^high script-src cdn\.jsdelivr\.net: cdn\.jsdelivr\.net is known/);
});

test("'unsafe-inline' is high and 'unsafe-eval' medium in the script sources, with what to do", () => {
  expect(found("script-src 'self' 'unsafe-inline' 'unsafe-eval'; object-src 'none'")).toEqual([
    { severity: 'high', directive: 'script-src', source: "'unsafe-inline'", check: 'SCRIPT_UNSAFE_INLINE' },
    { severity: 'medium', directive: 'script-src', source: "'unsafe-eval'", check: 'SCRIPT_UNSAFE_EVAL' },
  ]);
  const [inline] = weaknesses("script-src 'unsafe-inline'; object-src 'none'");
  expect(inline!.message).toContain("allow each inline script by its hash ('sha256-...')");
  // Beside a hash, browsers ignore 'unsafe-inline', and so does the evaluator.
  expect(found(`script-src 'unsafe-inline' 'sha256-${'A'.repeat(43)}='; object-src 'none'`)).toEqual([]);
});

test('a lone wildcard or scheme where scripts come from, under the directive that governs them', () => {
  expect(found("default-src *; object-src 'none'")).toEqual([
    { severity: 'high', directive: 'default-src', source: '*', check: 'PLAIN_WILDCARD' },
  ]);
  expect(found("script-src https: data:; object-src 'none'")).toEqual([
    { severity: 'high', directive: 'script-src', source: 'https:', check: 'PLAIN_URL_SCHEMES' },
    { severity: 'high', directive: 'script-src', source: 'data:', check: 'PLAIN_URL_SCHEMES' },
  ]);
  // Images from anywhere let no script in.
  expect(found("script-src 'self'; img-src * data:; object-src 'none'")).toEqual([]);
});

test("advice the service cannot follow is left out: no nonces, no 'strict-dynamic', no reporting, no doubts on every host", () => {
  // The library's strict checks would say "Consider using 'strict-dynamic' in combination with
  // CSP nonces or hashes" of any list of hosts, and its MEDIUM_MAYBE check "make sure that this
  // URL doesn't serve JSONP" of each host and of 'self'.
  const value = "script-src 'self' js.stripe.com https://www.google.com/recaptcha/api.js; object-src 'none'";
  expect(weaknesses(value)).toEqual([]);
  for (const weakness of [...weaknesses(STOREFRONT), ...weaknesses("script-src 'unsafe-inline' 'unsafe-eval' *")]) {
    expect(weakness.message).not.toMatch(/strict-dynamic|nonce-|report-uri|report-to/);
    expect(weakness.message).not.toMatch(/use (a )?nonce/i);
  }
});

test('a clean policy: object-src and base-uri set, scripts by full URL on a bypass host: no high finding', () => {
  expect(highs(weaknesses(CLEAN))).toEqual([]);
  expect(found(CLEAN)).toEqual([]);
});

test('a JSONP host that needs eval() is a bypass only beside unsafe-eval', () => {
  expect(found("script-src www.googletagmanager.com; object-src 'none'")).toEqual([]);
  expect(found("script-src www.googletagmanager.com 'unsafe-eval'; object-src 'none'")).toEqual([
    { severity: 'high', directive: 'script-src', source: 'www.googletagmanager.com', check: 'SCRIPT_ALLOWLIST_BYPASS' },
    { severity: 'medium', directive: 'script-src', source: "'unsafe-eval'", check: 'SCRIPT_UNSAFE_EVAL' },
  ]);
});

test('a policy of connect-src alone is not told about scripts; a source over plain http is its weakness', () => {
  expect(found("connect-src 'self' api.stripe.com")).toEqual([]);
  expect(found('connect-src http://collect.example.com')).toEqual([
    { severity: 'medium', directive: 'connect-src', source: 'http://collect.example.com', check: 'SRC_HTTP' },
  ]);
});

test('object-src missing is not a weakness where a policy enforced beside it sets object-src or default-src', () => {
  const missing = [{ severity: 'high', directive: 'object-src', check: 'MISSING_DIRECTIVES' }];
  expect(found("script-src 'self'")).toEqual(missing);
  expect(found("script-src 'self'", ["object-src 'none'"])).toEqual([]);
  expect(found("script-src 'self'", ["default-src 'self'"])).toEqual([]);
  // One beside it that restricts no objects either changes nothing.
  expect(found("script-src 'self'", ["connect-src 'self'"])).toEqual(missing);
  // A policy's own default-src covers it.
  expect(found("default-src 'self'")).toEqual([]);
});

test('policies of a stack: judged with the allow policies of the same host, not with a log policy or another host', () => {
  const policy = (name: string, hostname: string | undefined, effect: PolicyOnHost['effect'], value: string) => ({
    name,
    zoneId: 'z1',
    hostname,
    effect,
    value,
  });
  const result = policiesWeaknesses([
    policy('scripts', 'shop.example.com', 'block', "script-src 'self'"),
    policy('objects', 'shop.example.com', 'block', "object-src 'none'; connect-src 'self'"),
    policy('report-only', 'other.example.com', 'report', "script-src 'self'"),
    policy('report-only-objects', 'other.example.com', 'report', "object-src 'none'"),
    policy('unreadable', 'shop.example.com', 'block', "script-src 'nonce-abc'"),
  ]);
  expect(
    result.map(({ policy: { name }, weaknesses: list }) => [name, list.map((weakness) => weakness.check)]),
  ).toEqual([
    ['scripts', []],
    ['objects', []],
    ['report-only', ['MISSING_DIRECTIVES']],
    ['report-only-objects', []],
  ]);
});
