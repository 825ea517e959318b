import {
  formatCspSource,
  parseCspValue,
  qualifiedCspSources,
  type CspDirective,
  type CspDirectiveName,
  type CspSource,
} from '../../rules/csp';
import {
  BROWSERS,
  decodedPathMatches,
  decodePath,
  governingDirective,
  governingPathSources,
  hostMatches,
  judgeFetch,
  plainPath,
  plainPathOrigin,
  type PathSource,
  type Browser,
  type CspFetchKind,
  type FetchOutcome,
  type FetchVerdict,
  type PageHeader,
} from '../../rules/csp-match';
import { parsePolicyExpression } from '../../rules/expression';
import { isMaliciousScore } from '../../rules/malicious';

/**
 * The impact of a change to a zone's CSP policies on what page security detected on their hosts
 * (issue 9, item 1; issue 20, item 1; issue 24, item 3): the scripts, under the directive that
 * governs scripts, and the connections, under the one that governs connections
 * (`GOVERNING_DIRECTIVES` of `rules/csp-match.ts`).
 *
 * A browser gets every policy that covers a host as a header of the host's responses: an enabled
 * `allow` policy as `Content-Security-Policy`, an enabled `log` policy as
 * `Content-Security-Policy-Report-Only` (contract, "Page security"). A fetch loads only if every
 * enforced header allows it, and each report-only header that refuses it reports it; before any
 * header, an https page's request over http: or ws: that `upgrade-insecure-requests` does not
 * rewrite is blocked as mixed content. So each fetch is judged against all of its host's headers
 * together, in each browser (`judgeFetch`): after the change, the stack's proposed policies for
 * the host and the zone's live policies the stack does not manage; before it, the live ones.
 *
 * Each proposed policy's impact keeps its own lists: what it blocks or reports, what other
 * headers of its host block, what the browser blocks as mixed content, what the change newly
 * blocks or newly allows on the host, which malicious items it lets load, which of its governing
 * directive's sources allow nothing detected. A line names the headers that block or report its
 * item, and the browser when only one of the two does. Pure: it judges what it is given, with the
 * malicious rule of spec 1.2 for scripts (`rules/malicious.ts`) and the service's reports for
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
  /**
   * `url`'s {@link urlOrigin}, when known already: the read ahead gives the items of a page one
   * string per origin, which the judging then hashes once (`../impact/read-ahead.ts`).
   */
  origin?: string;
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
    return isMaliciousScore(item.jsIntegrityScore) ? `js_integrity_score ${item.jsIntegrityScore}` : undefined;
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

/**
 * A policy among the CSP headers of a host, as the review names it: one of the stack's by its name
 * in the program, or a live policy the stack does not manage by its id at the service.
 */
export type HeaderRef = { stack: string } | { live: string };

/** One CSP header of a host after the change: the policy it comes from, and whether it blocks or reports. */
export interface HostHeader {
  policy: HeaderRef;
  effect: 'block' | 'report';
}

/** One detected script or connection in a list of the report. */
export interface DetectedLine {
  /** Its id at the service. */
  id: string;
  url: string;
  /** The pages the line is about (where what the list says holds), as the service gave them. */
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
  /** The enforced headers of the host that refuse it after the change, where it is blocked; absent when none does. */
  blockedBy?: HeaderRef[];
  /** The report-only headers of the host that would report it after the change; absent when none would. */
  reportedBy?: HeaderRef[];
  /** The browser the list's verdict holds in when it holds in one of the two alone (the other does otherwise). */
  only?: Browser;
  /** `upgrade-insecure-requests` rewrote its http: or ws: URL to https: or wss: before the headers judged it. */
  upgraded?: true;
  /** The browser blocks it as mixed content (an https page's request over http: or ws: that nothing upgrades). */
  mixedContent?: true;
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

/** Options of {@link ZoneImpactEvaluator}. */
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

/** The impact of one proposed policy on one kind of detected item, judged with every header of its host. */
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
  /**
   * The items the policy refuses, in Chromium or Firefox: blocked (`block`; other headers of the
   * host may refuse them too) or reported (`report`); empty for `none`.
   */
  notAllowed: DetectedSample;
  /** How many of {@link DetectedImpact.notAllowed} are malicious. */
  notAllowedMalicious: number;
  /** Items the policy does not refuse that other enforced headers of its host block. */
  blockedByOthers: DetectedSample;
  /**
   * Items the browser blocks as mixed content whatever the headers say: neither allowed nor
   * blocked by a policy, and no violation.
   */
  mixedContent: DetectedSample;
  /** Items that loaded on the host before the change and do not after; `null` when the host's headers before or after are not all known. */
  newlyBlocked: DetectedSample | null;
  /** Items that did not load on the host before the change and do after; `null` as for {@link newlyBlocked}. */
  newlyAllowed: DetectedSample | null;
  /**
   * Malicious items the proposal allows and that load on its host, whatever its action (empty for
   * `none`): up to {@link MALICIOUS_LINES_KEPT} of them.
   */
  maliciousAllowed: DetectedSample;
  /**
   * The two rules a review enforces, counted exactly: `blocks`, detected items an enabled `allow`
   * policy blocks in either browser that are neither malicious (blocking those is what it is for)
   * nor accepted; `maliciousAllowed`, malicious items it allows that load, in either browser, and
   * are not accepted (all of them until {@link acceptMalicious} takes the accepted ones out).
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
  /** The CSP headers of its host after the change that its verdicts come from, its own among them when it is enabled. */
  hostHeaders: HostHeader[];
  /** Why headers of the host may be missing from {@link hostHeaders} or from those before the change, when they may. */
  headersUnknown?: string;
  /** On the scripts detected on its host, under `script-src` or `default-src`. */
  scripts: DetectedImpact;
  /** On the connections detected on its host, under `connect-src` or `default-src`. */
  connections: DetectedImpact;
}

