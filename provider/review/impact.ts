import {
  formatCspSource,
  parseCspValue,
  qualifiedCspSources,
  type CspDirective,
  type CspDirectiveName,
  type CspSource,
} from '../../rules/csp';
import { cspAllowsUrl, governingDirective, type CspFetchKind } from '../../rules/csp-match';
import { parsePolicyExpression } from '../../rules/expression';
import { isMalicious } from '../helpers/read';

/**
 * The impact of a CSP policy on what page security detected on its host (issue 9, item 1; issue
 * 20, item 1): its scripts, under the directive that governs scripts, and its connections, under
 * the one that governs connections (`GOVERNING_DIRECTIVES` of `rules/csp.ts`). For each kind, one
 * judgement: which items the policy would block or report, which it newly blocks or newly allows
 * compared with the live policy it replaces, which malicious ones it allows, which of the
 * governing directive's sources allow nothing that was detected. Pure: it judges what it is
 * given, with the allow semantics of spec 2.6 (`cspAllowsUrl`, each URL parsed once), the
 * malicious rule of spec 1.2 for scripts (`isMalicious`) and the service's reports for
 * connections ({@link connectionReports}); reading the service is `./plan.ts`'s job.
 *
 * Items are judged on the pages they were seen on, which are pages of the policy's host (its
 * expression's `http.host`): `'self'` and scheme-less sources are relative to the page. Memory
 * does not grow with the number of items: counts are exact, and each list keeps only its
 * {@link DEFAULT_SAMPLE_SIZE} most recently seen items.
 */

/** Items kept per list when not told otherwise: the most recently seen ones. */
export const DEFAULT_SAMPLE_SIZE = 20;
/**
 * Malicious items a policy allows, kept in full up to this many, so that the items a team
 * accepts can be taken out of them afterwards ({@link acceptMalicious}); also the blocked
 * connections kept for {@link acceptBlocked}. Malicious items are few by nature; past this many,
 * the ones not kept cannot be accepted.
 */
export const MALICIOUS_LINES_KEPT = 1000;

/** A CSP policy as the review reads it: as the stack declares it, or as the service holds it. */
export interface PolicyText {
  /** Spec 2.6: `allow` blocks what the value does not allow, `log` reports it. */
  action: string;
  /** A disabled policy neither blocks nor reports anything. */
  enabled: boolean;
  /** `http.host eq "<hostname>"`. */
  expression: string;
  /** The CSP directives. */
  value: string;
}

/**
 * A detected script (spec 2.3) or connection (spec 2.4) as the review uses it: both are a URL a
 * page of the host fetched, judged under the directive that governs their kind.
 */
export interface Detected {
  id: string;
  url: string;
  /** Spec 3: `active` or `infrequent`. */
  status: string;
  /** `first_page_url` of the lists. */
  firstPageUrl: string;
  /** `page_urls` of a script's single GET, when it was read: every page it was seen on. */
  pageUrls?: readonly string[];
  lastSeenAt: string;
  /** A script's score; absent on plans without scores (then it is not malicious). */
  jsIntegrityScore?: number;
  /** What the service reported malicious about a connection ({@link connectionReports}); empty or absent when nothing. */
  reports?: readonly string[];
}

/**
 * What the service reports malicious about a connection (spec 2.4), one phrase each: its domain
 * or its URL reported malicious, or categories given for either. Empty when nothing is.
 */
export function connectionReports(connection: {
  domain_reported_malicious: boolean;
  malicious_domain_categories: readonly string[];
  url_reported_malicious: boolean;
  malicious_url_categories: readonly string[];
}): string[] {
  const phrase = (what: string, flagged: boolean, categories: readonly string[]) =>
    flagged || categories.length > 0
      ? [`${what} reported malicious${categories.length > 0 ? ` (${categories.join(', ')})` : ''}`]
      : [];
  return [
    ...phrase('domain', connection.domain_reported_malicious, connection.malicious_domain_categories),
    ...phrase('URL', connection.url_reported_malicious, connection.malicious_url_categories),
  ];
}

/** Why a detected item is malicious, or `undefined`: spec 1.2's score for a script, the service's reports for a connection. */
export function maliciousBecause(kind: CspFetchKind, item: Detected): string | undefined {
  if (kind === 'script')
    return isMalicious({ js_integrity_score: item.jsIntegrityScore })
      ? `js_integrity_score ${item.jsIntegrityScore}`
      : undefined;
  return item.reports !== undefined && item.reports.length > 0 ? item.reports.join('; ') : undefined;
}

