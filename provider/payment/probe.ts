import {
  authorizingEntry,
  authorizingFrame,
  authorizingInline,
  cardDestinationOf,
  inlineSourceOfHex,
  inventoryPageOf,
  type InventoryPage,
} from '../../rules/inventory';
import { CSP_HEADERS, PINNABLE_HEADERS, SECURITY_HEADERS, type SecurityHeader } from '../../rules/security-headers';
import type { ManagedPolicy, StackInventory } from '../stack/inventories';
import { comparableCspValue, declaredCspHeaders } from './headers';
import { cardEncodingIn } from './card';
import {
  DEVICES,
  PROBE_FORMAT,
  PROBE_FORMAT_VERSION,
  probeReportSchema,
  type ProbeAlert,
  type ProbeInventory,
  type ProbeNotice,
  type ProbePage,
  type ProbeReport,
  type ProbeScript,
  type ProbeViolation,
  type REQUEST_VIAS,
  type SCRIPT_CONTEXTS,
  type SCRIPT_KINDS,
} from './probe-schema';
import { entryText, integrityOf, type PaymentScript } from './scripts';

/**
 * `edgeguard-probe`'s judgement (PCI DSS 4.0 requirement 11.6.1 as the browser runs it, issues 33
 * and 41): what real browsers ran and sent on each payment page, a desktop's and a phone's, load
 * by load, compared with the inventory (the scripts, inline scripts, frames and card destinations
 * it authorizes, the hashes and headers it pins), with what page security reports, and with the
 * CSP headers the stack's `CspPolicy` resources declare for the host. Pure: the browser's part is
 * `./probe-browser.ts`, which gives each load's {@link PageLoad}.
 */

/** A device a page is loaded as. */
export type Device = (typeof DEVICES)[number];

/** Where a script ran. */
export type ScriptContext = (typeof SCRIPT_CONTEXTS)[number];

/** A script the browser ran, as its debugging protocol reported it. */
export interface RanScript {
  kind: (typeof SCRIPT_KINDS)[number];
  /** External: its URL; inline: its document's; eval: the name it gave itself (`//# sourceURL`), if any. */
  url?: string;
  /** SHA-256 of its text as parsed, lowercase hexadecimal; absent when it could not be read. */
  sha256?: string;
  /** Why its text could not be read. */
  error?: string;
  /** The document or worker it ran in. */
  frame: string;
  context: ScriptContext;
}

/** A request the browser sent once the card was typed, or a WebSocket message (`method` `SEND`). */
export interface SentRequest {
  url: string;
  via: (typeof REQUEST_VIAS)[number];
  method: string;
  /** Its body or message, as text (bytes as Latin-1), cut at 64 KiB. */
  body?: string;
}

