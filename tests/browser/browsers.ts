/**
 * The two browsers of the truth, Debian's `chromium` and `firefox-esr`: their names, where they are
 * installed, and the check that they are. Kept apart from their launch (./launch.ts), since jest
 * cannot load puppeteer-core, an ES module, and the browser test checks for the browsers itself.
 */

import { existsSync } from 'node:fs';

/** The browsers the truth records, by the names its file uses. */
export const BROWSER_NAMES = ['chromium', 'firefox'] as const;

/** A browser of the truth. */
export type BrowserName = (typeof BROWSER_NAMES)[number];

/** Where Debian installs each browser. */
export const BROWSER_EXECUTABLES: Readonly<Record<BrowserName, string>> = {
  chromium: '/usr/bin/chromium',
  firefox: '/usr/bin/firefox-esr',
};

/**
 * Throws, naming the missing executables and how to install them, unless both browsers are here.
 * The browser truth never skips: a missing browser is a failure to fix, not a pass.
 */
export function requireBrowsers(): void {
  const missing = BROWSER_NAMES.filter((name) => !existsSync(BROWSER_EXECUTABLES[name]));
  if (missing.length > 0) {
    throw new Error(
      `the CSP browser truth needs ${missing.map((name) => BROWSER_EXECUTABLES[name]).join(' and ')}, ` +
        `which ${missing.length > 1 ? 'are' : 'is'} missing: install them with ` +
        '`bash scripts/setup-browsers.sh` (as root: apt-get install chromium firefox-esr)',
    );
  }
}
