import { authorizingEntry, type InventoryPage } from '../../rules/inventory';
import { CSP_HEADERS, PINNABLE_HEADERS, SECURITY_HEADERS, type SecurityHeader } from '../../rules/security-headers';
import type { ManagedPolicy, StackInventory } from '../stack/inventories';
import { comparableCspValue, declaredCspHeaders } from './headers';
import {
  PROBE_FORMAT,
  PROBE_FORMAT_VERSION,
  probeReportSchema,
  type ProbeAlert,
  type ProbeInventory,
  type ProbePage,
  type ProbeReport,
  type ProbeScript,
  type ProbeViolation,
} from './probe-schema';
import { entryText, integrityOf, type PaymentScript } from './scripts';

/**
 * `edgeguard-probe`'s judgement (PCI DSS 4.0 requirement 11.6.1 as the browser receives it, issue
 * 33): what a real browser received on each payment page, compared with the inventory (the
 * scripts it authorizes and pins, the headers it pins), with what page security reports, and with
 * the CSP headers the stack's `CspPolicy` resources declare for the host. Pure: the browser's part
 * is `./probe-browser.ts`, which gives each page's {@link PageLoad}.
 */

/** A script the browser ran from a URL, with the body it received. */
export interface ReceivedScript {
  url: string;
  /** SHA-256 of the body received, lowercase hexadecimal; absent when it could not be read. */
  sha256?: string;
  /** Why the body could not be read. */
  error?: string;
}

/** What the browser received on one page, or why it did not load. */
export type PageLoad =
  | {
      ok: true;
      status: number;
      finalUrl: string;
      /** Every response header of the document, by lowercase name, several of one name joined with `\n`. */
      headers: Record<string, string>;
      scripts: ReceivedScript[];
      violations: ProbeViolation[];
    }
  | { ok: false; reason: string; status?: number };

/** The URL a shopper's browser loads for a page of the inventory. */
export function pageUrl(page: InventoryPage): string {
  return new URL(`https://${page.text}`).href;
}