/** A CSP policy of the stack, as the change would leave it. */
export interface ProposedPolicy {
  /** Its name in the program, by which the lines of other policies name it. */
  name: string;
  policy: PolicyText;
  /** What it replaces. */
  baseline: Baseline;
}

/** A CSP policy live at the service. */
export interface LivePolicy {
  id: string;
  policy: PolicyText;
}

/** A zone's CSP policies, before and after the change. */
export interface ZonePolicies {
  /** The stack's policies of the zone, as the change would leave them. */
  proposed: readonly ProposedPolicy[];
  /** Every policy of the zone at the service: the headers before the change. */
  live: readonly LivePolicy[];
  /**
   * The ids of the live policies the stack manages (those of its state before the change), or why
   * they are not known. The others stay after the change, headers beside the proposed ones; when
   * they are not known, or a proposal's baseline is unknown, no live policy is judged with the
   * proposed ones, and nothing "newly" is computed.
   */
  managed: ReadonlySet<string> | { unknown: string };
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

/**
 * The policy as a {@link Judge}, or why it cannot be judged. An enabled policy whose action
 * EdgeGuard does not know (the vendor's `add_reporting_directives`, SDK 7.1.0) is judged neither
 * as enforcing nor as report-only: it cannot be judged, and the review says so.
 */
function judgeOf(policy: PolicyText): Judge | string {
  if (policy.enabled && policy.action !== 'allow' && policy.action !== 'log')
    return `its action ${JSON.stringify(policy.action)} is not one EdgeGuard knows (allow enforces, log reports): it is judged neither as enforcing nor as report-only`;
  const expression = parsePolicyExpression(policy.expression);
  if (!expression.ok) return `its expression cannot be read: ${expression.error.message}`;
  const value = parseCspValue(policy.value);
  if (!value.ok) return `its value cannot be read: ${value.error.message}`;
  return { effect: effectOf(policy), hostname: expression.value.hostname, directives: value.value };
}

/** The header a browser gets for a policy that has an effect. */
function headerOf(judge: Judge): PageHeader {
  return { directives: judge.directives, reportOnly: judge.effect === 'report' };
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
   * URLs that share it share every verdict of headers whose sources have no path.
   */
  origin: string | undefined;
  /** The URL parsed on its own (`null` when it is relative or cannot be parsed); `undefined` until needed. */
  parsed: URL | null | undefined;
}

/** The scheme and authority of an absolute URL as written (`\\` ends it, as the URL parser reads it). */
const ORIGIN = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\\]*/;

/** The scheme and authority of `url` as written, when it is absolute ({@link Judged}'s `origin`). */
export function urlOrigin(url: string): string | undefined {
  return ORIGIN.exec(url)?.[0];
}

