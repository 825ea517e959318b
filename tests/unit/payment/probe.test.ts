import { probeMarkdown, probeSummaryText } from '../../../provider/format/probe-markdown';
import { judgePage, probeExitStatus, probeReport, type PageLoad } from '../../../provider/payment/probe';
import { probeReportSchema, type ProbePage } from '../../../provider/payment/probe-schema';
import type { PaymentScript } from '../../../provider/payment/scripts';
import { provider } from '../../../provider/dynamic/runtime/script-inventory';
import type { ManagedPolicy, StackInventory } from '../../../provider/stack/inventories';
import { parseScriptInventory } from '../../../rules/inventory';
import { ZONE } from '../../helpers/inputs';

/**
 * edgeguard-probe's judgement (provider/payment/probe.ts) of what a browser received on a payment
 * page, against the inventory, page security's reading and the stack's CSP policies; its report's
 * schema and words; and the inventory's `headers` input as check takes it.
 */

const HOST = 'shop.example.com';
const CARD = 'https://js.pay.example/v3/card.js';
const OWN = `https://${HOST}/js/checkout.js`;
const [PINNED, OTHER, THIRD] = ['a1', 'b2', 'c3'].map((two) => two.repeat(32)) as [string, string, string];
const CSP = `script-src ${CARD} https://${HOST}/js/`;

const parsed = parseScriptInventory({
  pages: [`${HOST}/checkout`],
  scripts: [
    { url: CARD, justification: 'Card form', hash: PINNED },
    { prefix: `https://${HOST}/js/`, justification: 'Our code' },
  ],
});
if (!parsed.ok) throw new Error(parsed.error.message);
const INVENTORY: StackInventory = {
  name: 'checkout-scripts',
  urn: 'urn:inventory',
  zoneId: ZONE,
  inventory: parsed.value,
  headers: { 'x-frame-options': 'DENY' },
};
const PAGE = parsed.value.pages[0]!;
const POLICIES: ManagedPolicy[] = [
  {
    name: 'enforce',
    urn: 'urn:enforce',
    zoneId: ZONE,
    policyId: 'p1',
    declared: { description: '', action: 'allow', expression: `http.host eq "${HOST}"`, value: CSP, enabled: true },
  },
];

function reported(url: string, hash: string, pages = [`${HOST}/checkout`]): PaymentScript {
  return { url, hash, inventoryPages: pages } as PaymentScript;
}
const REPORTED = [reported(CARD, PINNED), reported(OWN, THIRD)];

function load(change: Partial<Extract<PageLoad, { ok: true }>> = {}): PageLoad {
  return {
    ok: true,
    status: 200,
    finalUrl: `https://${HOST}/checkout`,
    // Source order and case differ from the declaration: the same policy.
    headers: {
      'content-security-policy': `script-src https://${HOST}/js/ ${CARD}`,
      'x-frame-options': 'DENY',
      server: 'edge',
    },
    scripts: [
      { url: OWN, sha256: THIRD },
      { url: CARD, sha256: PINNED },
    ],
    violations: [],
    ...change,
  };
}

const judge = (pageLoad: PageLoad, reading = REPORTED) => judgePage(INVENTORY, PAGE, pageLoad, reading, POLICIES);

test('as pinned: no alert, the security headers kept (no other), the scripts sorted with entry and page security', () => {
  const page = judge(load());
  expect(page.alerts).toEqual([]);
  expect(page.headers).toEqual({
    'content-security-policy': `script-src https://${HOST}/js/ ${CARD}`,
    'x-frame-options': 'DENY',
  });
  expect(
    page.scripts.map((script) => [script.url, script.integrity, script.entry, script.pageSecurity.reported]),
  ).toEqual([
    [CARD, 'unchanged', CARD, true],
    [OWN, 'unpinned', `https://${HOST}/js/`, true],
  ]);
});

test.each([
  ['page security sees the same change', OTHER, 'with-browser'],
  ['page security still reports the pinned version', PINNED, 'with-pin'],
  ['page security reports a third version', THIRD, 'with-neither'],
] as const)('a pinned script received with another hash, %s', (_, service, agrees) => {
  const page = judge(load({ scripts: [{ url: CARD, sha256: OTHER }] }), [reported(CARD, service)]);
  expect(page.alerts).toEqual([
    {
      kind: 'script-changed',
      url: CARD,
      entryIndex: 0,
      pinned: PINNED,
      received: OTHER,
      pageSecurity: service,
      pageSecurityAgrees: agrees,
    },
  ]);
});

test('a script no entry authorizes, and page security reports neither it nor a script seen only on another page', () => {
  const stray = 'https://cdn.other.example/x.js';
  const page = judge(
    load({
      scripts: [
        { url: stray, sha256: OTHER },
        { url: OWN, sha256: THIRD },
      ],
    }),
    [reported(OWN, THIRD, [`${HOST}/other`])],
  );
  expect(page.alerts).toEqual([
    { kind: 'script-unauthorized', url: stray, sha256: OTHER },
    { kind: 'script-unreported', url: stray, sha256: OTHER },
    { kind: 'script-unreported', url: OWN, sha256: THIRD },
  ]);
});

