import { createHash } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import puppeteer, {
  type Browser,
  type CDPSession,
  type ElementHandle,
  type HTTPResponse,
  type Page,
} from 'puppeteer-core';
import type { Protocol } from 'puppeteer-core';
import { z } from 'zod';
import { mapLimited } from '../client/map-limited';
import type { TestCard } from './card';
import type { Device, PageLoad, RanScript, ScriptContext, SentRequest } from './probe';
import { probeViolationSchema, type ProbeViolation } from './probe-schema';

/**
 * The browser of `edgeguard-probe` (issues 33 and 41): headless Chromium or Chrome, driven by
 * puppeteer-core, loading each payment page as a shopper's browser would (a desktop's or a phone's,
 * with no sign of automation), each load in a fresh browser context (no cache, no cookies), and
 * recording what it ran and sent: the document's response headers, every script the browser parsed
 * in every frame, worker and service worker (through the debugging protocol: external, inline, and
 * code given to `eval`, a string timer or `new Function`), the frames, the CSP violations the page
 * reported; then, with a test card typed into the card fields of every frame, every request the
 * browser sent afterwards. What the page sends is data: it is hashed, parsed and kept as text, never
 * run by this process.
 */

/** The executables tried on PATH, in order, when `--browser` is not given. */
export const BROWSER_NAMES = [
  'chromium',
  'chromium-browser',
  'google-chrome',
  'google-chrome-stable',
  'chrome',
] as const;

