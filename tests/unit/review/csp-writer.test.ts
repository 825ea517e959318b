import { parseCspValue } from '../../../rules/csp';
import { cspAllowsUrl } from '../../../rules/csp-match';
import { cspProgram, writePolicy } from '../../../provider/review/csp-writer';
import type { Detected } from '../../../provider/review/impact';

/**
 * The policy edgeguard-csp writes (issue 20, item 2): every detected item that is not malicious
 * allowed by the tightest source that allows it, nothing malicious, and what it left out with the
 * reason. Each case checks the value both as text and by the rules the review applies.
 */

const HOST = 'checkout.example.com';
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

function allowed(value: string, kind: 'script' | 'connection', url: string, page = PAGE): boolean {
  const parsed = parseCspValue(value);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return cspAllowsUrl(parsed.value, kind, new URL(url), new URL(page));
}

test("'self' for the host's own origin, a host source for a third party, 'none' for a kind with nothing detected", () => {
  const policy = writePolicy(HOST, {
    script: [
      item(`https://${HOST}/js/payment.js`),
      item('https://js.stripe.com/v3/'),
      item('https://js.stripe.com/v2/'),
    ],
    connection: [],
  });
  expect(policy.value).toBe("script-src 'self' js.stripe.com; connect-src 'none'");
  expect(policy.counts).toEqual({ script: { detected: 3, allowed: 3 }, connection: { detected: 0, allowed: 0 } });
  expect(policy.leftOut).toEqual([]);
});

test('a host serving a malicious and a safe item gets the safe one by its full URL; the malicious one is left out, with why', () => {
  const bad = item('https://cdn.example.net/skim.js', { jsIntegrityScore: 4 });
  const good = item('https://cdn.example.net/app.js');
  const policy = writePolicy(HOST, { script: [bad, good], connection: [] });
  expect(policy.value).toBe("script-src https://cdn.example.net/app.js; connect-src 'none'");
  expect(allowed(policy.value, 'script', good.url)).toBe(true);
  expect(allowed(policy.value, 'script', bad.url)).toBe(false);
  expect(policy.leftOut).toEqual([{ kind: 'script', url: bad.url, reason: 'malicious: js_integrity_score 4' }]);
});

test('an item only a prefix could allow, with a malicious one under it, is left out rather than allow the malicious one', () => {
  const bad = item('https://cdn.example.net/lib/skim.js', { jsIntegrityScore: 2 });
  const dir = item('https://cdn.example.net/lib/');
  const policy = writePolicy(HOST, { script: [bad, dir], connection: [] });
  expect(policy.value).toBe("script-src 'none'; connect-src 'none'");
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
    "script-src 'none'; connect-src api.stripe.com events.example.net:8443 wss://live.example.org",
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

test('the program declares the policy, and lists what it left out in comments', () => {
  const bad = item('https://cdn.example.net/skim.js', { jsIntegrityScore: 4 });
  const text = cspProgram(
    { zoneId: 'a'.repeat(32), host: HOST, action: 'log' },
    writePolicy(HOST, { script: [bad, item('https://js.stripe.com/v3/')], connection: [] }),
  );
  expect(text).toContain('new edgeguard.CspPolicy("csp-checkout-example-com", {');
  expect(text).toContain('action: "log",');
  expect(text).toContain(`expression: 'http.host eq "${HOST}"',`);
  expect(text).toContain(`"script-src js.stripe.com; connect-src 'none'"`);
  expect(text).toContain(`// - script ${bad.url}: malicious: js_integrity_score 4`);
});
