/**
 * Observing what a browser does with the loads of one page: the page is served with its policy
 * headers, the loads are started from `page.evaluate` (code evaluated through the automation
 * protocol is not governed by the page's CSP, but every load it starts is the page's own and is),
 * and the page's `securitypolicyviolation` events are collected beside the server's log.
 */

import type { Page } from 'puppeteer-core';
import { CASE_PARAMETER, PAGE_PARAMETER, type ArrivedRequest, type TruthServer } from './server';

/** How a case is loaded: `<script src>`, or `fetch` (http/https) / `WebSocket` (ws/wss). */
export type LoadKind = 'script' | 'connection';

/** One load of a page. */
export interface Load {
  caseId: string;
  kind: LoadKind;
  /** The URL as the case writes it; the case id is added to its query when loaded. */
  url: string;
}

/** The loads of one page URL under one set of policies. */
export interface PageGroup {
  page: string;
  policies: readonly string[];
  reportOnly: readonly string[];
  loads: readonly Load[];
}

/** A `securitypolicyviolation` event as the page saw it. */
export interface Violation {
  blockedURI: string;
  disposition: string;
  effectiveDirective: string;
}

/** What one load did: the requests that reached the server, the violations matched to it. */
export interface LoadObservation {
  caseId: string;
  arrived: readonly ArrivedRequest[];
  violations: readonly Violation[];
  /** How the load ended in the page (`load`, `error`, `open`, `threw: ...`, `timeout`), for diagnosis. */
  ending: string;
}

/**
 * The few DOM names the in-page code uses: the project compiles against Node's library, not the
 * DOM's, and these are only ever evaluated in the page.
 */
declare const window: {
  addEventListener(type: 'securitypolicyviolation', listener: (event: Violation) => void, capture: boolean): void;
};
declare const document: {
  createElement(tag: 'script'): PageScript;
  createElement(tag: 'meta'): PageMeta;
  createElement(tag: 'img'): { src: string };
  body: { appendChild(node: PageScript | { src: string }): void };
  head: { appendChild(node: PageMeta): void };
};
interface PageMeta {
  httpEquiv: string;
  content: string;
}
interface PageScript {
  src: string;
  onload: (() => void) | null;
  onerror: (() => void) | null;
}

/** The URL a case is loaded at: its own, with the case id in the query. */
export function loadedUrl(load: Load): string {
  const url = new URL(load.url);
  url.searchParams.set(CASE_PARAMETER, load.caseId);
  return url.href;
}

/** The case id a violation's `blockedURI` carries in its query, if it kept the query. */
function caseIdOf(blockedURI: string): string | undefined {
  try {
    return new URL(blockedURI).searchParams.get(CASE_PARAMETER) ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * The sentinel load: an image (a `data:` URL: nothing goes out, and no policy of the page upgrades
 * it) that a policy the page adds after its loads have ended blocks, so that its violation event is
 * queued after every violation of the loads before it. The loads are scripts and connections, so a
 * violation of `img-src` is the sentinel's.
 */
const SENTINEL_IMAGE = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';

/** How long one load may take before the page gives up on it (a local server answers in ms). */
const LOAD_TIMEOUT_MS = 5000;

/**
 * Runs in the page: starts every load at once, waits for each to end, then for the violation of a
 * sentinel load queued after every violation of theirs. Kept free of outside references, since
 * puppeteer sends its source text to the page.
 */
async function runLoads(
  loads: { kind: LoadKind; url: string }[],
  sentinelImage: string,
  timeoutMs: number,
): Promise<{ endings: string[]; violations: Violation[]; sentinel: string }> {
  const violations: Violation[] = [];
  let sentinelSeen: () => void = () => undefined;
  window.addEventListener(
    'securitypolicyviolation',
    (event) => {
      if (event.effectiveDirective === 'img-src') sentinelSeen();
      else
        violations.push({
          blockedURI: event.blockedURI,
          disposition: event.disposition,
          effectiveDirective: event.effectiveDirective,
        });
    },
    true,
  );
  const one = (load: { kind: LoadKind; url: string }): Promise<string> =>
    new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), timeoutMs);
      const end = (how: string): void => {
        clearTimeout(timer);
        resolve(how);
      };
      try {
        if (load.kind === 'script') {
          const script = document.createElement('script');
          script.src = load.url;
          script.onload = () => end('load');
          script.onerror = () => end('error');
          document.body.appendChild(script);
        } else if (/^wss?:/i.test(load.url)) {
          const socket = new WebSocket(load.url);
          socket.onopen = () => {
            socket.close();
            end('open');
          };
          socket.onerror = () => end('error');
        } else {
          fetch(load.url, { cache: 'no-store' }).then(
            () => end('load'),
            () => end('error'),
          );
        }
      } catch (error) {
        end(`threw: ${String(error)}`);
      }
    });
  const endings = await Promise.all(loads.map(one));
  // Violation events are queued as tasks when a load is checked, before it ends, and may still be
  // queued now. A policy of the page's own, added now, blocks one image: its violation event is
  // queued after them all, so once it arrives every violation of the loads has been heard.
  const meta = document.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = "img-src 'none'";
  document.head.appendChild(meta);
  const sentinelArrived = new Promise<string>((resolve) => {
    sentinelSeen = () => resolve('arrived');
    setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const image = document.createElement('img');
  image.src = sentinelImage;
  document.body.appendChild(image);
  return { endings, violations, sentinel: await sentinelArrived };
}

/**
 * Loads a page group in a tab (its previous page, and the listeners there, are left) and returns
 * what each load did. Violations are matched to loads by the case id in `blockedURI`'s query; a
 * violation that lost its query is an error here, since it could belong to any load of the page.
 */
export async function observePage(
  tab: Page,
  server: TruthServer,
  pageKey: string,
  group: PageGroup,
): Promise<LoadObservation[]> {
  server.addPage(pageKey, { policies: group.policies, reportOnly: group.reportOnly });
  const pageUrl = new URL(group.page);
  pageUrl.searchParams.set(PAGE_PARAMETER, pageKey);
  const response = await tab.goto(pageUrl.href, { waitUntil: 'load' });
  if (response === null || !response.ok()) {
    throw new Error(`the page ${pageUrl.href} did not load (status ${response?.status() ?? 'none'})`);
  }
  const { endings, violations, sentinel } = await tab.evaluate(
    runLoads,
    group.loads.map((load) => ({ kind: load.kind, url: loadedUrl(load) })),
    SENTINEL_IMAGE,
    LOAD_TIMEOUT_MS,
  );
  if (sentinel !== 'arrived') {
    throw new Error(
      `on ${group.page} under ${JSON.stringify(group.policies)} (report-only ${JSON.stringify(group.reportOnly)}), the sentinel image's violation never came (${LOAD_TIMEOUT_MS} ms): the violations ` +
        'heard may not be all of them',
    );
  }
  const byCase = new Map<string, Violation[]>();
  for (const violation of violations) {
    const caseId = caseIdOf(violation.blockedURI);
    if (caseId === undefined) {
      throw new Error(
        `on ${group.page} under ${JSON.stringify(group.policies)}, a violation's blockedURI ` +
          `${JSON.stringify(violation.blockedURI)} names no case, so it cannot be matched to a load`,
      );
    }
    byCase.set(caseId, [...(byCase.get(caseId) ?? []), violation]);
  }
  return group.loads.map((load, index) => ({
    caseId: load.caseId,
    arrived: server.arrivals(load.caseId),
    violations: byCase.get(load.caseId) ?? [],
    ending: endings[index] ?? 'none',
  }));
}