/** What the proposed policy is compared with. */
export type Baseline =
  /** The policy the service holds now for this resource (its id is known). */
  | { kind: 'live'; id: string; policy: PolicyText }
  /** There is none: the policy is created. */
  | { kind: 'none' }
  /** It exists but is not known to the caller; `reason` says why. Nothing "newly" is computed. */
  | { kind: 'unknown'; reason: string };

/** What an enabled `allow` policy does to a fetch it does not allow, what a `log` policy does, or nothing (disabled). */
export type PolicyEffect = 'block' | 'report' | 'none';

/** One detected script or connection in a list of the report. */
export interface DetectedLine {
  /** Its id at the service. */
  id: string;
  url: string;
  /** The pages the line is about (where it is blocked, reported or allowed), as the service gave them. */
  pages: string[];
  /**
   * What `pages` are: `all`, every page of the host it was seen on (its `page_urls` were read);
   * `any`, its first page, the verdict being the same on any page of the host; `first`, its first
   * page only, the verdict depending on the page and its other pages not read.
   */
  pagesBasis: 'all' | 'any' | 'first';
  lastSeenAt: string;
  /** Spec 3: `active` or `infrequent`. */
  status: string;
  /** Spec 1.2 for a script (`js_integrity_score` below 10), the service's reports for a connection. */
  malicious: boolean;
  /** Why it is malicious, when it is. */
  maliciousBecause?: string;
  jsIntegrityScore?: number;
  /** Why the team accepts it here (the policy pack's configuration), when it does. */
  accepted?: string;
}

/** A list of detected items: how many there are, and some of them. */
export interface DetectedSample {
  count: number;
  /**
   * At most the sample size: the items that are violations first (in a list where some are),
   * then the most recently seen, then by URL.
   */
  lines: DetectedLine[];
}

/** Accepted scripts or connections: the reason a URL is accepted, or `undefined`. */
export type Acceptance = (url: string) => string | undefined;

/** How one kind of detected item is judged. */
export interface KindOptions {
  /** Blocked items the team accepts: they are listed, and no violation. Default none. */
  acceptBlocked?: Acceptance;
  /**
   * Items listed as not allowed, when more than the sample size must be kept so that a team's
   * acceptance can be applied afterwards ({@link acceptBlocked}). Default the sample size.
   */
  notAllowedKept?: number;
}

/** Options of {@link PolicyImpactEvaluator}. */
export interface EvaluatorOptions {
  /** Items kept per list. Default {@link DEFAULT_SAMPLE_SIZE}. */
  sampleSize?: number;
  /** Malicious items allowed that are kept. Default {@link MALICIOUS_LINES_KEPT}. */
  maliciousKept?: number;
  scripts?: KindOptions;
  connections?: KindOptions;
}

/** The live policy the proposal was compared with, as the report shows it. */
export interface BaselineSummary {
  id: string;
  effect: PolicyEffect;
  hostname: string | undefined;
  value: string;
}

/** The impact of one proposed policy on one kind of detected item. */
export interface DetectedImpact {
  /**
   * The directive of the proposal that governs the kind, or `null` when it has none: the policy
   * then restricts nothing of the kind, and a malicious item it lets through is not its violation
   * (a policy of `script-src` alone says nothing about connections).
   */
  governedBy: CspDirectiveName | null;
  /**
   * Sources of the directive that governs the kind ({@link GOVERNING_DIRECTIVES}) that allow none
   * of the detected items: candidates for removal. Only sources judged by URL count (`'self'`,
   * schemes, hosts); hashes and other keywords are not.
   */
  unusedSources: string[];
  /** Items judged: those detected on the policy's host. */
  judged: number;
  /** The items the policy does not allow: blocked (`block`) or reported (`report`); empty for `none`. */
  notAllowed: DetectedSample;
  /** How many of {@link DetectedImpact.notAllowed} are malicious. */
  notAllowedMalicious: number;
  /** Blocked by the proposal and not by the baseline; `null` when the baseline is unknown. */
  newlyBlocked: DetectedSample | null;
  /** Blocked by the baseline and not by the proposal; `null` when the baseline is unknown. */
  newlyAllowed: DetectedSample | null;
  /**
   * Malicious items the proposal allows, whatever its action (empty for `none`): up to
   * {@link MALICIOUS_LINES_KEPT} of them.
   */
  maliciousAllowed: DetectedSample;
  /**
   * The two rules a review enforces, counted exactly: `blocks`, detected items an enabled `allow`
   * policy blocks that are neither malicious (blocking those is what it is for) nor accepted;
   * `maliciousAllowed`, malicious items it allows that are not accepted (all of them until
   * {@link acceptMalicious} takes the accepted ones out).
   */
  violations: { blocks: number; maliciousAllowed: number };
  /**
   * Items whose verdict depends on their pages but whose pages were not read (the request plan's
   * limit on single-script reads, or a connection, which has no list of pages): judged on their
   * first page only.
   */
  judgedOnFirstPageOnly: number;
}