/** No browser to probe with: the probe cannot be done (exit 2). */
export class NoBrowserError extends Error {
  override name = 'NoBrowserError';
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The browser to probe with: `explicit` (`--browser`) when given, else the first of
 * {@link BROWSER_NAMES} on `searchPath`.
 *
 * @throws {@link NoBrowserError} saying what was looked for and what to do.
 */
export function findBrowser(explicit: string | undefined, searchPath: string = process.env.PATH ?? ''): string {
  if (explicit !== undefined) {
    if (isExecutableFile(explicit)) return explicit;
    throw new NoBrowserError(`--browser ${explicit} is not an executable file: give the path of Chromium or Chrome`);
  }
  const folders = searchPath.split(path.delimiter).filter((folder) => folder !== '');
  for (const name of BROWSER_NAMES)
    for (const folder of folders) {
      const candidate = path.join(folder, name);
      if (isExecutableFile(candidate)) return candidate;
    }
  throw new NoBrowserError(
    `no Chromium or Chrome on PATH (looked for ${BROWSER_NAMES.join(', ')}): install one (apt-get install chromium) or give its path with --browser PATH`,
  );
}

/** A `--resolve HOST:PORT:ADDRESS`: connections to HOST on PORT go to ADDRESS, as curl's option. */
export interface ResolveRule {
  host: string;
  port: number;
  address: string;
}

/** How to launch the browser and load the pages. */
export interface BrowserOptions {
  executable: string;
  resolve: readonly ResolveRule[];
  /** Accept any certificate (`--insecure`). */
  insecure: boolean;
  /** The time limit of each page, in milliseconds. */
  timeoutMs: number;
  /** Pages loaded at once. */
  parallel: number;
  /** How long to keep recording after the load event (and until the network is quiet), in milliseconds. */
  settleMs: number;
  /** What to type into the card fields. */
  card: TestCard;
  /** Submit the card's form once typed (`--submit`, for staging). */
  submit: boolean;
}

/**
 * The Chromium switches: headless, none of its background calls to Google's services, and the
 * staging options. A rule keeps the port, as curl's `--resolve` does; Chromium's
 * `--host-resolver-rules` matches `host:port` when the pattern has one.
 */
function chromiumArgs(options: BrowserOptions): string[] {
  const hostAddress = (address: string) => (address.includes(':') ? `[${address}]` : address);
  return [
    // Chromium refuses to start as root with its sandbox (a CI container's user).
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    // Chromium starts a renderer ahead for the next navigation, and it belongs to the context it
    // was started in: every load of the probe is in a fresh context, so none was ever used. Probing
    // the test shop's 13 techniques (tests/browser/probe-shop.test.ts): 187 → 85 Chromium
    // processes, 83.6 → 76.9 CPU s. (puppeteer merges this list with its own.)
    '--disable-features=SpareRendererForSitePerProcess',
    '--disable-sync',
    '--no-first-run',
    // No sign of automation a skimmer could test: navigator.webdriver stays false.
    '--disable-blink-features=AutomationControlled',
    ...(options.resolve.length > 0
      ? [
          `--host-resolver-rules=${options.resolve
            .map((rule) => `MAP ${rule.host}:${rule.port} ${hostAddress(rule.address)}:${rule.port}`)
            .join(', ')}`,
        ]
      : []),
    ...(options.insecure ? ['--ignore-certificate-errors'] : []),
  ];
}

/** One load to make: a page, as a device, the how-manieth. */
export interface LoadPlan {
  url: string;
  device: Device;
  /** 1 for the first load of the page on the device. */
  load: number;
}

/** A launched browser with its profile folder. */
export interface ProbeBrowser {
  /** As the browser names itself: `chrome/156.0.8078.108`. */
  version: string;
  /**
   * Makes each load, {@link BrowserOptions.parallel} at a time, each in a fresh context; a page
   * that fails is a failed {@link PageLoad}. `progress` hears of each load as it starts and ends.
   */
  load(plans: readonly LoadPlan[], progress?: (plan: LoadPlan, outcome?: PageLoad) => void): Promise<PageLoad[]>;
  close(): Promise<void>;
}

/** Launches the browser; the caller closes it. */
export async function launchProbeBrowser(options: BrowserOptions): Promise<ProbeBrowser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'edgeguard-probe-'));
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      browser: 'chrome',
      executablePath: options.executable,
      args: chromiumArgs(options),
      // --enable-automation shows in navigator.webdriver; a shopper's browser has no such switch.
      ignoreDefaultArgs: ['--enable-automation'],
      userDataDir: profile,
      acceptInsecureCerts: options.insecure,
      headless: true,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw new NoBrowserError(`${options.executable} did not start: ${(error as Error).message.split('\n')[0]}`);
  }
  const version = await browser.version();
  const devices = deviceProfiles(version);
  return {
    version,
    load: (plans, progress) =>
      mapLimited(plans, options.parallel, async (plan) => {
        progress?.(plan);
        const outcome = await loadPage(browser, plan, devices[plan.device], options);
        progress?.(plan, outcome);
        return outcome;
      }),
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** How a device presents itself: its user agent (and client hints) and its screen. */
interface DeviceProfile {
  userAgent: string;
  metadata: Protocol.Emulation.UserAgentMetadata;
  viewport: { width: number; height: number; deviceScaleFactor: number; isMobile: boolean; hasTouch: boolean };
}

/**
 * A desktop's and a phone's profile for the browser's version, as a shopper's Chrome sends them:
 * no `Headless` in the user agent or the client hints; the phone an Android one (`Mobile`), with a
 * phone's viewport and touch, which an origin that serves phones another body keys on.
 */
export function deviceProfiles(version: string): Record<Device, DeviceProfile> {
  const major = /\/([0-9]+)\./.exec(version)?.[1] ?? '140';
  const brands = [
    { brand: 'Chromium', version: major },
    { brand: 'Google Chrome', version: major },
    { brand: 'Not.A/Brand', version: '99' },
  ];
  const common = { brands, fullVersion: `${major}.0.0.0`, architecture: '', model: '' };
  return {
    desktop: {
      userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`,
      metadata: { ...common, platform: 'Linux', platformVersion: '6.8.0', architecture: 'x86', mobile: false },
      viewport: { width: 1366, height: 768, deviceScaleFactor: 1, isMobile: false, hasTouch: false },
    },
    phone: {
      userAgent: `Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Mobile Safari/537.36`,
      metadata: { ...common, platform: 'Android', platformVersion: '14', model: 'Pixel 8', mobile: true },
      viewport: { width: 412, height: 915, deviceScaleFactor: 2.625, isMobile: true, hasTouch: true },
    },
  };
}

/** The most of an inline script's text the watcher sends. */
const MAX_INLINE = 4_000_000;
/** The name of the function the page's watcher calls, bound by the browser's protocol (`Runtime.addBinding`). */
const BINDING = '__edgeguardProbe';

/**
 * What each document runs before its first script, named `pptr:` so the probe does not count it as
 * the page's: it hands the binding every CSP violation, and the text of every inline `<script>`
 * added to the document (in the HTML or at run time), which tells an inserted inline script from
 * code given to `eval` (the protocol reports both without a URL). Code the browser's protocol adds
 * is not governed by the page's CSP.
 */
const WATCHER = `(() => {
  const report = globalThis[${JSON.stringify(BINDING)}];
  if (typeof report !== 'function') return;
  const send = (message) => { try { report(JSON.stringify(message)); } catch {} };
  document.addEventListener('securitypolicyviolation', (event) => send({
    type: 'violation', effectiveDirective: event.effectiveDirective, blockedURI: event.blockedURI, disposition: event.disposition,
  }));
  const scripts = (node) => node.nodeName === 'SCRIPT' ? [node] : node.querySelectorAll ? [...node.querySelectorAll('script')] : [];
  new MutationObserver((records) => {
    for (const record of records) for (const added of record.addedNodes) for (const script of scripts(added))
      if (!script.src) send({ type: 'inline', text: script.text.slice(0, ${MAX_INLINE}) });
  }).observe(document, { childList: true, subtree: true });
})();
//# sourceURL=pptr:edgeguard-probe-watcher`;

/** A message of the watcher: from the page, so checked like any input. */
const watcherMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('violation'),
    effectiveDirective: z.string().max(200),
    blockedURI: z.string().max(4000),
    disposition: z.enum(['enforce', 'report']),
  }),
  z.object({ type: z.literal('inline'), text: z.string() }),
]);

