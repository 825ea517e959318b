/**
 * EdgeGuard's reading of CSP as a library (`pulumi-edgeguard/csp`): the grammar the service
 * accepts, and what Chromium and Firefox do with a page's fetch under its policies, so that a team
 * can assert in its own tests what a policy lets in and what it keeps out, before a change reaches
 * the review or a browser.
 *
 * - Parsing: {@link parseCspValue} gives the directives of a policy value, or the first problem
 *   with the part refused and why (what the service would answer with an HTTP 400);
 *   {@link normalizeCspValue} the canonical text the provider compares; {@link formatCspSource}
 *   one source's text.
 * - The judgement, per browser ({@link BROWSERS}), held to what real Chromium and Firefox did on
 *   recorded cases: {@link cspAllowsUrl} (one policy, enforced: does every browser let the fetch
 *   through? its `upgrade-insecure-requests` applied, mixed content not counted),
 *   {@link cspAllowsUrlIn} (the same in one browser), {@link judgeFetch} (all of a page's
 *   headers, enforced and report-only: allowed, reported, blocked, or mixed content, and which
 *   header decided), {@link isMixedContent}.
 * - The weaknesses: {@link cspWeaknesses} gives what a policy lets in that injected markup can use
 *   to run code past it (a host serving JSONP endpoints or AngularJS, `'unsafe-inline'`, a lone
 *   `*` or scheme, `object-src` missing, ...), of high and medium severity, as Google's CSP
 *   Evaluator finds it, less the advice the service cannot follow (nonces, `'strict-dynamic'`).
 *
 * Loading it costs only these pure functions: no client, no Pulumi.
 *
 * @example A team's own jest test of its checkout policy:
 * ```ts
 * import { cspAllowsUrl, cspWeaknesses, judgeFetch, parseCspValue } from 'pulumi-edgeguard/csp';
 *
 * const checkout = parseCspValue("script-src 'self' https://js.stripe.com; connect-src 'self' https://api.stripe.com");
 * if (!checkout.ok) throw new Error(checkout.error.message);
 * const page = new URL('https://shop.example.com/checkout');
 *
 * test('checkout loads Stripe and talks to its API, and nothing else', () => {
 *   expect(cspAllowsUrl(checkout.value, 'script', new URL('https://js.stripe.com/v3/'), page)).toBe(true);
 *   expect(cspAllowsUrl(checkout.value, 'connection', new URL('https://api.stripe.com/v1/tokens'), page)).toBe(true);
 *   expect(cspAllowsUrl(checkout.value, 'script', new URL('https://cdn.example.net/ads.js'), page)).toBe(false);
 *   // 'self' is the page's origin, port included.
 *   expect(cspAllowsUrl(checkout.value, 'script', new URL('https://shop.example.com:8443/app.js'), page)).toBe(false);
 * });
 *
 * test('Stripe over plain http never loads on the https page', () => {
 *   const verdict = judgeFetch(
 *     [{ directives: checkout.value, reportOnly: false }],
 *     'script',
 *     new URL('http://js.stripe.com/v3/'),
 *     page,
 *     'chromium',
 *   );
 *   expect(verdict.outcome).toBe('blocked'); // the policy refuses http: (it names https://js.stripe.com)
 *   expect(verdict.mixedContent).toBe(true); // and the browser would stop it as mixed content anyway
 * });
 *
 * test("checkout's one weakness: object-src is missing (add object-src 'none')", () => {
 *   const found = cspWeaknesses(checkout.value).map((weakness) => [weakness.severity, weakness.directive]);
 *   expect(found).toEqual([['high', 'object-src']]);
 * });
 * ```
 */
export {
  parseCspValue,
  normalizeCspValue,
  formatCspSource,
  CSP_DIRECTIVES,
  CSP_KEYWORDS,
  CSP_HASH_ALGORITHMS,
  CSP_VALUE_MAX_LENGTH,
  type CspDirective,
  type CspDirectiveName,
  type CspSource,
  type CspKeyword,
  type CspHashAlgorithm,
} from '../rules/csp';
export { RuleViolation, type ParseResult, type RuleError } from '../rules/result';
export {
  BROWSERS,
  GOVERNING_DIRECTIVES,
  cspAllowsUrl,
  cspAllowsUrlIn,
  governingDirective,
  isMixedContent,
  judgeFetch,
  type Browser,
  type CspFetchKind,
  type FetchOutcome,
  type FetchVerdict,
  type PageHeader,
} from '../rules/csp-match';
export {
  cspWeaknesses,
  weaknessText,
  type CspWeakness,
  type CspWeaknessOptions,
  type CspWeaknessSeverity,
} from './impact/weaknesses';