/** The impact of one proposed policy. */
export interface PolicyImpact {
  /** The host the policy covers, or `undefined` when its expression cannot be read. */
  hostname: string | undefined;
  effect: PolicyEffect;
  /** Why the policy could not be judged (its value or expression cannot be read); the lists are then empty. */
  problem?: string;
  /** What it was compared with: a live policy, `none` (created) or `unknown` with the reason. */
  baseline: BaselineSummary | 'none' | { unknown: string };
  /** Sources (`<directive> <source>`) in the proposal and not in the baseline; `null` when the baseline is unknown. */
  sourcesAdded: string[] | null;
  /** Sources in the baseline and not in the proposal; `null` when the baseline is unknown. */
  sourcesRemoved: string[] | null;
  /** On the scripts detected on its host, under `script-src` or `default-src`. */
  scripts: DetectedImpact;
  /** On the connections detected on its host, under `connect-src` or `default-src`. */
  connections: DetectedImpact;
}

/** A policy readied for judging: its host and directives. */
interface Judge {
  effect: PolicyEffect;
  hostname: string;
  directives: CspDirective[];
}

function effectOf(policy: PolicyText): PolicyEffect {
  if (!policy.enabled) return 'none';
  return policy.action === 'allow' ? 'block' : 'report';
}

/** The policy as a {@link Judge}, or why it cannot be judged. */
function judgeOf(policy: PolicyText): Judge | string {
  const expression = parsePolicyExpression(policy.expression);
  if (!expression.ok) return `its expression cannot be read: ${expression.error.message}`;
  const value = parseCspValue(policy.value);
  if (!value.ok) return `its value cannot be read: ${value.error.message}`;
  return { effect: effectOf(policy), hostname: expression.value.hostname, directives: value.value };
}

/** `<directive> <source>` for every source of every directive, canonical ({@link qualifiedCspSources}). */
function qualifiedSources(directives: readonly CspDirective[]): Set<string> {
  return new Set(qualifiedCspSources(directives));
}

/** Sources whose use can be judged from a URL. */
function judgedByUrl(source: CspSource): boolean {
  return source.kind === 'scheme' || source.kind === 'host' || (source.kind === 'keyword' && source.keyword === 'self');
}

/** A page as an absolute URL: the API's text, taken as https when it has no scheme. */
function absolutePage(text: string): URL | undefined {
  for (const candidate of [text, `https://${text}`]) {
    try {
      const url = new URL(candidate);
      if (url.hostname !== '') return url;
    } catch {
      // try the next reading
    }
  }
  return undefined;
}

/** Pages parsed once: a zone's detected items share few pages. Emptied when it grows past {@link PAGES_CACHED}. */
const PAGES_CACHED = 4096;

/** A detected item's URL, parsed at most once. */
interface Judged {
  /** The URL as written; parsed against the page when it is relative. */
  url: string;
  /**
   * Its scheme and authority as written (`https://cdn.example.net:8443`), when it is absolute: two
   * URLs that share it share every verdict of a directive whose sources have no path.
   */
  origin: string | undefined;
  /** The URL parsed on its own (`null` when it is relative or cannot be parsed); `undefined` until needed. */
  parsed: URL | null | undefined;
}

/** The scheme and authority of an absolute URL as written (`\\` ends it, as the URL parser reads it). */
const ORIGIN = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\\]*/;

function judgedUrl(url: string): Judged {
  return { url, origin: ORIGIN.exec(url)?.[0], parsed: undefined };
}

function parsedOf(item: Judged): URL | null {
  if (item.parsed === undefined) {
    try {
      item.parsed = new URL(item.url);
    } catch {
      item.parsed = null;
    }
  }
  return item.parsed;
}

/** Verdicts kept per judge, by origin and page: a zone's detected items come from few origins. */
const VERDICTS_CACHED = 4096;

/** The same page over the other web scheme: an item's page could have been either. */
function otherScheme(page: URL): URL {
  const url = new URL(page.href);
  url.protocol = url.protocol === 'https:' ? 'http:' : 'https:';
  return url;
}