/** How long the network must be quiet for late scripts (a tag manager's) to have run. */
const QUIET_MS = 500;
/** The most requests kept from the time after the card was typed, and the most of each body. */
const MAX_REQUESTS = 1000;
const MAX_BODY = 65_536;
/** The longest the probe waits for the protocol's answers once a load is over, in milliseconds. */
const SETTLE_LIMIT_MS = 5000;
/** A person's pace between two keys, in milliseconds. */
const KEY_DELAY_MS = 15;

/** The card fields, by their `autocomplete` token, and what of the card goes in each. */
const CARD_FIELDS: ReadonlyArray<[string, (card: TestCard) => string]> = [
  ['cc-number', (card) => card.number],
  ['cc-exp', (card) => card.expiry],
  ['cc-exp-month', (card) => card.expiry.slice(0, 2)],
  ['cc-exp-year', (card) => `20${card.expiry.slice(3)}`],
  ['cc-csc', (card) => card.csc],
  ['cc-name', (card) => card.name],
];

/** A script as the debugging protocol reported it, before it is told apart (external, inline, eval). */
interface ParsedScript {
  url: string;
  hasSourceURL: boolean;
  /** The document (frame) or worker it ran in, when known. */
  frame: string;
  context: ScriptContext;
  source: Promise<{ sha256: string } | { error: string }>;
}

/** What one load records, from every target of the page. */
class Recording {
  readonly scripts: ParsedScript[] = [];
  /** Every document URL a frame of the page (or a target) had, without fragment: inline scripts report theirs. */
  readonly documents = new Set<string>();
  /** Frame ids to their document's URL, per session. */
  private readonly frameUrls = new Map<string, string>();
  readonly requests: Array<SentRequest & { at: number }> = [];
  private readonly sockets = new Map<string, string>();
  readonly workers = new Set<string>();
  readonly violations: ProbeViolation[] = [];
  /** The SHA-256 of the text of every inline `<script>` the documents had. */
  private readonly inlineTexts = new Set<string>();
  private readonly pending: Array<Promise<unknown>> = [];

