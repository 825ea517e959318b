import { createHash } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import puppeteer, { type Browser, type HTTPResponse, type Page } from 'puppeteer-core';
import { z } from 'zod';
import { mapLimited } from '../client/map-limited';
import type { PageLoad, ReceivedScript } from './probe';
import { probeViolationSchema, type ProbeViolation } from './probe-schema';

/**
 * The browser of `edgeguard-probe` (issue 33): headless Chromium or Chrome, driven by
 * puppeteer-core, loading each payment page as a shopper's browser would, in a fresh profile of
 * its own (no cache, no cookies), and recording what it received: the document's response
 * headers, the body of every script it ran from a URL, and the CSP violations the page reported.
 * What the page sends is data: it is hashed, parsed and kept as text, never run by this process.
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
    '--disable-sync',
    '--no-first-run',
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

/** A launched browser with its profile folder. */
export interface ProbeBrowser {
  /** As the browser names itself: `chrome/156.0.8078.108`. */
  version: string;
  /** Loads each URL, {@link BrowserOptions.parallel} at a time; a page that fails is a failed {@link PageLoad}. */
  load(urls: readonly string[]): Promise<PageLoad[]>;
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
      userDataDir: profile,
      acceptInsecureCerts: options.insecure,
      headless: true,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw new NoBrowserError(`${options.executable} did not start: ${(error as Error).message.split('\n')[0]}`);
  }
  return {
    version: await browser.version(),
    load: (urls) => mapLimited(urls, options.parallel, (url) => loadPage(browser, url, options.timeoutMs)),
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The name of the function the page's violation listener calls, bound by the browser's protocol. */
const VIOLATION_BINDING = '__edgeguardProbeViolation';

/**
 * The listener each document gets before its first script: it hands every violation to the
 * binding. Code the browser's protocol adds is not governed by the page's CSP.
 */
const VIOLATION_LISTENER = `document.addEventListener('securitypolicyviolation', (event) => {
  const report = globalThis[${JSON.stringify(VIOLATION_BINDING)}];
  if (typeof report === 'function')
    report({ effectiveDirective: event.effectiveDirective, blockedURI: event.blockedURI, disposition: event.disposition });
});`;

/** A violation as the listener sends it: from the page, so checked like any input. */
const reportedViolation = z.object({
  effectiveDirective: z.string().max(200),
  blockedURI: z.string().max(4000),
  disposition: z.enum(['enforce', 'report']),
});

/** How long the network must be quiet after `load` for late scripts (a tag manager's) to have run. */
const QUIET_MS = 500;

/** Loads one page in a context of its own and records what it received; never throws for the page's sake. */
async function loadPage(browser: Browser, url: string, timeoutMs: number): Promise<PageLoad> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    const violations: ProbeViolation[] = [];
    const bodies: Array<Promise<ReceivedScript>> = [];
    await watch(page, violations, bodies);
    const started = Date.now();
    let response: HTTPResponse | null;
    try {
      response = await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
    } catch (error) {
      const message = (error as Error).message.split('\n')[0] ?? '';
      return { ok: false, reason: /timeout/i.test(message) ? `did not load within ${timeoutMs / 1000} s` : message };
    }
    if (response === null) return { ok: false, reason: 'the browser got no response for the page' };
    if (!response.ok())
      return {
        ok: false,
        status: response.status(),
        reason: `HTTP ${response.status()} ${response.statusText()}`.trim(),
      };
    const left = timeoutMs - (Date.now() - started);
    if (left > 0) await page.waitForNetworkIdle({ idleTime: QUIET_MS, timeout: left }).catch(() => undefined);
    return {
      ok: true,
      status: response.status(),
      finalUrl: response.url(),
      headers: response.headers(),
      scripts: await Promise.all(bodies),
      violations,
    };
  } finally {
    await context.close();
  }
}

/** Records the page's script bodies (their hash) and its CSP violations from the first byte of the document. */
async function watch(page: Page, violations: ProbeViolation[], bodies: Array<Promise<ReceivedScript>>): Promise<void> {
  await page.exposeFunction(VIOLATION_BINDING, (raw: unknown) => {
    const parsed = reportedViolation.safeParse(raw);
    if (!parsed.success) return;
    const violation = probeViolationSchema.parse({
      directive: parsed.data.effectiveDirective,
      blockedUrl: parsed.data.blockedURI,
      disposition: parsed.data.disposition,
    });
    violations.push(violation);
  });
  await page.evaluateOnNewDocument(VIOLATION_LISTENER);
  page.on('response', (response) => {
    // A script the browser ran: one it received with a success status (an error page does not run).
    if (response.request().resourceType() !== 'script' || !response.ok()) return;
    bodies.push(
      response.buffer().then(
        (body): ReceivedScript => ({ url: response.url(), sha256: createHash('sha256').update(body).digest('hex') }),
        (error: unknown): ReceivedScript => ({
          url: response.url(),
          error: `its body could not be read: ${(error as Error).message.split('\n')[0]}`,
        }),
      ),
    );
  });
}
