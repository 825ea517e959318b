import * as path from 'node:path';
import type { ProbeAlert, ProbePage, ProbeReport } from '../../provider/payment/probe-schema';
import { startTestEmulator, ZONE_ID, type TestEmulator } from '../helpers/emulator';
import { engineStack, type EngineStack } from '../helpers/engine';
import { runToEnd } from '../helpers/process';
import { REPO } from '../helpers/repo';
import { assertProbeCanRun, runProbe, type ProbeRun } from './probe-origin';
import {
  API_TOKENS,
  CARD_FRAME,
  CARD_FRAME_JS,
  CARD_JS,
  CARD_JS_BODY,
  CHECKOUT_JS,
  CLEAN_ANALYTICS,
  CLEAN_CONFIG,
  CLEAN_HOME,
  CLEAN_JS,
  CLEAN_LATE,
  CLEAN_PAGES,
  CLOAKED,
  COLLECT,
  FAKE_FORM,
  FAKE_FRAME,
  GA_COLLECT,
  IMAGE_PAYLOAD,
  INLINE_SKIMMER,
  LATE_SKIMMER,
  LOOK_ALIKE,
  LOOK_ALIKE_PAGE,
  MODERNIZR,
  MODERNIZR_BODY,
  MODERNIZR_SKIMMED,
  POLYFILL_BODY,
  POLYFILL_JS,
  POLYFILL_PHONE,
  PROVIDER,
  SERVICE_WORKER,
  SHOP,
  SHOP_ADDRESS,
  SHOP_HOSTS,
  SOCKET_URL,
  TAG_ADDED,
  TAG_INLINE,
  TAGS,
  TECHNIQUE_NUMBERS,
  techniquePage,
  sha256,
  startProbeShop,
  type ProbeShop,
} from './probe-shop';

/**
 * `edgeguard-probe` as a skimmer hunter (issue 41) in a real Chromium, against a local HTTPS shop
 * (tests/browser/probe-shop.ts): ONE probe run over thirteen payment pages, each carrying one
 * skimming technique of the public record, exits 1 and names each page's evidence (the script's URL
 * or hash, the frame's host, the host the card went to, the redirect's target, the service worker);
 * a clean shop (analytics first seen on the home page, the provider's card frame, a stable inline
 * configuration authorized by its hash, a JSON data block that changes at every load, a script
 * loaded a second after the page, a second payment page) exits 0 over two loads on each device with
 * no notice. Each shop is a ScriptInventory deployed by the real engine against the emulator
 * (tests/browser/projects/probe-shop), whose page security reports the shop's own scripts.
 */

jest.setTimeout(300_000);

const TOKEN = 'browser-probe-shop-token-9c2d41e0';
const DESKTOP_AND_PHONE: ProbeAlert['seenOn'] = [
  { device: 'desktop', load: 1 },
  { device: 'phone', load: 1 },
];

/** The inventory of the thirteen techniques' pages: what the shop authorizes, as a careful shop would. */
const TECHNIQUE_INVENTORY = {
  pages: TECHNIQUE_NUMBERS.map(techniquePage),
  scripts: [
    {
      url: CARD_JS,
      hash: sha256(CARD_JS_BODY),
      justification: 'The payment provider’s card script',
      owner: 'payments',
    },
    { prefix: `https://${SHOP}/static/js/`, justification: 'Our checkout code, built in this repository' },
    { url: MODERNIZR, hash: sha256(MODERNIZR_BODY), justification: 'Feature detection, reviewed at this version' },
    { url: POLYFILL_JS, hash: sha256(POLYFILL_BODY), justification: 'Polyfills, reviewed at this version' },
    { prefix: `https://${TAGS}/`, justification: 'The tag manager of the marketing team' },
  ],
  frames: [{ prefix: `https://${PROVIDER}/v3/`, justification: 'The payment provider’s card frame' }],
  cardDestinations: [API_TOKENS],
};

/** The clean shop's inventory. */
const CLEAN_INVENTORY = {
  pages: [...CLEAN_PAGES],
  scripts: [
    { url: CLEAN_ANALYTICS, justification: 'Analytics of the checkout funnel', owner: 'marketing' },
    { prefix: `https://${SHOP}/static/js/`, justification: 'Our checkout code, built in this repository' },
    {
      inline: `sha256-${Buffer.from(sha256(CLEAN_CONFIG), 'hex').toString('base64')}`,
      justification: 'The shop’s configuration',
    },
  ],
  frames: [{ prefix: `https://${PROVIDER}/v3/`, justification: 'The payment provider’s card frame' }],
  cardDestinations: [API_TOKENS],
};