test('headers: a CSP not the stack’s, a report-only one it does not declare, a pinned header missing', () => {
  const page = judge(
    load({
      headers: {
        'content-security-policy': `script-src ${CARD}`,
        'content-security-policy-report-only': "script-src 'none'\nscript-src 'self'",
      },
    }),
  );
  expect(page.alerts).toEqual([
    {
      kind: 'header-changed',
      header: 'x-frame-options',
      expected: 'DENY',
      received: null,
      pinnedBy: 'inventory',
      managedBy: [],
    },
    {
      kind: 'header-changed',
      header: 'content-security-policy',
      expected: CSP,
      received: `script-src ${CARD}`,
      pinnedBy: 'stack',
      managedBy: [{ name: 'enforce', urn: 'urn:enforce' }],
    },
    {
      kind: 'header-changed',
      header: 'content-security-policy-report-only',
      expected: null,
      received: "script-src 'none', script-src 'self'",
      pinnedBy: 'stack',
      managedBy: [],
    },
  ]);
});

test('a page that did not load: one alert, nothing else judged', () => {
  expect(judge({ ok: false, status: 503, reason: 'HTTP 503 Service Unavailable' })).toEqual({
    page: `${HOST}/checkout`,
    url: `https://${HOST}/checkout`,
    loaded: false,
    status: 503,
    headers: {},
    scripts: [],
    violations: [],
    alerts: [{ kind: 'page-unavailable', reason: 'HTTP 503 Service Unavailable' }],
  });
});

function reportOf(pages: ProbePage[]) {
  return probeReport({
    project: 'shop',
    stack: 'prod',
    toolVersion: '0.1.0',
    browser: 'chrome/156',
    staging: { resolve: [], insecure: false },
    evaluatedAt: '2026-11-27T10:00:00.000Z',
    inventories: [{ name: 'checkout-scripts', urn: 'urn:inventory', zoneId: ZONE, pages }],
  });
}

test('the report passes its schema; exit 0 without alerts, 1 with one', () => {
  const clean = reportOf([judge(load())]);
  expect(probeReportSchema.parse(clean)).toEqual(clean);
  expect([clean.passed, probeExitStatus(clean)]).toEqual([true, 0]);
  const alerting = reportOf([
    judge(load({ scripts: [] })),
    judge({ ok: false, reason: 'net::ERR_CONNECTION_REFUSED' }),
  ]);
  expect(probeReportSchema.parse(alerting).counts).toEqual({ pages: 2, loaded: 1, scripts: 0, alerts: 1 });
  expect([alerting.passed, probeExitStatus(alerting)]).toEqual([false, 1]);
});

test('a page’s hostile values are data: code in Markdown, control characters escaped on the terminal', () => {
  const hostile = 'https://evil.example/`x`|<img src=x onerror=alert(1)>\u001b[31m.js';
  const report = reportOf([judge(load({ scripts: [{ url: hostile, sha256: OTHER }] }))]);
  const markdown = probeMarkdown(report);
  expect(markdown).not.toContain('<img src=x onerror=alert(1)>\u001b');
  expect(markdown).toContain('``https://evil.example/`x`\\|<img');
  const summary = probeSummaryText(report);
  expect(summary).not.toContain('\u001b');
  expect(summary).toContain('\\x1b[31m.js ran and no entry of the inventory authorizes it');
});

describe('ScriptInventory headers, as check takes them', () => {
  const inputs = {
    zoneId: ZONE,
    pages: [`${HOST}/checkout`],
    scripts: [{ url: CARD, justification: 'Card form' }],
  };
  const check = (headers: unknown) => provider.check({}, { ...inputs, headers });

  test('the security headers, any case, each with its exact value', async () => {
    const result = await check({ 'Strict-Transport-Security': 'max-age=63072000', 'x-frame-options': 'DENY' });
    expect(result.failures ?? []).toEqual([]);
  });

  test.each([
    ['server', 'edge', '"server" is not a security header the probe records; pin one of strict-transport-security'],
    ['Content-Security-Policy', "script-src 'self'", "is set by the stack's CspPolicy resources"],
    ['x-frame-options', 'DENY\r\nSet-Cookie: a=b', 'holds a line break'],
    ['x-frame-options', ' DENY', 'without spaces around it'],
  ])('refused, naming the header: %s', async (name, value, reason) => {
    const result = await check({ [name]: value });
    expect(result.failures).toEqual([
      { property: expect.stringContaining('headers'), reason: expect.stringContaining(reason) },
    ]);
  });

  test('the same header twice in two cases is refused', async () => {
    const result = await check({ 'X-Frame-Options': 'DENY', 'x-frame-options': 'DENY' });
    expect(result.failures).toEqual([
      { property: expect.stringContaining('headers'), reason: expect.stringContaining('pinned twice') },
    ]);
  });
});
