import { parseCspValue } from '../../../rules/csp';
import { cspAllowsUrl } from '../../../rules/csp-match';
import { cspProgram, writePolicy } from '../../../provider/program/csp';
import type { Detected } from '../../../provider/impact/evaluate';
import { cspWeaknesses } from '../../../provider/impact/weaknesses';

/**
 * The policy edgeguard-csp writes (issue 20, item 2): every detected item that is not malicious
 * allowed by the tightest source that allows it, nothing malicious, and what it left out with the
 * reason. Each case checks the value both as text and by the rules the review applies.
 */

const HOST = 'checkout.example.com';
/** What every written policy ends with: no plugins, and a <base> only to the page's own origin. */
const CLOSING = "; object-src 'none'; base-uri 'self'";
const PAGE = `https://${HOST}/pay`;

const item = (url: string, extra: Partial<Detected> = {}): Detected => ({
  id: url,
  url,
  status: 'active',
  firstPageUrl: PAGE,
  lastSeenAt: '2026-11-20T00:00:00.000Z',
  jsIntegrityScore: 50,
  reports: [],
  ...extra,
});

function parsed(value: string) {
  const result = parseCspValue(value);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

function allowed(value: string, kind: 'script' | 'connection', url: string, page = PAGE): boolean {
  return cspAllowsUrl(parsed(value), kind, new URL(url), new URL(page));
}

/** The weaknesses of high severity of a written value. */
const highWeaknesses = (value: string) =>
  cspWeaknesses(parsed(value)).filter((weakness) => weakness.severity === 'high');

test("'self' for the host's own origin, a host source for a third party, 'none' for a kind with nothing detected", () => {
  const policy = writePolicy(HOST, {
    script: [
      item(`https://${HOST}/js/payment.js`),
      item('https://js.stripe.com/v3/'),
      item('https://js.stripe.com/v2/'),
    ],
    connection: [],
  });
  expect(policy.value).toBe(`script-src 'self' js.stripe.com; connect-src 'none'${CLOSING}`);
  expect(policy.counts).toEqual({ script: { detected: 3, allowed: 3 }, connection: { detected: 0, allowed: 0 } });
  expect(policy.leftOut).toEqual([]);
});

test('a host serving a malicious and a safe item gets the safe one by its full URL; the malicious one is left out, with why', () => {
  const bad = item('https://cdn.example.net/skim.js', { jsIntegrityScore: 4 });
  const good = item('https://cdn.example.net/app.js');
  const policy = writePolicy(HOST, { script: [bad, good], connection: [] });
  expect(policy.value).toBe(`script-src https://cdn.example.net/app.js; connect-src 'none'${CLOSING}`);
  expect(allowed(policy.value, 'script', good.url)).toBe(true);
  expect(allowed(policy.value, 'script', bad.url)).toBe(false);
  expect(policy.leftOut).toEqual([{ kind: 'script', url: bad.url, reason: 'malicious: js_integrity_score 4' }]);
});

test('an item only a prefix could allow, with a malicious one under it, is left out rather than allow the malicious one', () => {
  const bad = item('https://cdn.example.net/lib/skim.js', { jsIntegrityScore: 2 });
  const dir = item('https://cdn.example.net/lib/');
  const policy = writePolicy(HOST, { script: [bad, dir], connection: [] });
  expect(policy.value).toBe(`script-src 'none'; connect-src 'none'${CLOSING}`);
  expect(policy.leftOut).toContainEqual({
    kind: 'script',
    url: dir.url,
    reason: `no source allows it without also allowing the malicious ${bad.url}`,
  });
});

test('connections: reported ones are left out; a web socket gets its scheme, a port its port', () => {
  const drop = item('https://skimmer-drop.example.info/c.php', { reports: ['domain reported malicious (Malware)'] });
  const policy = writePolicy(HOST, {
    script: [],
    connection: [
      item('https://api.stripe.com/v1/payment_intents'),
      item('wss://live.example.org/socket'),
      item('https://events.example.net:8443/ingest'),
      drop,
    ],
  });
  expect(policy.value).toBe(
    `script-src 'none'; connect-src api.stripe.com events.example.net:8443 wss://live.example.org${CLOSING}`,
  );
  for (const url of [
    'https://api.stripe.com/v1/payment_intents',
    'wss://live.example.org/socket',
    'https://events.example.net:8443/ingest',
  ])
    expect(allowed(policy.value, 'connection', url)).toBe(true);
  expect(allowed(policy.value, 'connection', drop.url)).toBe(false);
  expect(policy.leftOut).toEqual([
    { kind: 'connection', url: drop.url, reason: 'malicious: domain reported malicious (Malware)' },
  ]);
});

test('a script on a host serving JSONP endpoints and AngularJS is allowed by its full URL, not the host: no high weakness', () => {
  const bootstrap = item('https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js');
  const policy = writePolicy(HOST, { script: [bootstrap, item('https://js.stripe.com/v3/')], connection: [] });
  expect(policy.value).toBe(
    `script-src https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js js.stripe.com; connect-src 'none'${CLOSING}`,
  );
  expect(allowed(policy.value, 'script', bootstrap.url)).toBe(true);
  expect(allowed(policy.value, 'script', 'https://cdn.jsdelivr.net/npm/angular@1.8.3/angular.min.js')).toBe(false);
  expect(policy.leftOut).toEqual([]);
  expect(highWeaknesses(policy.value)).toEqual([]);
  // The host source it avoided is the bypass the CSP Evaluator knows.
  expect(highWeaknesses("script-src cdn.jsdelivr.net; object-src 'none'").map((weakness) => weakness.source)).toEqual([
    'cdn.jsdelivr.net',
  ]);
});

test('a script that is itself AngularJS on a listed URL is left out, saying it is a way past the policy', () => {
  const angular = item('https://cdn.jsdelivr.net/angularjs/1.1.2/angular.min.js');
  const policy = writePolicy(HOST, { script: [angular], connection: [] });
  expect(policy.value).toBe(`script-src 'none'; connect-src 'none'${CLOSING}`);
  expect(policy.leftOut).toEqual([
    {
      kind: 'script',
      url: angular.url,
      reason: expect.stringMatching(/^even its full URL is a way past the policy: cdn\.jsdelivr\.net is known to host/),
    },
  ]);
});

test('every written policy sets object-src and base-uri and has no weakness of high severity', () => {
  const policy = writePolicy(HOST, {
    script: [
      item(`https://${HOST}/js/payment.js`),
      item('https://cdn.jsdelivr.net/npm/a@1/a.js'),
      item('https://ajax.googleapis.com/ajax/libs/jquery/3.7.1/jquery.min.js'),
      item('https://www.googletagmanager.com/gtm.js?id=GTM-1'),
    ],
    connection: [item('https://api.stripe.com/v1/payment_intents'), item('http://collect.example.com/c')],
  });
  const directives = parsed(policy.value).map((directive) => directive.name);
  expect(directives).toEqual(['script-src', 'connect-src', 'object-src', 'base-uri']);
  expect(policy.value).toContain("object-src 'none'; base-uri 'self'");
  expect(policy.counts.script).toEqual({ detected: 4, allowed: 4 });
  expect(highWeaknesses(policy.value)).toEqual([]);
  // A host with no known bypass keeps its host source.
  expect(policy.value).toContain(' www.googletagmanager.com');
});

test('the program declares the policy, and lists what it left out in comments', () => {
  const bad = item('https://cdn.example.net/skim.js', { jsIntegrityScore: 4 });
  const text = cspProgram(
    { zoneId: 'a'.repeat(32), host: HOST, action: 'log' },
    writePolicy(HOST, { script: [bad, item('https://js.stripe.com/v3/')], connection: [] }),
  );
  expect(text).toContain('new edgeguard.CspPolicy("csp-checkout-example-com", {');
  expect(text).toContain('action: "log",');
  expect(text).toContain(`expression: 'http.host eq "${HOST}"',`);
  expect(text).toContain(`"script-src js.stripe.com; connect-src 'none'${CLOSING}"`);
  expect(text).toContain(`// - script ${bad.url}: malicious: js_integrity_score 4`);
});