  /** Watches `session` (the page's, a frame's or a worker's) and the targets it attaches. */
  async watch(session: CDPSession, context: ScriptContext, targetUrl: string): Promise<void> {
    if (targetUrl !== '' && (context === 'page' || context === 'frame')) this.documents.add(withoutFragment(targetUrl));
    session.on('Debugger.scriptParsed', (event) => this.parsed(session, context, targetUrl, event));
    session.on('Page.frameNavigated', ({ frame }) => {
      this.frameUrls.set(frame.id, frame.url);
      this.documents.add(withoutFragment(frame.url));
    });
    session.on('Network.requestWillBeSent', (event) => this.request(session, event));
    session.on('Network.webSocketCreated', ({ requestId, url }) => this.sockets.set(requestId, url));
    session.on('Network.webSocketFrameSent', ({ requestId, response }) =>
      this.sent({
        url: this.sockets.get(requestId) ?? '',
        via: 'websocket',
        method: 'SEND',
        body: response.payloadData,
      }),
    );
    session.on('Target.attachedToTarget', (event) => {
      const child = session.connection()?.session(event.sessionId);
      if (child === undefined || child === null) return;
      const kind = event.targetInfo.type;
      const childContext: ScriptContext =
        kind === 'iframe' ? 'frame' : kind === 'service_worker' ? 'service-worker' : 'worker';
      if (childContext === 'service-worker') this.workers.add(event.targetInfo.url);
      // The commands go out in order before the target is let run, so it runs watched; their
      // answers may wait for it to run (a service worker's do).
      this.pending.push(this.watch(child, childContext, event.targetInfo.url).catch(() => undefined));
      if (event.waitingForDebugger) child.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
    });
    const document = context === 'page' || context === 'frame';
    if (document) session.on('Runtime.bindingCalled', ({ name, payload }) => name === BINDING && this.heard(payload));
    // Sent at once, in order, none awaited before the next: see the caller's resume.
    const sent = [
      session.send('Debugger.enable'),
      session.send('Network.enable'),
      ...(document
        ? [
            session.send('Page.enable'),
            session.send('Runtime.enable'),
            session.send('Runtime.addBinding', { name: BINDING }),
            session.send('Page.addScriptToEvaluateOnNewDocument', { source: WATCHER }),
          ]
        : []),
      session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
    ];
    const tree = document ? session.send('Page.getFrameTree') : undefined;
    await Promise.all(sent);
    if (tree !== undefined) {
      const walk = (node: Protocol.Page.FrameTree): void => {
        this.frameUrls.set(node.frame.id, node.frame.url);
        for (const child of node.childFrames ?? []) walk(child);
      };
      walk((await tree).frameTree);
    }
  }