/** A URL as compared: as the URL parser writes it, else as given. */
function canonical(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

/** The values of one header as received: the lines the browser joined with `\n`, and, for CSP, each policy of a line. */
function headerValues(header: SecurityHeader, value: string | undefined): string[] {
  if (value === undefined) return [];
  const lines = value.split('\n').map((line) => line.trim());
  const values = (CSP_HEADERS as readonly string[]).includes(header) ? lines.flatMap((line) => line.split(',')) : lines;
  return values.map((part) => part.trim()).filter((part) => part !== '');
}

/** The security headers of a load, each as one value (several joined with ", ", as HTTP combines them). */
function securityHeadersOf(headers: Readonly<Record<string, string>>): ProbePage['headers'] {
  return Object.fromEntries(
    SECURITY_HEADERS.flatMap((header) => {
      const values = headerValues(header, headers[header]);
      return values.length > 0 ? [[header, values.join(', ')]] : [];
    }),
  );
}

/** The CSP headers received against those the stack declares for the host: one alert per header that differs. */
function cspAlerts(
  host: string,
  received: Readonly<Record<string, string>>,
  policies: readonly ManagedPolicy[],
): ProbeAlert[] {
  const declared = declaredCspHeaders(policies, host);
  return CSP_HEADERS.flatMap((header): ProbeAlert[] => {
    const mine = declared.filter((policy) => policy.header === header);
    const expected = mine.map((policy) => policy.value);
    const got = headerValues(header, received[header]);
    const same = (values: string[]) => values.map(comparableCspValue).sort().join('\n');
    if (same(expected) === same(got)) return [];
    return [
      {
        kind: 'header-changed',
        header,
        expected: expected.length > 0 ? expected.join(', ') : null,
        received: got.length > 0 ? got.join(', ') : null,
        pinnedBy: 'stack',
        managedBy: mine.map((policy) => policy.managedBy),
      },
    ];
  });
}

/** The headers the inventory pins against those received, exactly. */
function pinnedAlerts(pinned: StackInventory['headers'], received: Readonly<Record<string, string>>): ProbeAlert[] {
  return PINNABLE_HEADERS.flatMap((header): ProbeAlert[] => {
    const expected = pinned?.[header];
    if (expected === undefined) return [];
    const values = headerValues(header, received[header]);
    const got = values.length > 0 ? values.join(', ') : null;
    if (got === expected) return [];
    return [{ kind: 'header-changed', header, expected, received: got, pinnedBy: 'inventory', managedBy: [] }];
  });
}

/** One script as received, judged against the inventory and page security's reading. */
function judgeScript(
  inventory: StackInventory,
  page: InventoryPage,
  received: ReceivedScript,
  reported: readonly PaymentScript[],
): { script: ProbeScript; alerts: ProbeAlert[] } {
  const entry = authorizingEntry(inventory.inventory, received.url);
  const integrity = integrityOf(entry, received.sha256);
  const url = canonical(received.url);
  const known = reported.find((script) => canonical(script.url) === url);
  const onPage = known !== undefined && known.inventoryPages.includes(page.text);
  const script: ProbeScript = {
    url: received.url,
    ...(received.sha256 !== undefined ? { sha256: received.sha256 } : {}),
    ...(received.error !== undefined ? { error: received.error } : {}),
    ...(entry !== undefined ? { entry: entryText(entry) } : {}),
    integrity,
    pageSecurity: { reported: onPage, ...(known?.hash !== undefined ? { hash: known.hash.toLowerCase() } : {}) },
  };
  const hash = received.sha256 !== undefined ? { sha256: received.sha256 } : {};
  const alerts: ProbeAlert[] = [];
  if (integrity === 'unauthorized') alerts.push({ kind: 'script-unauthorized', url: received.url, ...hash });
  if (integrity === 'changed' && entry?.kind === 'url' && entry.hash !== undefined) {
    const service = known?.hash?.toLowerCase();
    alerts.push({
      kind: 'script-changed',
      url: received.url,
      entryIndex: entry.index,
      pinned: entry.hash,
      ...(received.sha256 !== undefined ? { received: received.sha256 } : {}),
      ...(service !== undefined ? { pageSecurity: service } : {}),
      pageSecurityAgrees:
        service === undefined
          ? 'unreported'
          : service === received.sha256
            ? 'with-browser'
            : service === entry.hash
              ? 'with-pin'
              : 'with-neither',
    });
  }
  if (!onPage) alerts.push({ kind: 'script-unreported', url: received.url, ...hash });
  return { script, alerts };
}

/** One page of an inventory as received, and its alerts. */
export function judgePage(
  inventory: StackInventory,
  page: InventoryPage,
  load: PageLoad,
  reported: readonly PaymentScript[],
  policies: readonly ManagedPolicy[],
): ProbePage {
  const base = { page: page.text, url: pageUrl(page) };
  if (!load.ok)
    return {
      ...base,
      loaded: false,
      ...(load.status !== undefined ? { status: load.status } : {}),
      headers: {},
      scripts: [],
      violations: [],
      alerts: [{ kind: 'page-unavailable', reason: load.reason }],
    };
  const judged = [...load.scripts]
    .sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0))
    .map((received) => judgeScript(inventory, page, received, reported));
  return {
    ...base,
    loaded: true,
    status: load.status,
    finalUrl: load.finalUrl,
    headers: securityHeadersOf(load.headers),
    scripts: judged.map(({ script }) => script),
    violations: load.violations,
    alerts: [
      ...pinnedAlerts(inventory.headers, load.headers),
      ...cspAlerts(page.host, load.headers, policies),
      ...judged.flatMap(({ alerts }) => alerts),
    ],
  };
}

/** What {@link probeReport} puts together. */
export interface ProbeSource {
  project: string;
  stack: string;
  toolVersion: string;
  /** The browser as it names itself. */
  browser: string;
  staging: ProbeReport['staging'];
  evaluatedAt: string;
  inventories: ProbeInventory[];
}

/**
 * The report of a probe: its pages as judged, counted, and whether any alerted; checked against
 * its schema, since much of it is what a page sent.
 */
export function probeReport(source: ProbeSource): ProbeReport {
  const pages = source.inventories.flatMap((inventory) => inventory.pages);
  const counts = {
    pages: pages.length,
    loaded: pages.filter((page) => page.loaded).length,
    scripts: pages.reduce((sum, page) => sum + page.scripts.length, 0),
    alerts: pages.reduce((sum, page) => sum + page.alerts.length, 0),
  };
  return probeReportSchema.parse({
    format: PROBE_FORMAT,
    formatVersion: PROBE_FORMAT_VERSION,
    evaluatedAt: source.evaluatedAt,
    tool: { name: 'edgeguard-probe', version: source.toolVersion },
    project: source.project,
    stack: source.stack,
    browser: source.browser,
    staging: source.staging,
    passed: counts.alerts === 0,
    counts,
    inventories: source.inventories,
  });
}

/** The exit status of `edgeguard-probe` for a report: 0 when nothing alerted, 1 otherwise. */
export function probeExitStatus(report: ProbeReport): 0 | 1 {
  return report.passed ? 0 : 1;
}