const PROJECT = path.join(REPO, 'tests', 'browser', 'projects', 'probe-shop');

let emu: TestEmulator;
let shop: ProbeShop;
let techniques: EngineStack;
let clean: EngineStack;

function shopStack(inventory: object): Promise<EngineStack> {
  return engineStack({
    projectDir: PROJECT,
    emu,
    token: TOKEN,
    providerEnv: false,
    config: {
      'edgeguard-e2e-probe-shop:zoneId': { value: ZONE_ID },
      'edgeguard-e2e-probe-shop:inventory': { value: JSON.stringify(inventory) },
      'edgeguard:baseUrl': { value: emu.baseUrl },
      'edgeguard:apiToken': { value: TOKEN, secret: true },
    },
  });
}

beforeAll(async () => {
  assertProbeCanRun();
  shop = await startProbeShop();
  emu = await startTestEmulator({ tokens: [TOKEN] });
  const techniquePages = TECHNIQUE_NUMBERS.map((n) => `https://${techniquePage(n)}`);
  const cleanPages = CLEAN_PAGES.map((page) => `https://${page}`);
  // Page security reports the shops' own scripts as its crawler receives them (no skimmer: they
  // are served to browsers only); the analytics first on the clean shop's home page, and on its
  // first payment page only.
  await emu.seed({
    scripts: [
      { url: CARD_JS, hash: sha256(CARD_JS_BODY), page_urls: techniquePages },
      { url: CHECKOUT_JS, hash: sha256('window.checkout = { ready: true };\n'), page_urls: techniquePages },
      { url: MODERNIZR, hash: sha256(MODERNIZR_BODY), page_urls: techniquePages },
      { url: POLYFILL_JS, hash: sha256(POLYFILL_BODY), page_urls: techniquePages },
      { url: CLEAN_ANALYTICS, page_urls: [CLEAN_HOME, cleanPages[0]] },
      { url: CLEAN_JS, page_urls: cleanPages },
      { url: CLEAN_LATE, page_urls: cleanPages },
    ].map((script) => ({ zone_id: ZONE_ID, ...script })),
  });
  [techniques, clean] = await Promise.all([shopStack(TECHNIQUE_INVENTORY), shopStack(CLEAN_INVENTORY)]);
  await Promise.all([techniques.up(), clean.up()]);
});
afterAll(async () => {
  await techniques?.dispose();
  await clean?.dispose();
  await emu?.close();
  await shop?.close();
});

/** How a probe ended, with its report. */
type ProbeOutcome = ProbeRun & { report: ProbeReport };

async function probe(engine: EngineStack, ...extra: string[]): Promise<ProbeOutcome> {
  const run = await runProbe(engine, TOKEN, [
    '--markdown',
    path.join(engine.workDir, 'probe.md'),
    ...SHOP_HOSTS.flatMap((host) => ['--resolve', `${host}:443:${SHOP_ADDRESS}`]),
    '--insecure',
    '--settle',
    '1.5',
    '--parallel',
    '4',
    ...extra,
  ]);
  if (run.report === undefined) throw new Error(`the probe wrote no report (exit ${run.code}):\n${run.stderr}`);
  return { ...run, report: run.report };
}

function pageOf(report: ProbeReport, page: string): ProbePage {
  const found = report.inventories[0]!.pages.find((one) => one.page === page);
  if (found === undefined) throw new Error(`no page ${page} in the report`);
  return found;
}