function judgedUrl(item: Detected): Judged {
  return { url: item.url, origin: item.origin ?? urlOrigin(item.url), parsed: undefined };
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

/** Entries a cache of verdicts, outcomes or keys holds before it is emptied: a zone's detected items come from few origins and pages. */
const VERDICTS_CACHED = 4096;

/** Paths of one origin a key's matches are counted in a number for, at most: beyond, they are spelled out. */
const KEY_BITS = 30;

/** What {@link VerdictKeys} knows of one origin. */
interface OriginKeys {
  /** The distinct paths of the sources whose host matches the origin's host. */
  paths: readonly string[];
  /** Whether its URLs' paths can be read without parsing them (`plainPathOrigin`). */
  plain: boolean;
  /** Its keys made so far, by which paths match (a bit each): one string per key, hashed once. */
  keys: Map<number, string>;
}

/**
 * What of an item's URL the verdicts of headers depend on, beside the page: its origin as written,
 * and which paths of the governing sources with a path whose host matches its host
 * (`governingPathSources`) its path matches, a character each. The origin gives the host, so the
 * paths asked about, and the key's length after the origin, are the same for every URL of an origin.
 * The path is read from the URL's text when it is plain (`plainPath`), and a key is the same string
 * each time it recurs: at 200,000 scripts, parsing each URL and joining and hashing each key anew
 * cost more than the rest of the judging (bench/RESULTS.md, issue 30).
 */
class VerdictKeys {
  private readonly sources: readonly PathSource[];
  /** By origin as written. */
  private readonly origins = new Map<string, OriginKeys>();

  constructor(sources: Iterable<PathSource>) {
    const unique = new Map<string, PathSource>();
    for (const source of sources) unique.set(`${source.host} ${source.path}`, source);
    this.sources = [...unique.values()];
  }

  /** The key of `item`; `undefined` when its URL is relative or cannot be parsed on its own. */
  of(item: Judged): string | undefined {
    const origin = item.origin;
    if (origin === undefined) return undefined;
    if (this.sources.length === 0) return origin;
    let known = this.origins.get(origin);
    if (known === undefined) {
      const url = parsedOf(item);
      if (url === null) return undefined;
      const host = url.hostname;
      const paths = [
        ...new Set(this.sources.filter((source) => hostMatches(source.host, host)).map(({ path }) => path)),
      ];
      known = { paths, plain: plainPathOrigin(origin), keys: new Map() };
      if (this.origins.size >= VERDICTS_CACHED) this.origins.clear();
      this.origins.set(origin, known);
    }
    const { paths } = known;
    if (paths.length === 0) return origin;
    let path = known.plain ? plainPath(item.url, origin.length) : undefined;
    if (path === undefined) {
      const url = parsedOf(item);
      if (url === null) return undefined;
      path = decodePath(url.pathname);
    }
    const matches = (i: number) => decodedPathMatches(paths[i]!, path);
    const spelled = (matched: (i: number) => boolean) =>
      paths.reduce((key, _, i) => key + (matched(i) ? '1' : '0'), origin);
    if (paths.length > KEY_BITS) return spelled(matches);
    let bits = 0;
    for (let i = 0; i < paths.length; i++) if (matches(i)) bits |= 1 << i;
    let key = known.keys.get(bits);
    if (key === undefined) {
      key = spelled((i) => ((bits >> i) & 1) === 1);
      if (known.keys.size >= VERDICTS_CACHED) known.keys.clear();
      known.keys.set(bits, key);
    }
    return key;
  }
}

/** The same page over the other web scheme: an item's page could have been either. */
function otherScheme(page: URL): URL {
  const url = new URL(page.href);
  url.protocol = url.protocol === 'https:' ? 'http:' : 'https:';
  return url;
}

/** Whether a fetch with this verdict loads: blocked fetches and mixed content do not, reported ones do. */
function loads(verdict: FetchVerdict): boolean {
  return !verdict.mixedContent && (verdict.outcome === 'allowed' || verdict.outcome === 'reported');
}

/** Verdicts of one fetch, one per browser of {@link BROWSERS}. */
type Verdicts = readonly FetchVerdict[];

/**
 * The headers a browser gets together on a host's pages, readied for judging one kind of fetch
 * (`judgeFetch` in each browser), URLs parsed once. Profiling the review of 50,000 scripts and
 * 50,000 connections put half its time in matching sources; a zone's items come from few origins
 * and, under sources with paths, few classes of path, so a set answers each {@link VerdictKeys} key once
 * per page.
 */
class HeaderSet {
  /** The governing sources with a path, on which a verdict depends beside the URL's origin. */
  readonly pathSources: readonly PathSource[];
  private readonly keys: VerdictKeys;
  /** Verdicts by page (its scheme and host), then by {@link VerdictKeys}. */
  private readonly verdicts = new Map<string, Map<string, Verdicts>>();
  /** What the browsers do with a URL that cannot be parsed: every header that governs the kind refuses it. */
  private unparsable: Verdicts | undefined;

  constructor(
    private readonly kind: CspFetchKind,
    readonly headers: readonly PageHeader[],
  ) {
    this.pathSources = governingPathSources(headers, kind);
    this.keys = new VerdictKeys(this.pathSources);
  }

  /** What each browser does with the fetch of `item` from `page`, `pageKey` being the page's scheme and host. */
  judge(item: Judged, page: URL, pageKey: string): Verdicts {
    // Two levels rather than one joined key: the page's key is a string already made, whose hash V8 keeps.
    let onPage: Map<string, Verdicts> | undefined;
    const key = this.keys.of(item);
    if (key !== undefined) {
      onPage = this.verdicts.get(pageKey);
      if (onPage === undefined) {
        if (this.verdicts.size >= VERDICTS_CACHED) this.verdicts.clear();
        onPage = new Map();
        this.verdicts.set(pageKey, onPage);
      }
      const known = onPage.get(key);
      if (known !== undefined) return known;
    }
    let url = parsedOf(item);
    if (url === null) {
      try {
        url = new URL(item.url, page);
      } catch {
        return (this.unparsable ??= this.refusedByAll());
      }
    }
    const target = url;
    const verdicts = BROWSERS.map((browser) => judgeFetch(this.headers, this.kind, target, page, browser));
    if (onPage !== undefined) {
      if (onPage.size >= VERDICTS_CACHED) onPage.clear();
      onPage.set(key!, verdicts);
    }
    return verdicts;
  }

  private refusedByAll(): Verdicts {
    const blockedBy: number[] = [];
    const reportedBy: number[] = [];
    this.headers.forEach((header, index) => {
      if (governingDirective(header.directives, this.kind) !== undefined)
        (header.reportOnly ? reportedBy : blockedBy).push(index);
    });
    const outcome: FetchOutcome = blockedBy.length > 0 ? 'blocked' : reportedBy.length > 0 ? 'reported' : 'allowed';
    return BROWSERS.map(() => ({ outcome, blockedBy, reportedBy, upgraded: false, mixedContent: false }));
  }
}

/** Whether two fetches' verdicts are the same in every browser: same outcome, same headers refusing. */
function sameVerdicts(a: Verdicts, b: Verdicts): boolean {
  const same = (x: readonly number[], y: readonly number[]) => x.length === y.length && x.every((v, i) => v === y[i]);
  return a.every(
    (verdict, i) =>
      verdict.outcome === b[i]!.outcome &&
      verdict.mixedContent === b[i]!.mixedContent &&
      same(verdict.blockedBy, b[i]!.blockedBy) &&
      same(verdict.reportedBy, b[i]!.reportedBy),
  );
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

/** Pages parsed once, shared by both kinds of one host. */
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

/** What a line of a list says of its item, apart from what is particular to the item (its id, status, malice). */
type LineVerdict = Pick<DetectedLine, 'pages' | 'blockedBy' | 'reportedBy' | 'only' | 'upgraded' | 'mixedContent'>;

/**
 * Where and in which browsers something a list says holds of an item, gathered page by page and
 * browser by browser, with the headers that refuse it there.
 */
class Finding {
  private readonly pages: URL[] = [];
  private readonly browsers = new Set<Browser>();
  private readonly blockedBy = new Set<number>();
  private readonly reportedBy = new Set<number>();
  private upgraded = false;
  private mixed = false;

  /** It holds on `page` in `browser`, whose verdict after the change is `verdict`. */
  add(page: URL, browser: Browser, verdict: FetchVerdict): void {
    if (!this.pages.includes(page)) this.pages.push(page);
    this.browsers.add(browser);
    if (verdict.upgraded) this.upgraded = true;
    for (const index of verdict.reportedBy) this.reportedBy.add(index);
    // The browser stops mixed content whatever the headers say: an enforced header's refusal changes nothing.
    if (verdict.mixedContent) this.mixed = true;
    else for (const index of verdict.blockedBy) this.blockedBy.add(index);
  }

  /** What a line says, the headers named by `refs`; `undefined` when it holds nowhere. */
  verdict(refs: readonly HeaderRef[]): LineVerdict | undefined {
    if (this.pages.length === 0) return undefined;
    const named = (indexes: Set<number>) => [...indexes].sort((a, b) => a - b).map((index) => refs[index]!);
    return {
      pages: this.pages.map((page) => page.href),
      ...(this.browsers.size < BROWSERS.length ? { only: [...this.browsers][0]! } : {}),
      ...(this.blockedBy.size > 0 ? { blockedBy: named(this.blockedBy) } : {}),
      ...(this.reportedBy.size > 0 ? { reportedBy: named(this.reportedBy) } : {}),
      ...(this.upgraded ? { upgraded: true as const } : {}),
      ...(this.mixed ? { mixedContent: true as const } : {}),
    };
  }
}

/** What judging one item on its host came to for one proposed policy. */
interface PolicyOutcome {
  /** Where it refuses the item: blocks it (an enforced header) or reports it (a report-only one). */
  refused: LineVerdict | undefined;
  /** Where other enforced headers block what it does not refuse. */
  blockedByOthers: LineVerdict | undefined;
  /** Where it allows the item and the item loads. */
  allowedLoading: LineVerdict | undefined;
  /** Its sources not yet seen allowing an item that allow this one. */
  allowing: string[];
}

/** What judging one item came to, before what is particular to the item (its id, status, malice). */
interface Outcome {
  /** Whether its verdict depends on its pages, which were not read. */
  depends: boolean;
  /** Where the browser blocks it as mixed content. */
  mixedContent: LineVerdict | undefined;
  /** Where it loaded before the change and does not after; `undefined` also when the host's headers before are not known. */
  newlyBlocked: LineVerdict | undefined;
  /** Where it did not load before the change and does after. */
  newlyAllowed: LineVerdict | undefined;
  /** Per proposed policy of the host, in its order. */
  policies: PolicyOutcome[];
}

/** A proposed policy on its host, readied for judging one kind. */
interface HostPolicy {
  judge: Judge;
  /** Its index among the host's headers after the change; `undefined` when it is disabled (no header). */
  header: number | undefined;
  /** Disabled: the policy alone, as if enforced, for what it would allow (its unused sources). */
  alone: HeaderSet | undefined;
  impact: KindImpact;
}

/**
 * One proposed policy's lists for one kind, filled item by item from the judgement of its host
 * ({@link HostKindEvaluator}).
 */
class KindImpact {
  /** The directive of the policy that governs the kind, or `undefined` when nothing restricts it. */
  readonly governing: CspDirective | undefined;
  /** Sources judged by URL not seen allowing an item yet, by their canonical text, each as a header of its own. */
  readonly unused = new Map<string, HeaderSet>();
  private judged = 0;
  private notAllowedMalicious = 0;
  private firstPageOnly = 0;
  private readonly notAllowed: Sample;
  private readonly blockedByOthers: Sample;
  private readonly mixedContent: Sample;
  private readonly newlyBlocked: Sample | undefined;
  private readonly newlyAllowed: Sample | undefined;
  private readonly maliciousAllowed: Sample;
  private readonly violations = { blocks: 0, maliciousAllowed: 0 };
  private readonly acceptBlocked: Acceptance;

  constructor(
    private readonly kind: CspFetchKind,
    private readonly judge: Judge | undefined,
    compared: boolean,
    options: { sampleSize: number; maliciousKept: number } & KindOptions,
  ) {
    this.governing = judge && governingDirective(judge.directives, kind);
    this.acceptBlocked = options.acceptBlocked ?? (() => undefined);
    this.notAllowed = new Sample(Math.max(options.sampleSize, options.notAllowedKept ?? 0));
    this.blockedByOthers = new Sample(options.sampleSize);
    this.mixedContent = new Sample(options.sampleSize);
    this.maliciousAllowed = new Sample(options.maliciousKept);
    if (compared) {
      this.newlyBlocked = new Sample(options.sampleSize);
      this.newlyAllowed = new Sample(options.sampleSize);
    }
    // Its own upgrade-insecure-requests goes with each source: it decides what the source is asked about.
    const upgrade = judge?.directives.filter((directive) => directive.name === 'upgrade-insecure-requests') ?? [];
    for (const source of this.governing?.sources ?? []) {
      if (!judgedByUrl(source)) continue;
      const alone = { name: this.governing!.name, sources: [source] };
      this.unused.set(
        formatCspSource(source),
        new HeaderSet(kind, [{ directives: [alone, ...upgrade], reportOnly: false }]),
      );
    }
  }

  /** Adds `item`, judged on its host to `outcome`, which is `own` for this policy. */
  add(item: Detected, outcome: Outcome, own: PolicyOutcome): void {
    this.judged += 1;
    if (outcome.depends) this.firstPageOnly += 1;
    const effect = this.judge?.effect ?? 'none';
    const pagesBasis = item.pageUrls !== undefined ? 'all' : outcome.depends ? 'first' : 'any';
    const because = maliciousBecause(this.kind, item);
    const malicious = because !== undefined;
    const line = (verdict: LineVerdict, accepted?: string): DetectedLine => ({
      id: item.id,
      url: item.url,
      pagesBasis,
      lastSeenAt: item.lastSeenAt,
      status: item.status,
      malicious,
      ...(because !== undefined ? { maliciousBecause: because } : {}),
      ...(item.jsIntegrityScore !== undefined ? { jsIntegrityScore: item.jsIntegrityScore } : {}),
      ...(accepted !== undefined ? { accepted } : {}),
      ...verdict,
    });

    if (effect !== 'none' && own.refused !== undefined) {
      const accepted = effect === 'block' && !malicious ? this.acceptBlocked(item.url) : undefined;
      const violation = effect === 'block' && !malicious && accepted === undefined;
      if (violation) this.violations.blocks += 1;
      if (malicious) this.notAllowedMalicious += 1;
      this.notAllowed.add(line(own.refused, accepted), violation);
    }
    if (own.blockedByOthers !== undefined) this.blockedByOthers.add(line(own.blockedByOthers));
    if (outcome.mixedContent !== undefined) this.mixedContent.add(line(outcome.mixedContent));
    if (effect !== 'none' && this.governing !== undefined && own.allowedLoading !== undefined && malicious) {
      this.violations.maliciousAllowed += 1;
      this.maliciousAllowed.add(line(own.allowedLoading));
    }
    if (outcome.newlyBlocked !== undefined) this.newlyBlocked?.add(line(outcome.newlyBlocked));
    if (outcome.newlyAllowed !== undefined) this.newlyAllowed?.add(line(outcome.newlyAllowed));
    for (const text of own.allowing) this.unused.delete(text);
  }

  /** The impact on every item added so far. */
  result(): DetectedImpact {
    return {
      governedBy: this.governing?.name ?? null,
      unusedSources: [...this.unused.keys()],
      judged: this.judged,
      notAllowed: this.notAllowed.result(),
      notAllowedMalicious: this.notAllowedMalicious,
      blockedByOthers: this.blockedByOthers.result(),
      mixedContent: this.mixedContent.result(),
      newlyBlocked: this.newlyBlocked?.result() ?? null,
      newlyAllowed: this.newlyAllowed?.result() ?? null,
      maliciousAllowed: this.maliciousAllowed.result(),
      violations: { ...this.violations },
      judgedOnFirstPageOnly: this.firstPageOnly,
    };
  }
}

/**
 * Judges the detected items of one kind on one host against the host's headers before and after
 * the change, once for all the proposed policies of the host: `add` every item detected on the
 * host; each policy's lists are read from {@link ZoneImpactEvaluator.results}.
 */
export class HostKindEvaluator {
  /**
   * The keys over the governing sources with a path of every header set judged here (before, after,
   * each disabled policy alone; each of a policy's sources alone is among them): items with the
   * same first page and key share one {@link Outcome}.
   */
  private readonly keys: VerdictKeys;
  /** Outcomes by first page, then {@link VerdictKeys}. */
  private readonly outcomes = new Map<string, Map<string, Outcome>>();
  /** The last item whose outcome was asked for, and the answer, since the plan asks before it adds. */
  private lastOutcome: { item: Detected; outcome: Outcome | undefined } | undefined;
  /** The last item asked about, parsed, and the answer, since the plan asks before it adds. */
  private lastDepends: { item: Detected; judged: Judged; depends: boolean } | undefined;

  /** @internal made by {@link ZoneImpactEvaluator}. */
  constructor(
    private readonly hostname: string,
    private readonly policies: readonly HostPolicy[],
    /** The host's headers after the change, and how lines name them. */
    private readonly after: HeaderSet,
    private readonly refs: readonly HeaderRef[],
    /** The host's headers before the change; `undefined` when they are not all known. */
    private readonly before: HeaderSet | undefined,
    private readonly pages: PageCache,
  ) {
    this.keys = new VerdictKeys(
      [after, before, ...policies.map((policy) => policy.alone)].flatMap((set) => set?.pathSources ?? []),
    );
  }

  /**
   * What the judgement of `item` comes to, shared by the items with its first page and
   * {@link VerdictKeys} (its origin, and which governing sources' paths its path matches) when its
   * pages were not read: a zone's items come from few origins, classes of path and pages, and
   * judging each again was most of the review's time (bench/RESULTS.md, issues 20 and 30).
   */
  private outcomeOf(item: Detected): Outcome | undefined {
    if (this.lastOutcome?.item === item) return this.lastOutcome.outcome;
    let outcome: Outcome | undefined;
    const judged = item.pageUrls === undefined ? judgedUrl(item) : undefined;
    const key = judged && this.keys.of(judged);
    if (key !== undefined) {
      let onPage = this.outcomes.get(item.firstPageUrl);
      if (onPage === undefined) {
        if (this.outcomes.size >= VERDICTS_CACHED) this.outcomes.clear();
        onPage = new Map();
        this.outcomes.set(item.firstPageUrl, onPage);
      }
      outcome = onPage.get(key);
      if (outcome === undefined) {
        if (onPage.size >= VERDICTS_CACHED) onPage.clear();
        outcome = this.judgement(item, this.judgedItem(item, judged));
        onPage.set(key, outcome);
      }
    }
    this.lastOutcome = { item, outcome };
    return outcome;
  }

  /** The judgement of `item` on its pages by the host's headers before and after, for each proposed policy. */
  private judgement(item: Detected, { judged, depends }: { judged: Judged; depends: boolean }): Outcome {
    const mixedContent = new Finding();
    const newlyBlocked = new Finding();
    const newlyAllowed = new Finding();
    const own = this.policies.map(() => ({
      refused: new Finding(),
      blockedByOthers: new Finding(),
      allowedLoading: new Finding(),
      allowing: new Set<string>(),
    }));
    for (const page of this.pagesOn(item)) {
      const pageKey = this.pages.key(page);
      const after = this.after.judge(judged, page, pageKey);
      const before = this.before?.judge(judged, page, pageKey);
      BROWSERS.forEach((browser, b) => {
        const now = after[b]!;
        const loading = loads(now);
        // Mixed content is stopped by the browser whatever the headers say: no header's block or report.
        const mixed = now.mixedContent;
        if (mixed) mixedContent.add(page, browser, now);
        if (before !== undefined) {
          const loaded = loads(before[b]!);
          if (loaded && !loading) newlyBlocked.add(page, browser, now);
          if (!loaded && loading) newlyAllowed.add(page, browser, now);
        }
        this.policies.forEach((policy, i) => {
          const mine = own[i]!;
          let allows: boolean;
          if (policy.header === undefined) {
            allows = policy.alone!.judge(judged, page, pageKey)[b]!.outcome === 'allowed';
          } else {
            // A report-only header reports what it refuses, mixed content too; an enforced header's block of
            // mixed content is not its block: the browser stops it anyway.
            const refused =
              policy.judge.effect === 'report'
                ? now.reportedBy.includes(policy.header)
                : !mixed && now.blockedBy.includes(policy.header);
            if (refused) mine.refused.add(page, browser, now);
            allows = !refused && !mixed;
          }
          if (
            !mixed &&
            now.outcome === 'blocked' &&
            (policy.header === undefined || !now.blockedBy.includes(policy.header))
          )
            mine.blockedByOthers.add(page, browser, now);
          if (allows && loading) mine.allowedLoading.add(page, browser, now);
          if (!allows) return;
          for (const [text, alone] of policy.impact.unused) {
            if (!mine.allowing.has(text) && alone.judge(judged, page, pageKey)[b]!.outcome === 'allowed')
              mine.allowing.add(text);
          }
        });
      });
    }
    return {
      depends,
      mixedContent: mixedContent.verdict(this.refs),
      newlyBlocked: newlyBlocked.verdict(this.refs),
      newlyAllowed: newlyAllowed.verdict(this.refs),
      policies: own.map((mine) => ({
        refused: mine.refused.verdict(this.refs),
        blockedByOthers: mine.blockedByOthers.verdict(this.refs),
        allowedLoading: mine.allowedLoading.verdict(this.refs),
        allowing: [...mine.allowing],
      })),
    };
  }

  /**
   * Whether the verdict on `item` could change with the page it is judged on, so that its pages
   * should be read (a single-script GET) before it is added: its pages are not known yet and the
   * host's headers, before or after the change, judge it differently on an http and an https page
   * of the host (`'self'`, scheme-less sources and mixed content depend on the page's scheme).
   */
  dependsOnPages(item: Detected): boolean {
    return (this.outcomeOf(item) ?? this.judgedItem(item)).depends;
  }

  /** `item` parsed, and whether its verdict depends on its pages, once per item. */
  private judgedItem(item: Detected, parsed?: Judged): { judged: Judged; depends: boolean } {
    if (this.lastDepends?.item === item) return this.lastDepends;
    const judged = parsed ?? judgedUrl(item);
    let depends = false;
    if (item.pageUrls === undefined) {
      const [page] = this.pagesOn(item);
      const twin = this.pages.twin(page!);
      const [pageKey, twinKey] = [this.pages.key(page!), this.pages.key(twin)];
      for (const set of [this.after, this.before, ...this.policies.map((policy) => policy.alone)]) {
        if (set !== undefined && !sameVerdicts(set.judge(judged, page!, pageKey), set.judge(judged, twin, twinKey)))
          depends = true;
      }
    }
    this.lastDepends = { item, judged, depends };
    return this.lastDepends;
  }

  /**
   * The pages `item` is judged on: its pages on the host (all of them when read, else the first),
   * or the host's root when none of them is on it.
   */
  private pagesOn(item: Detected): URL[] {
    const pages: URL[] = [];
    for (const text of item.pageUrls ?? [item.firstPageUrl]) {
      const url = this.pages.page(text);
      if (url !== undefined && url.hostname === this.hostname && !pages.some((seen) => seen.href === url.href))
        pages.push(url);
    }
    return pages.length > 0 ? pages : [new URL(`https://${this.hostname}/`)];
  }

  /** Judges one item detected on the host, for every proposed policy of the host. */
  add(item: Detected): void {
    const outcome = this.outcomeOf(item) ?? this.judgement(item, this.judgedItem(item));
    this.policies.forEach((policy, i) => policy.impact.add(item, outcome, outcome.policies[i]!));
  }
}

/** A live policy read for the headers: its directives and host, or why it cannot be read. */
interface LiveJudge {
  id: string;
  judge: Judge | string;
  /** Its host when its expression can be read (even if its value cannot); `undefined` when it could be any. */
  hostname: string | undefined;
}

function liveJudgeOf(live: LivePolicy): LiveJudge {
  const expression = parsePolicyExpression(live.policy.expression);
  return { id: live.id, judge: judgeOf(live.policy), hostname: expression.ok ? expression.value.hostname : undefined };
}

/** A host's headers apart from the proposed ones: those before the change, and the live ones that stay. */
interface HostLive {
  /** Every live policy of the host with an effect; `undefined` when one of them cannot be read. */
  before: PageHeader[] | undefined;
  /** The live policies the stack does not manage, which stay after the change. */
  staying: Array<{ ref: HeaderRef; judge: Judge }>;
  /** Why the headers before or after the change may not all be known. */
  gaps: string[];
}

function hostLiveOf(host: string, live: readonly LiveJudge[], managed: ReadonlySet<string> | string): HostLive {
  // A live policy whose expression cannot be read could be on any host.
  const here = live.filter((policy) => policy.hostname === host || policy.hostname === undefined);
  const unreadable = here.flatMap((policy) =>
    typeof policy.judge === 'string' ? [`the live policy ${policy.id} cannot be read: ${policy.judge}`] : [],
  );
  const readable = here.flatMap((policy) =>
    typeof policy.judge === 'string' ? [] : [{ id: policy.id, judge: policy.judge }],
  );
  return {
    before:
      unreadable.length > 0
        ? undefined
        : readable.filter(({ judge }) => judge.effect !== 'none').map(({ judge }) => headerOf(judge)),
    staying:
      typeof managed === 'string'
        ? []
        : readable.filter(({ id }) => !managed.has(id)).map(({ id, judge }) => ({ ref: { live: id }, judge })),
    // Not knowing which live policies the stack manages matters only where there are some.
    gaps: typeof managed === 'string' && here.length > 0 ? [managed, ...unreadable] : unreadable,
  };
}

/** What a proposal is compared with: the summary the report shows, and the baseline's directives when they are known. */
function baselineOf(baseline: Baseline): { summary: PolicyImpact['baseline']; directives: CspDirective[] | undefined } {
  if (baseline.kind === 'none') return { summary: 'none', directives: [] };
  if (baseline.kind === 'unknown') return { summary: { unknown: baseline.reason }, directives: undefined };
  const live = judgeOf(baseline.policy);
  if (typeof live === 'string')
    return { summary: { unknown: `the live policy ${baseline.id} cannot be judged: ${live}` }, directives: undefined };
  return {
    summary: { id: baseline.id, effect: live.effect, hostname: live.hostname, value: baseline.policy.value },
    directives: live.directives,
  };
}

/** One proposed policy being judged: what its impact says of it, and its lists of each kind. */
interface Proposal {
  ref: HeaderRef;
  judge: Judge | undefined;
  summary: Omit<PolicyImpact, 'scripts' | 'connections'>;
  impacts: Record<CspFetchKind, KindImpact>;
}

/**
 * Judges the detected items of a zone's hosts against the CSP headers of each host before and after
 * the change (see the top of this module): `judge(kind, host)` gives the judgement of a host's
 * items of one kind, to which every item detected on the host is added; then
 * {@link ZoneImpactEvaluator.results} gives each proposed policy's impact.
 */
export class ZoneImpactEvaluator {
  /** The hosts of the proposed policies that can be read: the hosts whose items are judged. */
  readonly hosts: readonly string[];
  private readonly proposals: Proposal[];
  private readonly judges = new Map<string, Record<CspFetchKind, HostKindEvaluator>>();

  constructor(zone: ZonePolicies, options: EvaluatorOptions = {}) {
    const live = zone.live.map(liveJudgeOf);
    // Which live policy a proposal with an unknown baseline replaces is not known: any could be.
    const unknown = zone.proposed.find((proposed) => proposed.baseline.kind === 'unknown')?.baseline;
    const managed =
      'unknown' in zone.managed
        ? `which live policies the stack manages is not known: ${zone.managed.unknown}`
        : unknown?.kind === 'unknown'
          ? `which live policies the stack manages is not known: ${unknown.reason}`
          : zone.managed;
    const judged = zone.proposed.map((proposed) => ({ proposed, judge: judgeOf(proposed.policy) }));
    this.hosts = [...new Set(judged.flatMap(({ judge }) => (typeof judge === 'string' ? [] : [judge.hostname])))];
    const hosts = new Map(this.hosts.map((host) => [host, hostLiveOf(host, live, managed)]));

    const shared = {
      sampleSize: options.sampleSize ?? DEFAULT_SAMPLE_SIZE,
      maliciousKept: options.maliciousKept ?? MALICIOUS_LINES_KEPT,
    };
    this.proposals = judged.map(({ proposed, judge }) => {
      const readable = typeof judge === 'string' ? undefined : judge;
      const host = readable && hosts.get(readable.hostname)!;
      const baseline = baselineOf(proposed.baseline);
      const compared = host !== undefined && baseline.directives !== undefined && host.gaps.length === 0;
      let sources: { sourcesAdded: string[] | null; sourcesRemoved: string[] | null } = {
        sourcesAdded: null,
        sourcesRemoved: null,
      };
      if (readable !== undefined && baseline.directives !== undefined) {
        const now = qualifiedSources(readable.directives);
        const before = qualifiedSources(baseline.directives);
        sources = {
          sourcesAdded: [...now].filter((source) => !before.has(source)).sort(),
          sourcesRemoved: [...before].filter((source) => !now.has(source)).sort(),
        };
      }
      return {
        ref: { stack: proposed.name },
        judge: readable,
        summary: {
          hostname: readable?.hostname,
          effect: readable?.effect ?? 'none',
          ...(typeof judge === 'string' ? { problem: judge } : {}),
          baseline: baseline.summary,
          ...sources,
          hostHeaders: [],
          ...(host !== undefined && host.gaps.length > 0 ? { headersUnknown: host.gaps.join('; ') } : {}),
        },
        impacts: {
          script: new KindImpact('script', readable, compared, { ...shared, ...options.scripts }),
          connection: new KindImpact('connection', readable, compared, { ...shared, ...options.connections }),
        },
      };
    });

    const pages = new PageCache();
    for (const [host, hostLive] of hosts) {
      const proposals = this.proposals.filter((proposal) => proposal.judge?.hostname === host);
      const after = [
        ...proposals.map((proposal) => ({ ref: proposal.ref, judge: proposal.judge! })),
        ...hostLive.staying,
      ].filter(({ judge }) => judge.effect !== 'none');
      const refs = after.map(({ ref }) => ref);
      const hostHeaders = after.map(({ ref, judge }) => ({
        policy: ref,
        effect: judge.effect as HostHeader['effect'],
      }));
      for (const proposal of proposals) proposal.summary.hostHeaders = hostHeaders;
      const kindJudge = (kind: CspFetchKind) =>
        new HostKindEvaluator(
          host,
          proposals.map(({ judge, impacts }) => ({
            judge: judge!,
            header: judge!.effect === 'none' ? undefined : after.findIndex((header) => header.judge === judge),
            alone:
              judge!.effect === 'none'
                ? new HeaderSet(kind, [{ directives: judge!.directives, reportOnly: false }])
                : undefined,
            impact: impacts[kind],
          })),
          new HeaderSet(
            kind,
            after.map(({ judge }) => headerOf(judge)),
          ),
          refs,
          hostLive.before && new HeaderSet(kind, hostLive.before),
          pages,
        );
      this.judges.set(host, { script: kindJudge('script'), connection: kindJudge('connection') });
    }
  }

  /** The judgement of the items of `kind` detected on `host`; `undefined` when no proposed policy covers the host. */
  judge(kind: CspFetchKind, host: string): HostKindEvaluator | undefined {
    return this.judges.get(host)?.[kind];
  }

  /** Each proposed policy's impact on every item added so far, in the order of {@link ZonePolicies.proposed}. */
  results(): PolicyImpact[] {
    return this.proposals.map(({ summary, impacts }) => ({
      ...summary,
      scripts: impacts.script.result(),
      connections: impacts.connection.result(),
    }));
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
  const samples = [
    impact.notAllowed,
    impact.blockedByOthers,
    impact.mixedContent,
    impact.newlyBlocked,
    impact.newlyAllowed,
    impact.maliciousAllowed,
  ];
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