  /** A message of a document's watcher. */
  private heard(payload: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(payload);
    } catch {
      return;
    }
    const message = watcherMessage.safeParse(raw);
    if (!message.success) return;
    if (message.data.type === 'inline') {
      this.inlineTexts.add(createHash('sha256').update(message.data.text, 'utf8').digest('hex'));
      return;
    }
    this.violations.push(
      probeViolationSchema.parse({
        directive: message.data.effectiveDirective,
        blockedUrl: message.data.blockedURI,
        disposition: message.data.disposition,
      }),
    );
  }

  private parsed(
    session: CDPSession,
    context: ScriptContext,
    targetUrl: string,
    event: Protocol.Debugger.ScriptParsedEvent,
  ): void {
    // The probe's own code (puppeteer names what it evaluates pptr:…), an isolated world's, and
    // WebAssembly are not the page's scripts.
    if (event.url.startsWith('pptr:') || event.url.startsWith('chrome-extension:')) return;
    const aux = event.executionContextAuxData as { frameId?: string; isDefault?: boolean } | undefined;
    if (aux?.isDefault === false) return;
    if (event.scriptLanguage === 'WebAssembly') return;
    const frame = (aux?.frameId !== undefined ? this.frameUrls.get(aux.frameId) : undefined) ?? targetUrl;
    const source = session.send('Debugger.getScriptSource', { scriptId: event.scriptId }).then(
      ({ scriptSource }) => ({ sha256: createHash('sha256').update(scriptSource, 'utf8').digest('hex') }),
      (error: unknown) => ({ error: `its source could not be read: ${(error as Error).message.split('\n')[0]}` }),
    );
    this.scripts.push({ url: event.url, hasSourceURL: event.hasSourceURL === true, frame, context, source });
  }

  private request(session: CDPSession, event: Protocol.Network.RequestWillBeSentEvent): void {
    const { request } = event;
    if (!/^(https?|wss?):/.test(request.url)) return;
    const via = viaOf(event.type, request.method);
    const inline =
      request.postData ??
      request.postDataEntries?.map((entry) => Buffer.from(entry.bytes ?? '', 'base64').toString('latin1')).join('');
    if (inline !== undefined || !request.hasPostData) {
      this.sent({ url: request.url, via, method: request.method, ...(inline ? { body: inline } : {}) });
      return;
    }
    this.pending.push(
      session.send('Network.getRequestPostData', { requestId: event.requestId }).then(
        ({ postData }) => this.sent({ url: request.url, via, method: request.method, body: postData }),
        () => this.sent({ url: request.url, via, method: request.method }),
      ),
    );
  }

  private sent(request: SentRequest): void {
    if (this.requests.length >= MAX_REQUESTS) return;
    this.requests.push({
      ...request,
      ...(request.body !== undefined ? { body: request.body.slice(0, MAX_BODY) } : {}),
      at: Date.now(),
    });
  }

  /** Waits for the work the events started (children watched, bodies asked for), `limitMs` at most. */
  async settled(limitMs: number): Promise<void> {
    const deadline = Date.now() + limitMs;
    while (this.pending.length > 0 && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))));
      await Promise.race([Promise.allSettled(this.pending.splice(0)), limit]);
      clearTimeout(timer);
    }
  }

  /**
   * The scripts told apart: external (a URL no document has), inline (its document's URL, or no URL
   * and the text of an inline `<script>` the watcher saw), eval (no URL otherwise, or a name it gave
   * itself with `//# sourceURL`).
   */
  async ran(): Promise<RanScript[]> {
    return Promise.all(
      this.scripts.map(async (script): Promise<RanScript> => {
        const source = await script.source;
        const inserted = script.url === '' && 'sha256' in source && this.inlineTexts.has(source.sha256);
        const kind = inserted
          ? 'inline'
          : script.url === '' || script.hasSourceURL
            ? 'eval'
            : this.documents.has(withoutFragment(script.url))
              ? 'inline'
              : 'external';
        const url = inserted ? script.frame : script.url;
        return { kind, ...(url !== '' ? { url } : {}), ...source, frame: script.frame, context: script.context };
      }),
    );
  }
}

function withoutFragment(url: string): string {
  const at = url.indexOf('#');
  return at < 0 ? url : url.slice(0, at);
}

/** How a request was sent, from the protocol's resource type. */
function viaOf(type: Protocol.Network.ResourceType | undefined, method: string): SentRequest['via'] {
  switch (type) {
    case 'Fetch':
      return 'fetch';
    case 'XHR':
      return 'xhr';
    case 'Ping':
      return 'beacon';
    case 'Image':
      return 'image';
    case 'Document':
      return method === 'GET' ? 'navigation' : 'form';
    case 'Script':
      return 'script';
    default:
      return 'other';
  }
}

/** Waits until the network is quiet and at least `settleMs` passed, within `deadline` (a time). */
async function settle(page: Page, settleMs: number, deadline: number): Promise<void> {
  const left = () => Math.max(0, deadline - Date.now());
  await Promise.all([
    new Promise((resolve) => setTimeout(resolve, Math.min(settleMs, left()))),
    page.waitForNetworkIdle({ idleTime: QUIET_MS, timeout: Math.max(1, left()) }).catch(() => undefined),
  ]);
}

/**
 * Types the card into every visible card field of every frame, as a person: each key, then Tab.
 * The fields typed into, and the card number's field (whose form `--submit` submits).
 */
async function typeCard(page: Page, card: TestCard): Promise<{ typed: number; numberField?: ElementHandle }> {
  let typed = 0;
  let numberField: ElementHandle | undefined;
  for (const frame of page.frames()) {
    for (const [token, value] of CARD_FIELDS) {
      const fields = await frame.$$(`input[autocomplete~="${token}" i]`).catch(() => [] as ElementHandle[]);
      for (const field of fields) {
        try {
          if (!(await field.isVisible())) continue;
          await field.type(value(card), { delay: KEY_DELAY_MS });
          await field.press('Tab');
          typed += 1;
          if (token === 'cc-number') numberField ??= field;
        } catch {
          // A field that went away or cannot take focus: the others are typed.
        }
      }
    }
  }
  return { typed, ...(numberField !== undefined ? { numberField } : {}) };
}

