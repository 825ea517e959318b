import { probeMarkdown, probeSummaryLines } from '../../../provider/format/probe-markdown';
import { DEFAULT_CARD } from '../../../provider/payment/card';
import { judgePage, probeExitStatus, type PageLoad, type RanScript } from '../../../provider/payment/probe';
import { probeReportSchema, type ProbePage } from '../../../provider/payment/probe-schema';
import type { PaymentScript } from '../../../provider/payment/scripts';
import { provider } from '../../../provider/dynamic/runtime/script-inventory';
import type { ManagedPolicy, StackInventory } from '../../../provider/stack/inventories';
import { parseScriptInventory } from '../../../rules/inventory';
import { ZONE } from '../../helpers/inputs';
import { reportOf as reportOfZone } from './probe-report';

/**
 * edgeguard-probe's judgement (provider/payment/probe.ts) of what a browser ran and sent on a
 * payment page, load by load, against the inventory, page security's reading and the stack's CSP
 * policies; its report's schema and words; and the inventory's `headers` input as check takes it.
 */

const HOST = 'shop.example.com';
const CARD = 'https://js.pay.example/v3/card.js';
const OWN = `https://${HOST}/js/checkout.js`;
const [PINNED, OTHER, THIRD] = ['a1', 'b2', 'c3'].map((two) => two.repeat(32)) as [string, string, string];
const CSP = `script-src ${CARD} https://${HOST}/js/`;