/** The evidence each technique's page must be named by: an alert of its page, as the report writes it. */
const EVIDENCE: Record<number, { what: string; alert: Partial<ProbeAlert> & Pick<ProbeAlert, 'kind'> }> = {
  1: {
    what: 'an inline skimmer in the HTML, served to browsers only',
    alert: { kind: 'script-unauthorized', script: 'inline', sha256: sha256(INLINE_SKIMMER), seenOn: DESKTOP_AND_PHONE },
  },
  2: {
    what: 'a first-party script modified for browsers (British Airways, 2018)',
    alert: {
      kind: 'script-changed',
      url: MODERNIZR,
      pinned: sha256(MODERNIZR_BODY),
      received: sha256(MODERNIZR_SKIMMED),
      pageSecurityAgrees: 'with-pin',
    },
  },
  3: {
    what: 'a third-party script changed for phones only (polyfill.io, 2024)',
    alert: {
      kind: 'script-changed',
      url: POLYFILL_JS,
      received: sha256(POLYFILL_PHONE),
      seenOn: [{ device: 'phone', load: 1 }],
    },
  },
  4: {
    what: 'a tag manager adding a script from a host no entry authorizes',
    alert: { kind: 'script-unauthorized', script: 'external', url: TAG_ADDED },
  },
  5: {
    what: 'a tag manager inserting an inline script at run time',
    alert: { kind: 'script-unauthorized', script: 'inline', sha256: sha256(TAG_INLINE) },
  },
  6: {
    what: 'code hidden in an image and run with eval (steganography)',
    alert: { kind: 'script-unauthorized', script: 'eval', sha256: sha256(IMAGE_PAYLOAD) },
  },
  7: {
    what: 'a fake card form: a frame of another host over the real one',
    alert: { kind: 'frame-unauthorized', url: FAKE_FRAME, host: FAKE_FORM },
  },
  8: {
    what: 'the card sent over a WebSocket as it is typed',
    alert: { kind: 'card-sent', url: SOCKET_URL, via: 'websocket', encoding: 'plain' },
  },
  9: {
    what: 'the card sent to an analytics host (Google Analytics, 2020)',
    alert: { kind: 'card-sent', host: new URL(GA_COLLECT).host, via: 'image', encoding: 'base64' },
  },
  10: {
    what: 'a skimmer that does nothing under automation',
    alert: { kind: 'script-unauthorized', script: 'external', url: CLOAKED },
  },
  11: {
    what: 'a skimmer that loads itself a second after the page',
    alert: { kind: 'script-unauthorized', script: 'external', url: LATE_SKIMMER },
  },
  12: {
    what: 'the page redirected to a look-alike checkout',
    alert: { kind: 'page-redirected', finalUrl: LOOK_ALIKE_PAGE, host: LOOK_ALIKE },
  },
  13: {
    what: 'a service worker registered by the page',
    alert: { kind: 'service-worker-unauthorized', url: SERVICE_WORKER },
  },
};

test('one run over the thirteen techniques: exit 1, each page’s alert names its evidence', async () => {
  const started = Date.now();
  const run = await probe(techniques);
  const seconds = (Date.now() - started) / 1000;
  expect(run.code).toBe(1);
  expect(run.report.counts).toMatchObject({ pages: 13, loads: 26, loaded: 26 });
  const missing = TECHNIQUE_NUMBERS.flatMap((n) => {
    const { what, alert } = EVIDENCE[n]!;
    const alerts = pageOf(run.report, techniquePage(n)).alerts;
    return alerts.some((found) => expect.objectContaining(alert).asymmetricMatch(found))
      ? []
      : [`${n} (${what}): ${JSON.stringify(alert)} not in ${JSON.stringify(alerts)}`];
  });
  expect(missing).toEqual([]);
  // Each page is named by its own technique only: no alert of another technique's evidence leaks.
  for (const n of TECHNIQUE_NUMBERS)
    for (const other of TECHNIQUE_NUMBERS.filter((m) => m !== n && m !== 12))
      expect(pageOf(run.report, techniquePage(n)).alerts).not.toContainEqual(
        expect.objectContaining(EVIDENCE[other]!.alert),
      );
  // The skimmers that send the card: the card followed to their hosts, never to the provider's API.
  expect(pageOf(run.report, techniquePage(1)).alerts).toContainEqual(
    expect.objectContaining({ kind: 'card-sent', host: COLLECT, via: 'fetch', encoding: 'base64' }),
  );
  expect(pageOf(run.report, techniquePage(2)).alerts).toContainEqual(
    expect.objectContaining({ kind: 'card-sent', host: COLLECT, via: 'beacon', encoding: 'plain' }),
  );
  expect(run.report.inventories[0]!.pages.flatMap((page) => page.alerts)).not.toContainEqual(
    expect.objectContaining({ kind: 'card-sent', url: API_TOKENS }),
  );
  // The socket server received the number, which the probe saw leave.
  expect(shop.messages.some((message) => message.includes('4111111111111111'))).toBe(true);
  // No automation signal: the cloaked skimmer ran on both devices.
  expect(pageOf(run.report, techniquePage(10)).alerts).toContainEqual(
    expect.objectContaining({ url: CLOAKED, seenOn: DESKTOP_AND_PHONE }),
  );
  // One alert a line on stderr, with the loads that saw it.
  expect(run.stderr).toContain(
    `${techniquePage(4)} (inventory shop-scripts): unauthorized script: ${TAG_ADDED} ran and no entry of the inventory authorizes it`,
  );
  expect(run.stderr).toMatch(/\[desktop load 1, phone load 1\]\n/);
  expect(run.stderr).not.toContain('\\n');
  expect(run.stderr).toMatch(/\[26\/26\] https:\/\/checkout\.example\.com\/t\/[0-9]+ as (desktop|phone) \(load 1\)/);
  console.log(`the probe of the thirteen techniques took ${seconds.toFixed(1)} s (26 loads)`);
});