/** A policy's directive governing one kind, as the judging of that kind needs it. */
interface KindJudge extends Judge {
  /** The directive that governs the kind, or `undefined` when nothing restricts it. */
  governing: CspDirective | undefined;
  /** Whether no source of `governing` has a path, so that a verdict depends on the URL's origin alone. */
  byOrigin: boolean;
  /** Verdicts by page (its scheme and host), then by origin, when {@link KindJudge.byOrigin}. */
  verdicts: Map<string, Map<string, boolean>>;
}

function kindJudge(judge: Judge, governing: CspDirective | undefined): KindJudge {
  return {
    ...judge,
    governing,
    byOrigin: (governing?.sources ?? []).every((source) => source.kind !== 'host' || source.path === undefined),
    verdicts: new Map(),
  };
}

/**
 * `cspAllowsUrl` on URLs parsed once, `pageKey` being the page's scheme and host: a URL that cannot
 * be parsed is allowed only where nothing restricts its kind. Profiling the review of 50,000
 * scripts and 50,000 connections put half its time in matching sources; a zone's items come from
 * few origins, so a judge without path sources answers each origin once.
 */
function allows(judge: KindJudge, kind: CspFetchKind, item: Judged, page: URL, pageKey: string): boolean {
  // Two levels rather than one joined key: the keys are strings already made, whose hash V8 keeps.
  let onPage: Map<string, boolean> | undefined;
  if (judge.byOrigin && item.origin !== undefined) {
    onPage = judge.verdicts.get(pageKey);
    if (onPage === undefined) {
      if (judge.verdicts.size >= VERDICTS_CACHED) judge.verdicts.clear();
      onPage = new Map();
      judge.verdicts.set(pageKey, onPage);
    }
    const known = onPage.get(item.origin);
    if (known !== undefined) return known;
  }
  let url = parsedOf(item);
  if (url === null) {
    try {
      url = new URL(item.url, page);
    } catch {
      return judge.governing === undefined;
    }
  }
  const verdict = cspAllowsUrl(judge.directives, kind, url, page);
  if (onPage !== undefined) {
    if (onPage.size >= VERDICTS_CACHED) onPage.clear();
    onPage.set(item.origin!, verdict);
  }
  return verdict;
}

interface Ranked {
  line: DetectedLine;
  violation: boolean;
}

/** Keeps `size` items, violations first, then the most recently seen; counts them all. */
class Sample {
  private count = 0;
  private readonly kept: Ranked[] = [];

  constructor(private readonly size: number) {}

  add(line: DetectedLine, violation = false): void {
    this.count += 1;
    const entry = { line, violation };
    // Most lines rank after the last one kept once the sample is full: no search, no insertion.
    const last = this.kept[this.kept.length - 1];
    if (this.kept.length >= this.size && (last === undefined || !before(entry, last))) return;
    const at = this.kept.findIndex((kept) => before(entry, kept));
    if (at < 0) {
      this.kept.push(entry);
      return;
    }
    this.kept.splice(at, 0, entry);
    if (this.kept.length > this.size) this.kept.pop();
  }

  result(): DetectedSample {
    return { count: this.count, lines: this.kept.map((entry) => entry.line) };
  }
}

/** Whether `a` is listed before `b`: a violation first, then seen more recently, then by URL. */
function before(a: Ranked, b: Ranked): boolean {
  if (a.violation !== b.violation) return a.violation;
  if (a.line.lastSeenAt !== b.line.lastSeenAt) return a.line.lastSeenAt > b.line.lastSeenAt;
  return a.line.url < b.line.url;
}

/** Pages parsed once, shared by both kinds of one policy. */
class PageCache {
  private readonly pages = new Map<string, URL | undefined>();
  /** Each cached page over the other web scheme. */
  private readonly twins = new Map<URL, URL>();
  /** Each page's scheme and host, the part of it a verdict depends on. */
  private readonly keys = new WeakMap<URL, string>();

  /** `page`'s scheme and host. */
  key(page: URL): string {
    let key = this.keys.get(page);
    if (key === undefined) {
      key = `${page.protocol}//${page.host}`;
      this.keys.set(page, key);
    }
    return key;
  }

  /** A page's text as a URL. */
  page(text: string): URL | undefined {
    if (this.pages.has(text)) return this.pages.get(text);
    if (this.pages.size >= PAGES_CACHED) this.pages.clear();
    const url = absolutePage(text);
    this.pages.set(text, url);
    return url;
  }