/** What the browser ran and sent on one load of a page, or why it did not load. */
export type PageLoad = { device: Device; load: number } & (
  | {
      ok: true;
      status: number;
      /** The top document's URL at the end of the load. */
      finalUrl: string;
      /** Every response header of the document, by lowercase name, several of one name joined with `\n`. */
      headers: Record<string, string>;
      scripts: RanScript[];
      /** The URLs of the page's frames (http and https), the top one left out. */
      frames: string[];
      /** The scripts of the service workers the page registered. */
      serviceWorkers: string[];
      /** The card fields typed into. */
      cardFields: number;
      /** What the browser sent once the card was typed. */
      requests: SentRequest[];
      violations: ProbeViolation[];
    }
  | { ok: false; reason: string; status?: number }
);

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
): Array<Unseen<ProbeAlert>> {
  const declared = declaredCspHeaders(policies, host);
  return CSP_HEADERS.flatMap((header): Array<Unseen<ProbeAlert>> => {
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
function pinnedAlerts(
  pinned: StackInventory['headers'],
  received: Readonly<Record<string, string>>,
): Array<Unseen<ProbeAlert>> {
  return PINNABLE_HEADERS.flatMap((header): Array<Unseen<ProbeAlert>> => {
    const expected = pinned?.[header];
    if (expected === undefined) return [];
    const values = headerValues(header, received[header]);
    const got = values.length > 0 ? values.join(', ') : null;
    if (got === expected) return [];
    return [{ kind: 'header-changed', header, expected, received: got, pinnedBy: 'inventory', managedBy: [] }];
  });
}

/** A load as the report names it. */
type Seen = ProbeAlert['seenOn'][number];

/** Something judged on one load, before the loads are merged: without its `seenOn`. */
type Unseen<T> = T extends unknown ? Omit<T, 'seenOn'> : never;

/** Page security's reading of an external script: reported on a page of the inventory, and its hash. */
function pageSecurityOf(url: string, reported: readonly PaymentScript[]): NonNullable<ProbeScript['pageSecurity']> {
  const known = reported.find((script) => canonical(script.url) === canonical(url));
  return {
    reported: known !== undefined && known.inventoryPages.length > 0,
    ...(known?.hash !== undefined ? { hash: known.hash.toLowerCase() } : {}),
  };
}

/** The origin of a URL, or `undefined`. */
function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** One load's script judged: the script as the report lists it, its alerts and notices. */
function judgeScript(
  inventory: StackInventory,
  pageOrigin: string | undefined,
  ran: RanScript,
  reported: readonly PaymentScript[],
): { script: Unseen<ProbeScript>; alerts: Array<Unseen<ProbeAlert>>; notices: Array<Unseen<ProbeNotice>> } {
  const base = {
    kind: ran.kind,
    ...(ran.url !== undefined ? { url: ran.url } : {}),
    ...(ran.sha256 !== undefined ? { sha256: ran.sha256 } : {}),
    ...(ran.kind !== 'external' && ran.sha256 !== undefined ? { hashSource: inlineSourceOfHex(ran.sha256) } : {}),
    ...(ran.error !== undefined ? { error: ran.error } : {}),
    frame: ran.frame,
    context: ran.context,
  };
  // A script of an authorized frame of another origin is its provider's to answer for.
  const frameOrigin = originOf(ran.frame);
  if (ran.context === 'frame' && frameOrigin !== undefined && frameOrigin !== pageOrigin) {
    const frame = authorizingFrame(inventory.inventory, ran.frame);
    if (frame !== undefined) return { script: { ...base, underFrame: frame.address.text }, alerts: [], notices: [] };
  }
  const unauthorized = (): Unseen<ProbeAlert> => ({
    kind: 'script-unauthorized',
    script: ran.kind,
    ...(ran.url !== undefined ? { url: ran.url } : {}),
    ...(ran.sha256 !== undefined
      ? { sha256: ran.sha256, ...(ran.kind !== 'external' ? { hashSource: base.hashSource } : {}) }
      : {}),
    frame: ran.frame,
    context: ran.context,
  });
  if (ran.kind !== 'external') {
    const entry = ran.sha256 !== undefined ? authorizingInline(inventory.inventory, ran.sha256) : undefined;
    return entry !== undefined
      ? { script: { ...base, entry: entry.cspSource, integrity: 'unchanged' }, alerts: [], notices: [] }
      : { script: { ...base, integrity: 'unauthorized' }, alerts: [unauthorized()], notices: [] };
  }
  const url = ran.url ?? '';
  const entry = authorizingEntry(inventory.inventory, url);
  const integrity = integrityOf(entry, ran.sha256);
  const service = ran.context === 'page' || ran.context === 'frame' ? pageSecurityOf(url, reported) : undefined;
  const script: Unseen<ProbeScript> = {
    ...base,
    ...(entry !== undefined ? { entry: entryText(entry) } : {}),
    integrity,
    ...(service !== undefined ? { pageSecurity: service } : {}),
  };
  const alerts: Array<Unseen<ProbeAlert>> = [];
  const notices: Array<Unseen<ProbeNotice>> = [];
  const hash = ran.sha256 !== undefined ? { sha256: ran.sha256 } : {};
  if (integrity === 'unauthorized')
    alerts.push(
      ran.context === 'service-worker' ? { kind: 'service-worker-unauthorized', url, ...hash } : unauthorized(),
    );
  if (integrity === 'changed' && entry?.kind === 'url' && entry.hash !== undefined) {
    const now = service?.hash;
    alerts.push({
      kind: 'script-changed',
      url,
      entryIndex: entry.index,
      pinned: entry.hash,
      ...(ran.sha256 !== undefined ? { received: ran.sha256 } : {}),
      ...(now !== undefined ? { pageSecurity: now } : {}),
      pageSecurityAgrees:
        now === undefined
          ? 'unreported'
          : now === ran.sha256
            ? 'with-browser'
            : now === entry.hash
              ? 'with-pin'
              : 'with-neither',
    });
  }
  if (integrity !== 'unauthorized' && service !== undefined && !service.reported)
    notices.push({ kind: 'script-unreported', url, ...hash });
  return { script, alerts, notices };
}

/** The directives under which a blocked load is a script. */
const SCRIPT_DIRECTIVES = new Set(['script-src', 'script-src-elem', 'script-src-attr', 'worker-src']);

/** What one load of a page gives the page's report, before the loads are merged. */
interface JudgedLoad {
  scripts: Array<Unseen<ProbeScript>>;
  frames: Array<{ url: string; entry?: string }>;
  serviceWorkers: Array<{ url: string; entry?: string }>;
  alerts: Array<Unseen<ProbeAlert>>;
  notices: Array<Unseen<ProbeNotice>>;
}

/** One load that loaded, judged. */
function judgeLoad(
  inventory: StackInventory,
  page: InventoryPage,
  load: Extract<PageLoad, { ok: true }>,
  reported: readonly PaymentScript[],
  policies: readonly ManagedPolicy[],
  card: string,
): JudgedLoad {
  const pageOrigin = originOf(load.finalUrl);
  const alerts: Array<Unseen<ProbeAlert>> = [
    ...pinnedAlerts(inventory.headers, load.headers),
    ...cspAlerts(page.host, load.headers, policies),
  ];
  if (inventoryPageOf(inventory.inventory, load.finalUrl) === undefined)
    alerts.push({ kind: 'page-redirected', finalUrl: load.finalUrl, host: hostOf(load.finalUrl) });
  const judged = load.scripts.map((ran) => judgeScript(inventory, pageOrigin, ran, reported));
  alerts.push(...judged.flatMap((one) => one.alerts));
  const frames = load.frames.map((url) => {
    const entry = authorizingFrame(inventory.inventory, url);
    if (entry === undefined && originOf(url) !== pageOrigin)
      alerts.push({ kind: 'frame-unauthorized', url, host: hostOf(url) });
    return { url, ...(entry !== undefined ? { entry: entry.address.text } : {}) };
  });
  const serviceWorkers = load.serviceWorkers.map((url) => {
    const entry = authorizingEntry(inventory.inventory, url);
    if (entry === undefined && !load.scripts.some((ran) => ran.context === 'service-worker' && ran.url === url))
      alerts.push({ kind: 'service-worker-unauthorized', url });
    return { url, ...(entry !== undefined ? { entry: entryText(entry) } : {}) };
  });
  for (const violation of load.violations)
    if (violation.disposition === 'enforce' && SCRIPT_DIRECTIVES.has(violation.directive))
      alerts.push({ kind: 'script-blocked', directive: violation.directive, blockedUrl: violation.blockedUrl });
  for (const request of load.requests) {
    const encoding = cardEncodingIn(`${request.url}\n${request.body ?? ''}`, card);
    if (encoding === undefined || cardDestinationOf(inventory.inventory, request.url) !== undefined) continue;
    alerts.push({ kind: 'card-sent', url: request.url, host: hostOf(request.url), via: request.via, encoding });
  }
  return {
    scripts: judged.map((one) => one.script),
    frames,
    serviceWorkers,
    alerts,
    notices: judged.flatMap((one) => one.notices),
  };
}

/** Items merged by their content, each with every load that gave it, in the order first given. */
function merged<T extends object>(items: ReadonlyArray<{ item: T; seen: Seen }>): Array<T & { seenOn: Seen[] }> {
  const byKey = new Map<string, T & { seenOn: Seen[] }>();
  for (const { item, seen } of items) {
    const key = JSON.stringify(item);
    const found = byKey.get(key);
    if (found === undefined) byKey.set(key, { ...item, seenOn: [seen] });
    else if (!found.seenOn.some((other) => other.device === seen.device && other.load === seen.load))
      found.seenOn.push(seen);
  }
  return [...byKey.values()];
}

/** Orders scripts by kind, then URL, then hash, so the report reads the same at every run. */
function scriptOrder(a: Unseen<ProbeScript>, b: Unseen<ProbeScript>): number {
  const key = (script: Unseen<ProbeScript>) =>
    [script.kind, script.url ?? '', script.sha256 ?? '', script.frame].join('\u0000');
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}

/**
 * One page of an inventory over its loads (each device, each load), and its alerts and notices,
 * each with the loads that saw it. `card` is the digits of the test card typed.
 */
export function judgePage(
  inventory: StackInventory,
  page: InventoryPage,
  loads: readonly PageLoad[],
  reported: readonly PaymentScript[],
  policies: readonly ManagedPolicy[],
  card: string,
): ProbePage {
  const ordered = [...loads].sort((a, b) => DEVICES.indexOf(a.device) - DEVICES.indexOf(b.device) || a.load - b.load);
  const seenOf = (load: PageLoad): Seen => ({ device: load.device, load: load.load });
  const loaded = ordered.filter((load): load is Extract<PageLoad, { ok: true }> => load.ok);
  const judged = loaded.map((load) => ({ load, judged: judgeLoad(inventory, page, load, reported, policies, card) }));
  const of = <T extends object>(pick: (one: JudgedLoad) => T[]) =>
    merged(judged.flatMap(({ load, judged: one }) => pick(one).map((item) => ({ item, seen: seenOf(load) }))));
  const unavailable = ordered.flatMap((load) =>
    load.ok ? [] : [{ item: { kind: 'page-unavailable' as const, reason: load.reason }, seen: seenOf(load) }],
  );
  const alerts = [...merged(unavailable), ...of((one) => one.alerts)] as ProbeAlert[];
  markUnstable(alerts, loaded.length);
  const first = loaded[0];
  const failed = ordered.find((load) => !load.ok);
  return {
    page: page.text,
    url: pageUrl(page),
    loaded: first !== undefined,
    ...(first !== undefined
      ? { status: first.status, finalUrl: first.finalUrl }
      : failed !== undefined && !failed.ok && failed.status !== undefined
        ? { status: failed.status }
        : {}),
    headers: first !== undefined ? securityHeadersOf(first.headers) : {},
    loads: ordered.map((load) => ({
      device: load.device,
      load: load.load,
      loaded: load.ok,
      ...(load.ok
        ? { status: load.status, finalUrl: load.finalUrl }
        : load.status !== undefined
          ? { status: load.status }
          : {}),
      scripts: load.ok ? load.scripts.length : 0,
      cardFields: load.ok ? load.cardFields : 0,
      requestsAfterCard: load.ok ? load.requests.length : 0,
    })),
    scripts: of((one) => one.scripts).sort(scriptOrder),
    frames: of((one) => one.frames),
    serviceWorkers: of((one) => one.serviceWorkers),
    violations: merged(loaded.flatMap((load) => load.violations.map((item) => ({ item, seen: seenOf(load) })))),
    alerts,
    notices: of((one) => one.notices),
  };
}

/**
 * Marks the unauthorized inline scripts of a page whose text differs at every load: when each of
 * several loads ran such a script seen on that load only, none can be pinned by its hash.
 */
function markUnstable(alerts: ProbeAlert[], loads: number): void {
  if (loads < 2) return;
  const once = alerts.filter(
    (alert): alert is Extract<ProbeAlert, { kind: 'script-unauthorized' }> =>
      alert.kind === 'script-unauthorized' && alert.script === 'inline' && alert.seenOn.length === 1,
  );
  const loadsWithOne = new Set(once.map((alert) => `${alert.seenOn[0]!.device} ${alert.seenOn[0]!.load}`));
  if (loadsWithOne.size < loads) return;
  for (const alert of once) alert.changesEveryLoad = true;
}

/** What {@link probeReport} puts together. */
export interface ProbeSource {
  project: string;
  stack: string;
  toolVersion: string;
  /** The browser as it names itself. */
  browser: string;
  staging: ProbeReport['staging'];
  settings: ProbeReport['settings'];
  evaluatedAt: string;
  inventories: ProbeInventory[];
}

/**
 * The report of a probe: its pages as judged, counted, and whether any alerted (or, under
 * `--strict`, gave a notice); checked against its schema, since much of it is what a page sent.
 */
export function probeReport(source: ProbeSource): ProbeReport {
  const pages = source.inventories.flatMap((inventory) => inventory.pages);
  const sum = (count: (page: ProbePage) => number) => pages.reduce((total, page) => total + count(page), 0);
  const counts = {
    pages: pages.length,
    loads: sum((page) => page.loads.length),
    loaded: sum((page) => page.loads.filter((load) => load.loaded).length),
    scripts: sum((page) => page.scripts.length),
    alerts: sum((page) => page.alerts.length),
    notices: sum((page) => page.notices.length),
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
    settings: source.settings,
    passed: counts.alerts === 0 && (!source.settings.strict || counts.notices === 0),
    counts,
    inventories: source.inventories,
  });
}

/**
 * The CSP hash sources of the inline scripts a probe saw on `pages` (an inventory's pages, as
 * `parseInventoryPage` gives them), for `edgeguard-inventory --probe`: every inline `<script>` of the
 * pages and their same-origin frames, whether an entry authorizes it already or not; none of an
 * authorized frame of another origin (its provider's), of a worker, or given to `eval`.
 */
export function inlineSourcesSeen(report: ProbeReport, pages: readonly InventoryPage[]): string[] {
  const onPages = { pages, scripts: [] };
  return [
    ...new Set(
      report.inventories
        .flatMap((inventory) => inventory.pages)
        .filter((page) => inventoryPageOf(onPages, `https://${page.page}`) !== undefined)
        .flatMap((page) => page.scripts)
        .filter((script) => script.kind === 'inline' && script.underFrame === undefined)
        .filter((script) => script.context === 'page' || script.context === 'frame')
        .flatMap((script) => (script.hashSource !== undefined ? [script.hashSource] : [])),
    ),
  ].sort();
}

/** The exit status of `edgeguard-probe` for a report: 0 when it passed, 1 otherwise. */
export function probeExitStatus(report: ProbeReport): 0 | 1 {
  return report.passed ? 0 : 1;
}