test('the clean shop: exit 0 over two loads on each device, with no notice', async () => {
  const run = await probe(clean, '--loads', '2');
  const pages = run.report.inventories[0]!.pages;
  expect({
    code: run.code,
    alerts: pages.flatMap((page) => page.alerts),
    notices: pages.flatMap((page) => page.notices),
  }).toEqual({ code: 0, alerts: [], notices: [] });
  expect(run.report.counts).toMatchObject({ pages: 2, loads: 8, loaded: 8, alerts: 0, notices: 0 });
  const all = [
    { device: 'desktop', load: 1 },
    { device: 'desktop', load: 2 },
    { device: 'phone', load: 1 },
    { device: 'phone', load: 2 },
  ];
  for (const page of pages) {
    // The configuration, authorized by its hash on every load; the data block is no script.
    expect(page.scripts).toContainEqual(
      expect.objectContaining({ kind: 'inline', sha256: sha256(CLEAN_CONFIG), integrity: 'unchanged', seenOn: all }),
    );
    expect(page.scripts.filter((script) => script.kind === 'inline')).toHaveLength(1);
    // The script loaded a second after the page, seen on every load.
    expect(page.scripts).toContainEqual(
      expect.objectContaining({ url: CLEAN_LATE, integrity: 'unpinned', seenOn: all }),
    );
    // The provider's card frame: authorized, its script listed under it and not judged.
    expect(page.frames).toEqual([{ url: CARD_FRAME, entry: `https://${PROVIDER}/v3/`, seenOn: all }]);
    expect(page.scripts).toContainEqual(
      expect.objectContaining({ url: CARD_FRAME_JS, context: 'frame', underFrame: `https://${PROVIDER}/v3/` }),
    );
    // The card typed in the frame went to the provider's API, a card destination.
    for (const load of page.loads) expect(load.cardFields).toBeGreaterThanOrEqual(4);
  }
  expect(
    shop.requests.filter((request) => request === `${new URL(API_TOKENS).host} /v1/tokens`).length,
  ).toBeGreaterThanOrEqual(8);
  expect(run.stderr).toContain('edgeguard-probe: pass: every page loaded');
  // The card was typed, never submitted: no form reached the provider.
  expect(shop.forms).toEqual([]);

  // edgeguard-inventory writes the inline entry for what the probe saw, from its report.
  const written = await runToEnd(
    process.execPath,
    [
      path.join(REPO, 'dist', 'provider', 'cli', 'inventory.js'),
      '--zone',
      ZONE_ID,
      ...CLEAN_PAGES.flatMap((page) => ['--page', page]),
      '--probe',
      path.join(clean.workDir, 'probe.json'),
    ],
    { env: { EDGEGUARD_BASE_URL: emu.baseUrl, EDGEGUARD_API_TOKEN: TOKEN } },
  );
  expect(written.status).toBe(0);
  const configSource = `'sha256-${Buffer.from(sha256(CLEAN_CONFIG), 'hex').toString('base64')}'`;
  expect(written.stdout).toMatch(new RegExp(`inline: "${configSource.replace(/[+/]/g, '\\$&')}"`));
  expect(written.stderr).toContain('1 inline entry for the inline scripts the probe saw');
});

test('--submit (staging): the card frame’s form posted to the provider’s API, a card destination, and still no alert', async () => {
  const posted = shop.forms.length;
  const run = await probe(clean, '--submit');
  expect({ code: run.code, alerts: run.report.inventories[0]!.pages.flatMap((page) => page.alerts) }).toEqual({
    code: 0,
    alerts: [],
  });
  expect(run.report.settings.submit).toBe(true);
  // Each of the four loads (two pages, two devices) submitted its card frame's form.
  expect(shop.forms.slice(posted)).toEqual(Array.from({ length: 4 }, () => `${new URL(API_TOKENS).host} /v1/tokens`));
  expect(run.stderr).toContain("--submit: the card's form is submitted once typed; for staging only");
});