  /** `page` over the other web scheme. */
  twin(page: URL): URL {
    let twin = this.twins.get(page);
    if (twin === undefined) {
      if (this.twins.size >= PAGES_CACHED) this.twins.clear();
      twin = otherScheme(page);
      this.twins.set(page, twin);
    }
    return twin;
  }
}

/** What judging one item came to, before what is particular to the item (its id, status, malice). */
interface Outcome {
  /** Whether its verdict depends on its pages, which were not read. */
  depends: boolean;
  /** The pages it is judged on, and those of them the proposal allows or refuses it on. */
  pages: URL[];
  allowedOn: URL[];
  refusedOn: URL[];
  /** Whether the live policy blocked it on those pages. */
  blockedBefore: boolean;
  /** The sources not yet seen allowing an item that allow it. */
  allowing: string[];
}

/**
 * Judges the detected items of one kind on one policy's host, one at a time, against the proposed
 * policy and its baseline: `add` every item detected on the host, then read `result`.
 */
export class KindEvaluator {
  private readonly proposed: KindJudge | undefined;
  private readonly baseline: KindJudge | undefined;
  /** Sources judged by URL not seen allowing an item yet, by their canonical text, each as a policy of its own. */
  private readonly unused = new Map<string, KindJudge>();
  private judged = 0;
  private notAllowedMalicious = 0;
  private firstPageOnly = 0;
  private readonly notAllowed: Sample;
  private readonly newlyBlocked: Sample | undefined;
  private readonly newlyAllowed: Sample | undefined;
  private readonly maliciousAllowed: Sample;
  private readonly violations = { blocks: 0, maliciousAllowed: 0 };
  private readonly acceptBlocked: Acceptance;
  /** The last item asked about, parsed, and the answer, since the plan asks before it adds. */
  private lastDepends: { item: Detected; judged: Judged; depends: boolean } | undefined;
  /**
   * Whether every verdict of this judgement depends on an item's origin alone (no source of the
   * proposal or the baseline has a path), so that items listed with the same first page and origin
   * share one {@link Outcome}.
   */
  private readonly byOrigin: boolean;
  /** Outcomes by first page, then origin, when {@link byOrigin}. */
  private readonly outcomes = new Map<string, Map<string, Outcome>>();

  /** @internal made by {@link PolicyImpactEvaluator}. */
  constructor(
    private readonly kind: CspFetchKind,
    proposed: Judge | undefined,
    baseline: Judge | undefined,
    compared: boolean,
    private readonly pages: PageCache,
    options: { sampleSize: number; maliciousKept: number } & KindOptions,
  ) {
    const withGoverning = (judge: Judge) => kindJudge(judge, governingDirective(judge.directives, kind));
    this.proposed = proposed && withGoverning(proposed);
    this.baseline = baseline && withGoverning(baseline);
    this.acceptBlocked = options.acceptBlocked ?? (() => undefined);
    this.notAllowed = new Sample(Math.max(options.sampleSize, options.notAllowedKept ?? 0));
    this.maliciousAllowed = new Sample(options.maliciousKept);
    if (compared) {
      this.newlyBlocked = new Sample(options.sampleSize);
      this.newlyAllowed = new Sample(options.sampleSize);
    }
    const judge = this.proposed;
    for (const source of judge?.governing?.sources ?? []) {
      if (!judgedByUrl(source)) continue;
      const directive = { name: judge!.governing!.name, sources: [source] };
      this.unused.set(formatCspSource(source), kindJudge({ ...judge!, directives: [directive] }, directive));
    }
    this.byOrigin = (this.proposed?.byOrigin ?? false) && (this.baseline?.byOrigin ?? true);
  }

  /**
   * What the judgement of `item` comes to, shared by the items with its first page and origin when
   * the verdicts depend on nothing else ({@link byOrigin}), and its pages were not read: a zone's
   * items come from few origins and pages, and judging each again was most of the review's time
   * (bench/RESULTS.md, issue 20).
   */
  private outcomeOf(item: Detected): Outcome | undefined {
    if (!this.byOrigin || item.pageUrls !== undefined) return undefined;
    const origin = ORIGIN.exec(item.url)?.[0];
    if (origin === undefined) return undefined;
    let onPage = this.outcomes.get(item.firstPageUrl);
    if (onPage === undefined) {
      if (this.outcomes.size >= VERDICTS_CACHED) this.outcomes.clear();
      onPage = new Map();
      this.outcomes.set(item.firstPageUrl, onPage);
    }
    let outcome = onPage.get(origin);
    if (outcome === undefined) {
      if (onPage.size >= VERDICTS_CACHED) onPage.clear();
      outcome = this.judgement(item, this.judgedItem(item));
      onPage.set(origin, outcome);
    }
    return outcome;
  }

