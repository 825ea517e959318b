/**
 * The browsers of the truth launched headless by puppeteer-core, with every test hostname mapped to
 * the loopback by the browser's own options, self-signed certificates accepted, and no HTTPS-first
 * upgrade of http pages (what was measured to work with Debian's builds).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { BROWSER_EXECUTABLES, type BrowserName } from './browsers';

/** A launched browser and the profile folder it owns. */
export interface LaunchedBrowser {
  name: BrowserName;
  browser: Browser;
  /** `browser.version()`, e.g. `chrome/156.0.8078.108` or `firefox/153.7.0esr`. */
  version: string;
  close(): Promise<void>;
}

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  // Without these Chromium keeps calling out to Google's services, which this closed network
  // answers with nothing but retries.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--host-resolver-rules=MAP * 127.0.0.1',
  '--ignore-certificate-errors',
  '--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,HttpsFirstModeV2ForTypicallySecureUsers',
];

const FIREFOX_PREFS: Record<string, unknown> = {
  'network.dns.forceResolve': '127.0.0.1',
  'network.dns.disableIPv6': true,
  'dom.security.https_first': false,
  'dom.security.https_first_pbm': false,
  'dom.security.https_first_schemeless': false,
  'dom.security.https_only_mode': false,
  'network.stricttransportsecurity.preloadlist': false,
  // Local network access: every test host is the loopback, which Firefox would otherwise guard.
  'network.lna.blocking': false,
};

/** Launches one browser with a fresh profile; {@link LaunchedBrowser.close} removes the profile. */
export async function launchBrowser(name: BrowserName): Promise<LaunchedBrowser> {
  const profile = mkdtempSync(path.join(tmpdir(), `edgeguard-${name}-`));
  const browser =
    name === 'chromium'
      ? await puppeteer.launch({
          browser: 'chrome',
          executablePath: BROWSER_EXECUTABLES.chromium,
          args: CHROMIUM_ARGS,
          userDataDir: profile,
          acceptInsecureCerts: true,
          headless: true,
        })
      : await puppeteer.launch({
          browser: 'firefox',
          executablePath: BROWSER_EXECUTABLES.firefox,
          extraPrefsFirefox: FIREFOX_PREFS,
          userDataDir: profile,
          acceptInsecureCerts: true,
          headless: true,
        });
  return {
    name,
    browser,
    version: await browser.version(),
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
