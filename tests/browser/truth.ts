/**
 * The browser truth of CSP: what Chromium and Firefox do with each generated case, its file
 * (tests/fixtures/csp-browser-truth.json, described in ./README.md), its pages and the verdict of
 * an observed load.
 */

import { existsSync } from 'node:fs';
import path from 'node:path';
import type { BrowserName } from './browsers';
import type { TruthCase } from './cases';
import type { LoadObservation } from './observe';

/** The repository: the nearest folder with a package.json above this file, in tests/ or in dist/tests/. */
function repository(): string {
  for (let folder = __dirname; folder !== path.dirname(folder); folder = path.dirname(folder)) {
    if (existsSync(path.join(folder, 'package.json'))) {
      return folder;
    }
  }
  throw new Error(`no package.json above ${__dirname}`);
}

/** Where the recorded truth is kept. */
export const TRUTH_FILE = path.join(repository(), 'tests', 'fixtures', 'csp-browser-truth.json');

/**
 * What a browser did with a case: `allowed` (reached the server, no violation), `reported` (reached
 * it, a report-only policy reported it), `blocked` (an enforced policy blocked it before it left),
 * `mixed-content` (an https page's insecure non-loopback request, stopped with no violation).
 */
export type Verdict = 'allowed' | 'reported' | 'blocked' | 'mixed-content';

/** A case with the verdict of each browser. */
export type RecordedCase = TruthCase & Record<BrowserName, Verdict>;

/** The truth file. */
export interface TruthFile {
  generator: string;
  seed: number;
  recordedAt: string;
  browsers: Record<BrowserName, string>;
  cases: RecordedCase[];
}

/** The cases of one page: same page URL, same enforced and report-only policies. */
export function pageKey(entry: Pick<TruthCase, 'page' | 'policies' | 'reportOnly'>): string {
  return JSON.stringify([entry.page, entry.policies, entry.reportOnly]);
}

/**
 * Loads per page; a page of more waits on the browser's six connections per host and its queue of
 * WebSocket handshakes, and one slow load holds up the rest.
 */
const MAX_LOADS_PER_PAGE = 40;

/** The cases grouped into pages, in the order of their first case, each page at most {@link MAX_LOADS_PER_PAGE} loads. */
export function groupIntoPages(cases: readonly TruthCase[]): TruthCase[][] {
  const byPage = new Map<string, TruthCase[]>();
  for (const entry of cases) {
    const key = pageKey(entry);
    byPage.set(key, [...(byPage.get(key) ?? []), entry]);
  }
  const pages: TruthCase[][] = [];
  for (const group of byPage.values()) {
    for (let start = 0; start < group.length; start += MAX_LOADS_PER_PAGE) {
      pages.push(group.slice(start, start + MAX_LOADS_PER_PAGE));
    }
  }
  return pages;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether a request from this page to this URL is mixed content: an https page, an insecure non-loopback URL. */
export function isMixedContent(page: string, url: string): boolean {
  const target = new URL(url);
  return (
    new URL(page).protocol === 'https:' &&
    (target.protocol === 'http:' || target.protocol === 'ws:') &&
    !LOOPBACK_HOSTS.has(target.hostname)
  );
}

/**
 * The verdict an observation shows, or why it shows none (a request that reached the server after
 * an enforced violation, or one that never left for no reason the truth knows: the harness is then
 * broken, not the browser).
 */
export function classify(entry: TruthCase, observation: LoadObservation): Verdict | { unexplained: string } {
  const arrived = observation.arrived.length > 0;
  const enforced = observation.violations.some((violation) => violation.disposition === 'enforce');
  const reported = observation.violations.some((violation) => violation.disposition === 'report');
  if (arrived) {
    if (enforced) {
      const how = observation.arrived.map((request) => (request.secure ? 'over TLS' : 'in plain text')).join(', ');
      return { unexplained: `it reached the server (${how}) although an enforced policy reported blocking it` };
    }
    return reported ? 'reported' : 'allowed';
  }
  if (enforced) {
    return 'blocked';
  }
  // Chromium checks report-only policies before it stops mixed content, so a report may come
  // with it; the request is stopped all the same.
  if (observation.ending !== 'timeout' && isMixedContent(entry.page, entry.url)) {
    return 'mixed-content';
  }
  return {
    unexplained:
      `it never reached the server (the page saw "${observation.ending}") with ` +
      (reported ? 'only a report-only violation' : 'no violation') +
      (isMixedContent(entry.page, entry.url) ? '' : ', and it is not mixed content'),
  };
}