  /** The judgement of `item` on its pages, by the proposal, its baseline and the unused sources. */
  private judgement(item: Detected, { judged, depends }: { judged: Judged; depends: boolean }): Outcome {
    const judge = this.proposed!;
    const pages = this.pagesOn(item, judge.hostname);
    const allowedOn: URL[] = [];
    const refusedOn: URL[] = [];
    const judging = (by: KindJudge, page: URL) => allows(by, this.kind, judged, page, this.pages.key(page));
    for (const page of pages) (judging(judge, page) ? allowedOn : refusedOn).push(page);
    const base = this.baseline;
    // The live policy blocked it only if it covered these pages: a change of host moves the policy.
    const blockedBefore =
      base !== undefined &&
      base.effect === 'block' &&
      base.hostname === judge.hostname &&
      pages.some((page) => !judging(base, page));
    const allowing: string[] = [];
    if (allowedOn.length > 0) {
      for (const [text, alone] of this.unused) {
        if (allowedOn.some((page) => judging(alone, page))) allowing.push(text);
      }
    }
    return { depends, pages, allowedOn, refusedOn, blockedBefore, allowing };
  }

  /**
   * Whether the verdict on `item` could change with the page it is judged on, so that its pages
   * should be read (a single-script GET) before it is added: its pages are not known yet and the
   * proposal or the baseline judges it differently on an http and an https page of the host
   * (`'self'` and scheme-less sources depend on the page's scheme).
   */
  dependsOnPages(item: Detected): boolean {
    return (this.outcomeOf(item) ?? this.judgedItem(item)).depends;
  }

  /** `item` parsed, and whether its verdict depends on its pages, once per item. */
  private judgedItem(item: Detected): { judged: Judged; depends: boolean } {
    if (this.lastDepends?.item === item) return this.lastDepends;
    const judged = judgedUrl(item.url);
    let depends = false;
    if (this.proposed !== undefined && item.pageUrls === undefined) {
      const [page] = this.pagesOn(item, this.proposed.hostname);
      const twin = this.pages.twin(page!);
      const [pageKey, twinKey] = [this.pages.key(page!), this.pages.key(twin)];
      for (const judge of [this.proposed, this.baseline]) {
        if (
          judge !== undefined &&
          allows(judge, this.kind, judged, page!, pageKey) !== allows(judge, this.kind, judged, twin, twinKey)
        )
          depends = true;
      }
    }
    this.lastDepends = { item, judged, depends };
    return this.lastDepends;
  }

  /**
   * The pages `item` is judged on for a policy of `hostname`: its pages on that host (all of them
   * when read, else the first), or the host's root when none of them is on it.
   */
  private pagesOn(item: Detected, hostname: string): URL[] {
    const pages: URL[] = [];
    for (const text of item.pageUrls ?? [item.firstPageUrl]) {
      const url = this.pages.page(text);
      if (url !== undefined && url.hostname === hostname && !pages.some((seen) => seen.href === url.href))
        pages.push(url);
    }
    return pages.length > 0 ? pages : [new URL(`https://${hostname}/`)];
  }

  /** Judges one item detected on the policy's host. */
  add(item: Detected): void {
    const judge = this.proposed;
    if (judge === undefined) return;
    this.judged += 1;
    const { depends, pages, allowedOn, refusedOn, blockedBefore, allowing } =
      this.outcomeOf(item) ?? this.judgement(item, this.judgedItem(item));
    if (depends) this.firstPageOnly += 1;
    const pagesBasis = item.pageUrls !== undefined ? 'all' : depends ? 'first' : 'any';
    const because = maliciousBecause(this.kind, item);
    const malicious = because !== undefined;
    const line = (on: URL[], accepted?: string): DetectedLine => ({
      id: item.id,
      url: item.url,
      pages: on.map((page) => page.href),
      pagesBasis,
      lastSeenAt: item.lastSeenAt,
      status: item.status,
      malicious,
      ...(because !== undefined ? { maliciousBecause: because } : {}),
      ...(item.jsIntegrityScore !== undefined ? { jsIntegrityScore: item.jsIntegrityScore } : {}),
      ...(accepted !== undefined ? { accepted } : {}),
    });

    if (judge.effect !== 'none' && refusedOn.length > 0) {
      const accepted = judge.effect === 'block' && !malicious ? this.acceptBlocked(item.url) : undefined;
      const violation = judge.effect === 'block' && !malicious && accepted === undefined;
      if (violation) this.violations.blocks += 1;
      if (malicious) this.notAllowedMalicious += 1;
      this.notAllowed.add(line(refusedOn, accepted), violation);
    }
    if (judge.effect !== 'none' && judge.governing !== undefined && allowedOn.length > 0 && malicious) {
      this.violations.maliciousAllowed += 1;
      this.maliciousAllowed.add(line(allowedOn));
    }

    if (this.newlyBlocked !== undefined && this.newlyAllowed !== undefined) {
      const blocksNow = judge.effect === 'block' && refusedOn.length > 0;
      if (blocksNow && !blockedBefore) this.newlyBlocked.add(line(refusedOn));
      if (blockedBefore && !blocksNow) this.newlyAllowed.add(line(pages));
    }

    for (const text of allowing) this.unused.delete(text);
  }