/** Submits the form of `field` (`--submit`, for staging), as its submit button would. */
async function submitForm(field: ElementHandle): Promise<void> {
  await field
    .evaluate((input) => (input as unknown as { form: { requestSubmit(): void } | null }).form?.requestSubmit())
    .catch(() => undefined);
}

/** Loads one page in a context of its own and records what it ran and sent; never throws for the page's sake. */
async function loadPage(
  browser: Browser,
  plan: LoadPlan,
  device: DeviceProfile,
  options: BrowserOptions,
): Promise<PageLoad> {
  const context = await browser.createBrowserContext();
  const started = Date.now();
  const deadline = started + options.timeoutMs + 2 * options.settleMs;
  const base = { device: plan.device, load: plan.load };
  try {
    const page = await context.newPage();
    await page.setUserAgent({ userAgent: device.userAgent, userAgentMetadata: device.metadata });
    await page.setViewport(device.viewport);
    const recording = new Recording();
    await recording.watch(await page.createCDPSession(), 'page', '');
    let response: HTTPResponse | null;
    try {
      response = await page.goto(plan.url, { waitUntil: 'load', timeout: options.timeoutMs });
    } catch (error) {
      const message = (error as Error).message.split('\n')[0] ?? '';
      return {
        ok: false,
        ...base,
        reason: /timeout/i.test(message) ? `did not load within ${options.timeoutMs / 1000} s` : message,
      };
    }
    if (response === null) return { ok: false, ...base, reason: 'the browser got no response for the page' };
    if (!response.ok())
      return {
        ok: false,
        ...base,
        status: response.status(),
        reason: `HTTP ${response.status()} ${response.statusText()}`.trim(),
      };
    await settle(page, options.settleMs, deadline);
    const frames = framesOf(page);
    const typedAt = Date.now();
    const { typed: cardFields, numberField } = await typeCard(page, options.card).catch(() => ({
      typed: 0,
      numberField: undefined,
    }));
    if (cardFields > 0) await settle(page, options.settleMs, deadline);
    // Where the page and its frames are once the card is typed: a submitted form's answer is no
    // redirect of the page, nor a frame of it.
    const finalUrl = page.url();
    const framesTyped = framesOf(page);
    if (options.submit && numberField !== undefined) {
      await submitForm(numberField);
      await settle(page, options.settleMs, deadline);
    }
    await recording.settled(SETTLE_LIMIT_MS);
    const registered = await page.evaluate(SERVICE_WORKER_SCRIPTS).catch(() => undefined);
    if (Array.isArray(registered))
      for (const url of registered) if (typeof url === 'string') recording.workers.add(url);
    await recording.settled(SETTLE_LIMIT_MS);
    return {
      ok: true,
      ...base,
      status: response.status(),
      finalUrl,
      headers: response.headers(),
      scripts: await recording.ran(),
      frames: [...new Set([...frames, ...framesTyped])],
      serviceWorkers: [...recording.workers].filter((url) => url !== '').sort(),
      cardFields,
      requests: recording.requests.filter((request) => request.at >= typedAt).map(({ at: _at, ...request }) => request),
      violations: recording.violations,
    };
  } catch (error) {
    return { ok: false, ...base, reason: `the browser failed: ${(error as Error).message.split('\n')[0] ?? ''}` };
  } finally {
    await context.close().catch(() => undefined);
  }
}

/** The scripts of the service workers registered for the page's origin, as the page's own API lists them. */
const SERVICE_WORKER_SCRIPTS = `(async () => {
  const registrations = (await navigator.serviceWorker?.getRegistrations?.()) ?? [];
  return registrations.flatMap((r) => [r.active, r.waiting, r.installing].flatMap((w) => (w ? [w.scriptURL] : [])));
})()`;

/** The URLs of the page's frames but the top one (about:blank and the like left out). */
function framesOf(page: Page): string[] {
  return page
    .frames()
    .filter((frame) => frame !== page.mainFrame())
    .map((frame) => frame.url())
    .filter((url) => /^https?:/.test(url));
}