const CONFIG_HEX = 'd4'.repeat(32);
const CONFIG_SOURCE = `'sha256-${Buffer.from(CONFIG_HEX, 'hex').toString('base64')}'`;
const parsed = parseScriptInventory({
  pages: [`${HOST}/checkout`],
  scripts: [
    { url: CARD, justification: 'Card form', hash: PINNED },
    { prefix: `https://${HOST}/js/`, justification: 'Our code' },
    { inline: CONFIG_SOURCE, justification: 'The shop configuration' },
  ],
  frames: [{ prefix: 'https://js.pay.example/v3/', justification: 'The card frame' }],
  cardDestinations: ['https://api.pay.example/v1/tokens'],
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

const PAGE_URL = `https://${HOST}/checkout`;
const external = (url: string, sha256: string, more: Partial<RanScript> = {}): RanScript => ({
  kind: 'external',
  url,
  sha256,
  frame: PAGE_URL,
  context: 'page',
  ...more,
});
const DESKTOP_1 = { device: 'desktop', load: 1 } as const;

function load(change: Partial<Extract<PageLoad, { ok: true }>> = {}): PageLoad {
  return {
    ok: true,
    device: 'desktop',
    load: 1,
    status: 200,
    finalUrl: PAGE_URL,
    // Source order and case differ from the declaration: the same policy.
    headers: {
      'content-security-policy': `script-src https://${HOST}/js/ ${CARD}`,
      'x-frame-options': 'DENY',
      server: 'edge',
    },
    scripts: [external(OWN, THIRD), external(CARD, PINNED)],
    frames: [],
    serviceWorkers: [],
    cardFields: 4,
    requests: [],
    violations: [],
    ...change,
  };
}

const judge = (pageLoad: PageLoad | PageLoad[], reading = REPORTED) =>
  judgePage(INVENTORY, PAGE, [pageLoad].flat(), reading, POLICIES, DEFAULT_CARD);

test('as pinned: no alert, the security headers kept (no other), the scripts sorted with entry and page security', () => {
  const page = judge(load());
  expect([page.alerts, page.notices]).toEqual([[], []]);
  expect(page.headers).toEqual({
    'content-security-policy': `script-src https://${HOST}/js/ ${CARD}`,
    'x-frame-options': 'DENY',
  });
  expect(
    page.scripts.map((script) => [script.url, script.integrity, script.entry, script.pageSecurity?.reported]),
  ).toEqual([
    [CARD, 'unchanged', CARD, true],
    [OWN, 'unpinned', `https://${HOST}/js/`, true],
  ]);
  expect(page.scripts[0]!.seenOn).toEqual([DESKTOP_1]);
});

test.each([
  ['page security sees the same change', OTHER, 'with-browser'],
  ['page security still reports the pinned version', PINNED, 'with-pin'],
  ['page security reports a third version', THIRD, 'with-neither'],
] as const)('a pinned script received with another hash, %s', (_, service, agrees) => {
  const page = judge(load({ scripts: [external(CARD, OTHER)] }), [reported(CARD, service)]);
  expect(page.alerts).toEqual([
    {
      kind: 'script-changed',
      url: CARD,
      entryIndex: 0,
      pinned: PINNED,
      received: OTHER,
      pageSecurity: service,
      pageSecurityAgrees: agrees,
      seenOn: [DESKTOP_1],
    },
  ]);
});

test('a script no entry authorizes is an alert; an authorized one page security has not reported on any page of the inventory, a notice', () => {
  const stray = 'https://cdn.other.example/x.js';
  const page = judge(load({ scripts: [external(stray, OTHER), external(OWN, THIRD)] }), [reported(OWN, THIRD, [])]);
  expect(page.alerts).toEqual([
    {
      kind: 'script-unauthorized',
      script: 'external',
      url: stray,
      sha256: OTHER,
      frame: PAGE_URL,
      context: 'page',
      seenOn: [DESKTOP_1],
    },
  ]);
  expect(page.notices).toEqual([{ kind: 'script-unreported', url: OWN, sha256: THIRD, seenOn: [DESKTOP_1] }]);
});

test('inline and eval code: authorized by an inline entry’s hash, else an alert with its CSP hash source', () => {
  const other = 'e5'.repeat(32);
  const page = judge(
    load({
      scripts: [
        { kind: 'inline', url: PAGE_URL, sha256: CONFIG_HEX, frame: PAGE_URL, context: 'page' },
        { kind: 'inline', url: PAGE_URL, sha256: other, frame: PAGE_URL, context: 'page' },
        { kind: 'eval', sha256: THIRD, frame: PAGE_URL, context: 'page' },
      ],
    }),
  );
  const source = (hex: string) => `'sha256-${Buffer.from(hex, 'hex').toString('base64')}'`;
  expect(page.alerts).toEqual([
    {
      kind: 'script-unauthorized',
      script: 'inline',
      url: PAGE_URL,
      sha256: other,
      hashSource: source(other),
      frame: PAGE_URL,
      context: 'page',
      seenOn: [DESKTOP_1],
    },
    {
      kind: 'script-unauthorized',
      script: 'eval',
      sha256: THIRD,
      hashSource: source(THIRD),
      frame: PAGE_URL,
      context: 'page',
      seenOn: [DESKTOP_1],
    },
  ]);
  expect(page.scripts.find((script) => script.sha256 === CONFIG_HEX)).toMatchObject({
    entry: CONFIG_SOURCE,
    integrity: 'unchanged',
  });
});

test('an inline script whose text differs at every load is named as one that cannot be pinned', () => {
  const inline = (sha256: string): RanScript => ({
    kind: 'inline',
    url: PAGE_URL,
    sha256,
    frame: PAGE_URL,
    context: 'page',
  });
  const page = judge([load({ scripts: [inline(OTHER)] }), load({ load: 2, scripts: [inline(THIRD)] })]);
  expect(page.alerts.map((alert) => alert.kind === 'script-unauthorized' && alert.changesEveryLoad)).toEqual([
    true,
    true,
  ]);
  expect(probeSummaryLines(reportOf([page])).join('\n')).toContain('its text differs at every load');
});

test('frames: another origin’s frame no entry authorizes is an alert; an authorized frame’s scripts are its provider’s', () => {
  const cardFrame = 'https://js.pay.example/v3/frame.html';
  const fake = 'https://pay-secure.example/form.html';
  const page = judge(
    load({
      frames: [cardFrame, fake, `https://${HOST}/help.html`],
      scripts: [
        external(CARD, PINNED),
        external('https://js.pay.example/v3/inner.js', OTHER, { frame: cardFrame, context: 'frame' }),
      ],
    }),
  );
  expect(page.alerts).toEqual([
    { kind: 'frame-unauthorized', url: fake, host: 'pay-secure.example', seenOn: [DESKTOP_1] },
  ]);
  expect(page.scripts.find((script) => script.frame === cardFrame)).toMatchObject({
    underFrame: 'https://js.pay.example/v3/',
  });
  expect(page.scripts.find((script) => script.frame === cardFrame)!.integrity).toBeUndefined();
});

test('the card sent outside cardDestinations, in each encoding, is an alert naming the URL and the encoding; inside, none', () => {
  const page = judge(
    load({
      requests: [
        { url: 'https://api.pay.example/v1/tokens', via: 'fetch', method: 'POST', body: `card=${DEFAULT_CARD}` },
        { url: `https://stats.example/p.gif?d=${btoa(`cc=${DEFAULT_CARD}`)}`, via: 'image', method: 'GET' },
        { url: 'wss://socket.example/live', via: 'websocket', method: 'SEND', body: '{"n":"4111 1111 1111 1111"}' },
        { url: 'https://stats.example/collect', via: 'beacon', method: 'POST', body: 'v=1&t=pageview' },
      ],
    }),
  );
  expect(page.alerts).toEqual([
    {
      kind: 'card-sent',
      url: `https://stats.example/p.gif?d=${btoa(`cc=${DEFAULT_CARD}`)}`,
      host: 'stats.example',
      via: 'image',
      encoding: 'base64',
      seenOn: [DESKTOP_1],
    },
    {
      kind: 'card-sent',
      url: 'wss://socket.example/live',
      host: 'socket.example',
      via: 'websocket',
      encoding: 'separated',
      seenOn: [DESKTOP_1],
    },
  ]);
});

test('redirected off the inventory’s pages, a service worker no entry authorizes, a script the enforced CSP blocked', () => {
  const page = judge(
    load({
      finalUrl: 'https://checkout-secure.example/pay',
      serviceWorkers: [`https://${HOST}/js/sw.js`, 'https://evil.example/sw.js'],
      violations: [
        { directive: 'script-src-elem', blockedUrl: 'inline', disposition: 'enforce' },
        { directive: 'script-src-elem', blockedUrl: 'https://x.example/a.js', disposition: 'report' },
        { directive: 'img-src', blockedUrl: 'https://x.example/a.gif', disposition: 'enforce' },
      ],
      scripts: [],
    }),
  );
  expect(page.alerts.filter((alert) => !alert.kind.startsWith('header'))).toEqual([
    {
      kind: 'page-redirected',
      finalUrl: 'https://checkout-secure.example/pay',
      host: 'checkout-secure.example',
      seenOn: [DESKTOP_1],
    },
    { kind: 'service-worker-unauthorized', url: 'https://evil.example/sw.js', seenOn: [DESKTOP_1] },
    { kind: 'script-blocked', directive: 'script-src-elem', blockedUrl: 'inline', seenOn: [DESKTOP_1] },
  ]);
});

test('loads merged: an alert seen on several loads is one alert naming each; a phone-only change names the phone', () => {
  const phone = (number: number, sha256: string) =>
    load({ device: 'phone', load: number, scripts: [external(CARD, sha256)] });
  const page = judge([load(), load({ load: 2 }), phone(1, OTHER), phone(2, OTHER)]);
  expect(page.alerts).toEqual([
    expect.objectContaining({
      kind: 'script-changed',
      received: OTHER,
      seenOn: [
        { device: 'phone', load: 1 },
        { device: 'phone', load: 2 },
      ],
    }),
  ]);
  expect(page.loads.map((one) => [one.device, one.load])).toEqual([
    ['desktop', 1],
    ['desktop', 2],
    ['phone', 1],
    ['phone', 2],
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
      seenOn: [DESKTOP_1],
    },
    {
      kind: 'header-changed',
      header: 'content-security-policy',
      expected: CSP,
      received: `script-src ${CARD}`,
      pinnedBy: 'stack',
      managedBy: [{ name: 'enforce', urn: 'urn:enforce' }],
      seenOn: [DESKTOP_1],
    },
    {
      kind: 'header-changed',
      header: 'content-security-policy-report-only',
      expected: null,
      received: "script-src 'none', script-src 'self'",
      pinnedBy: 'stack',
      managedBy: [],
      seenOn: [DESKTOP_1],
    },
  ]);
});

test('a page that did not load: one alert, nothing else judged', () => {
  expect(judge({ ok: false, device: 'desktop', load: 1, status: 503, reason: 'HTTP 503 Service Unavailable' })).toEqual(
    {
      page: `${HOST}/checkout`,
      url: PAGE_URL,
      loaded: false,
      status: 503,
      headers: {},
      loads: [
        { device: 'desktop', load: 1, loaded: false, status: 503, scripts: 0, cardFields: 0, requestsAfterCard: 0 },
      ],
      scripts: [],
      frames: [],
      serviceWorkers: [],
      violations: [],
      alerts: [{ kind: 'page-unavailable', reason: 'HTTP 503 Service Unavailable', seenOn: [DESKTOP_1] }],
      notices: [],
    },
  );
});

const reportOf = (pages: ProbePage[], strict = false) => reportOfZone(pages, ZONE, strict);

test('the report passes its schema; exit 0 without alerts, 1 with one; a notice fails under --strict only', () => {
  const clean = reportOf([judge(load())]);
  expect(probeReportSchema.parse(clean)).toEqual(clean);
  expect([clean.passed, probeExitStatus(clean), clean.formatVersion]).toEqual([true, 0, 2]);
  const alerting = reportOf([
    judge(load({ scripts: [] })),
    judge({ ok: false, device: 'desktop', load: 1, reason: 'net::ERR_CONNECTION_REFUSED' }),
  ]);
  expect(probeReportSchema.parse(alerting).counts).toEqual({
    pages: 2,
    loads: 2,
    loaded: 1,
    scripts: 0,
    alerts: 1,
    notices: 0,
  });
  expect([alerting.passed, probeExitStatus(alerting)]).toEqual([false, 1]);
  const unreported = [judge(load(), [reported(CARD, PINNED)])];
  expect(reportOf(unreported).counts.notices).toBe(1);
  expect(probeExitStatus(reportOf(unreported))).toBe(0);
  expect(probeExitStatus(reportOf(unreported, true))).toBe(1);
});

test('a page’s hostile values are data: code in Markdown, control characters escaped on the terminal, one alert a line', () => {
  const hostile = 'https://evil.example/`x`|<img src=x onerror=alert(1)>\u001b[31m.js\nforged: line';
  const report = reportOf([judge(load({ scripts: [external(hostile, OTHER)] }))]);
  const markdown = probeMarkdown(report);
  expect(markdown).not.toContain('<img src=x onerror=alert(1)>\u001b');
  expect(markdown).toContain('``https://evil.example/`x`\\|<img');
  const lines = probeSummaryLines(report);
  expect(lines).toHaveLength(2);
  expect(lines.join('\n')).not.toContain('\u001b');
  expect(lines[1]).toContain('\\x1b[31m.js\\nforged: line ran and no entry of the inventory authorizes it');
  expect(lines[1]).toContain('[desktop load 1]');
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