  /** The impact on every item added so far. */
  result(): DetectedImpact {
    return {
      governedBy: this.proposed?.governing?.name ?? null,
      unusedSources: [...this.unused.keys()],
      judged: this.judged,
      notAllowed: this.notAllowed.result(),
      notAllowedMalicious: this.notAllowedMalicious,
      newlyBlocked: this.newlyBlocked?.result() ?? null,
      newlyAllowed: this.newlyAllowed?.result() ?? null,
      maliciousAllowed: this.maliciousAllowed.result(),
      violations: { ...this.violations },
      judgedOnFirstPageOnly: this.firstPageOnly,
    };
  }
}

/**
 * Judges the scripts and connections of one policy's host against the proposed policy and its
 * baseline: `scripts.add` every script and `connections.add` every connection detected on
 * {@link PolicyImpactEvaluator.hostname}, then read {@link PolicyImpactEvaluator.result}.
 */
export class PolicyImpactEvaluator {
  /** The host whose detected items this policy judges; `undefined` when the policy cannot be read. */
  readonly hostname: string | undefined;
  /** The judgement of the scripts, under `script-src` or `default-src`. */
  readonly scripts: KindEvaluator;
  /** The judgement of the connections, under `connect-src` or `default-src`. */
  readonly connections: KindEvaluator;
  private readonly effect: PolicyEffect;
  private readonly problem: string | undefined;
  private readonly baselineSummary: PolicyImpact['baseline'];
  private readonly sourcesAdded: string[] | null;
  private readonly sourcesRemoved: string[] | null;

  /**
   * @param proposed - the policy as the change would leave it.
   * @param baseline - what it replaces.
   */
  constructor(proposed: PolicyText, baseline: Baseline, options: EvaluatorOptions = {}) {
    const judge = judgeOf(proposed);
    const proposedJudge = typeof judge === 'string' ? undefined : judge;
    this.problem = typeof judge === 'string' ? judge : undefined;
    this.hostname = proposedJudge?.hostname;
    this.effect = proposedJudge?.effect ?? 'none';

    let baselineJudge: Judge | undefined;
    let baselineDirectives: CspDirective[] | undefined;
    if (baseline.kind === 'live') {
      const live = judgeOf(baseline.policy);
      baselineJudge = typeof live === 'string' ? undefined : live;
      baselineDirectives = baselineJudge?.directives;
      this.baselineSummary =
        typeof live === 'string'
          ? { unknown: `the live policy ${baseline.id} cannot be judged: ${live}` }
          : { id: baseline.id, effect: live.effect, hostname: live.hostname, value: baseline.policy.value };
    } else if (baseline.kind === 'none') {
      baselineDirectives = [];
      this.baselineSummary = 'none';
    } else {
      this.baselineSummary = { unknown: baseline.reason };
    }

    const compared = baselineDirectives !== undefined && proposedJudge !== undefined;
    if (compared) {
      const now = qualifiedSources(proposedJudge.directives);
      const before = qualifiedSources(baselineDirectives!);
      this.sourcesAdded = [...now].filter((source) => !before.has(source)).sort();
      this.sourcesRemoved = [...before].filter((source) => !now.has(source)).sort();
    } else {
      this.sourcesAdded = null;
      this.sourcesRemoved = null;
    }
    const pages = new PageCache();
    const shared = {
      sampleSize: options.sampleSize ?? DEFAULT_SAMPLE_SIZE,
      maliciousKept: options.maliciousKept ?? MALICIOUS_LINES_KEPT,
    };
    const kind = (name: CspFetchKind, own: KindOptions | undefined) =>
      new KindEvaluator(name, proposedJudge, baselineJudge, compared, pages, { ...shared, ...own });
    this.scripts = kind('script', options.scripts);
    this.connections = kind('connection', options.connections);
  }

  /** The impact of the policy on every item added so far. */
  result(): PolicyImpact {
    return {
      hostname: this.hostname,
      effect: this.effect,
      ...(this.problem !== undefined ? { problem: this.problem } : {}),
      baseline: this.baselineSummary,
      sourcesAdded: this.sourcesAdded,
      sourcesRemoved: this.sourcesRemoved,
      scripts: this.scripts.result(),
      connections: this.connections.result(),
    };
  }
}

/** Lines accepted first-to-last as they were, those still violations first. */
function violationsFirst(lines: DetectedLine[], violation: (line: DetectedLine) => boolean): DetectedLine[] {
  return [...lines.filter(violation), ...lines.filter((line) => !violation(line))];
}

/**
 * Takes the malicious items a team accepts out of `impact`'s violations: marks their lines with
 * the reason, lists the others first, and counts what is left (lines not kept count as left).
 * The pack's `csp-allows-malicious-*` policies apply their own configuration this way, after the
 * one read of the data, since a policy sees only its own configuration.
 *
 * @returns the malicious items allowed and not accepted, also set in `impact.violations`.
 */
export function acceptMalicious(impact: DetectedImpact, accept: Acceptance): number {
  const sample = impact.maliciousAllowed;
  const lines = sample.lines.map((line) => {
    const accepted = accept(line.url);
    return accepted === undefined ? line : { ...line, accepted };
  });
  const left = lines.filter((line) => line.accepted === undefined).length;
  sample.lines = violationsFirst(lines, (line) => line.accepted === undefined);
  impact.violations.maliciousAllowed = left + (sample.count - lines.length);
  return impact.violations.maliciousAllowed;
}

/**
 * Takes the blocked items a team accepts out of `impact`'s violations, when the acceptance could
 * not be given to the evaluator ({@link KindOptions.acceptBlocked}): the pack judges once, with the
 * configuration of the policy that runs first, and `csp-blocks-detected-connections` applies its
 * own afterwards. The lines kept ({@link KindOptions.notAllowedKept}) are marked; violations not
 * kept stay violations. The list is then cut to `sampleSize`, violations first.
 *
 * @returns the blocked items neither malicious nor accepted, also set in `impact.violations`.
 */
export function acceptBlocked(impact: DetectedImpact, accept: Acceptance, sampleSize = DEFAULT_SAMPLE_SIZE): number {
  const violation = (line: DetectedLine) => !line.malicious && line.accepted === undefined;
  const sample = impact.notAllowed;
  if (impact.violations.blocks > 0) {
    let acceptedNow = 0;
    const lines = sample.lines.map((line) => {
      const accepted = violation(line) ? accept(line.url) : undefined;
      if (accepted === undefined) return line;
      acceptedNow += 1;
      return { ...line, accepted };
    });
    impact.violations.blocks -= acceptedNow;
    sample.lines = violationsFirst(lines, violation);
  }
  sample.lines = sample.lines.slice(0, sampleSize);
  return impact.violations.blocks;
}

/**
 * Gives the lines of `impact` whose verdict holds on any page of the host (`pagesBasis: any`) and
 * whose item's pages were read since (`pageUrls`, by id) all those pages on `hostname`. Lines
 * whose verdict depends on the page are left as they are: their pages were judged one by one, or
 * not read.
 */
export function completePages(
  impact: DetectedImpact,
  hostname: string | undefined,
  pageUrls: ReadonlyMap<string, readonly string[]>,
): void {
  if (hostname === undefined) return;
  const samples = [impact.notAllowed, impact.newlyBlocked, impact.newlyAllowed, impact.maliciousAllowed];
  for (const sample of samples) {
    if (sample === null) continue;
    sample.lines = sample.lines.map((line) => {
      const urls = pageUrls.get(line.id);
      if (line.pagesBasis !== 'any' || urls === undefined) return line;
      const pages = [
        ...new Set(
          urls
            .map(absolutePage)
            .filter((url): url is URL => url !== undefined && url.hostname === hostname)
            .map((url) => url.href),
        ),
      ];
      return pages.length > 0 ? { ...line, pages, pagesBasis: 'all' } : line;
    });
  }
}
