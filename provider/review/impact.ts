import {
  cspAllowsScriptUrl,
  formatCspSource,
  parseCspValue,
  scriptDirective,
  type CspDirective,
  type CspSource,
} from '../../rules/csp';
import { parsePolicyExpression } from '../../rules/expression';
import { isMalicious } from '../helpers/read';

/**
 * The impact of a CSP policy on the scripts page security detected (issue 9, item 1): which of
 * them the policy would block or report, which it newly blocks or newly allows compared with the
 * live policy it replaces, which malicious ones it allows, which of its sources allow nothing that
 * was detected. Pure: it judges what it is given, with the allow semantics of spec 2.6
 * (`cspAllowsScriptUrl`, each URL parsed once) and the malicious rule of spec 1.2 (`isMalicious`); reading the service is
 * `./plan.ts`'s job.
 *
 * Scripts are judged on the pages they were seen on, which are pages of the policy's host (its
 * expression's `http.host`): `'self'` and scheme-less sources are relative to the page. Memory
 * does not grow with the number of scripts: counts are exact, and each list keeps only its
 * {@link DEFAULT_SAMPLE_SIZE} most recently seen scripts.
 */

/** Scripts kept per list when not told otherwise: the most recently seen ones. */
export const DEFAULT_SAMPLE_SIZE = 20;
/**
 * Malicious scripts a policy allows, kept in full up to this many, so that the scripts a team
 * accepts can be taken out of them afterwards ({@link acceptMaliciousScripts}). Malicious scripts
 * are few by nature; past this many, the ones not kept cannot be accepted.
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

/** A detected script as the review uses it (spec 2.3). */
export interface SeenScript {
  id: string;
  url: string;
  /** Spec 3: `active` or `infrequent`. */
  status: string;
  /** `first_page_url` of the lists. */
  firstPageUrl: string;
  /** `page_urls` of the single GET, when it was read: every page the script was seen on. */
  pageUrls?: readonly string[];
  lastSeenAt: string;
  /** Absent on plans without scores (then it is not malicious). */
  jsIntegrityScore?: number;
}

/** What the proposed policy is compared with. */
export type Baseline =
  /** The policy the service holds now for this resource (its id is known). */
  | { kind: 'live'; id: string; policy: PolicyText }
  /** There is none: the policy is created. */
  | { kind: 'none' }
  /** It exists but is not known to the caller; `reason` says why. Nothing "newly" is computed. */
  | { kind: 'unknown'; reason: string };

/** What an enabled `allow` policy does to a script it does not allow, what a `log` policy does, or nothing (disabled). */
export type PolicyEffect = 'block' | 'report' | 'none';

/** One script in a list of the report. */
export interface ScriptLine {
  /** The script's id at the service. */
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
  /** Spec 1.2: `js_integrity_score` below 10. */
  malicious: boolean;
  jsIntegrityScore?: number;
  /** Why the team accepts this script here (the policy pack's configuration), when it does. */
  accepted?: string;
}

/** A list of scripts: how many there are, and some of them. */
export interface ScriptSample {
  count: number;
  /**
   * At most the sample size: the scripts that are violations first (in a list where some are),
   * then the most recently seen, then by URL.
   */
  scripts: ScriptLine[];
}

/** Accepted scripts: the reason a script URL is accepted, or `undefined`. */
export type Acceptance = (url: string) => string | undefined;

/** Options of {@link PolicyImpactEvaluator}. */
export interface EvaluatorOptions {
  /** Scripts kept per list. Default {@link DEFAULT_SAMPLE_SIZE}. */
  sampleSize?: number;
  /** Blocked scripts the team accepts: they are listed, and no violation. Default none. */
  acceptBlocked?: Acceptance;
  /** Malicious scripts allowed that are kept. Default {@link MALICIOUS_LINES_KEPT}. */
  maliciousKept?: number;
}

/** The live policy the proposal was compared with, as the report shows it. */
export interface BaselineSummary {
  id: string;
  effect: PolicyEffect;
  hostname: string | undefined;
  value: string;
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
  /**
   * Sources of the directive that governs scripts (`script-src-elem`, `script-src` or
   * `default-src`) that allow none of the detected scripts: candidates for removal. Only sources
   * judged by URL count (`'self'`, schemes, hosts); nonces, hashes and other keywords are not.
   */
  unusedSources: string[];
  /** Scripts judged: those detected on the policy's host. */
  scriptsJudged: number;
  /** The scripts the policy does not allow: blocked (`block`) or reported (`report`); empty for `none`. */
  notAllowed: ScriptSample;
  /** How many of {@link PolicyImpact.notAllowed} are malicious. */
  notAllowedMalicious: number;
  /** Blocked by the proposal and not by the baseline; `null` when the baseline is unknown. */
  newlyBlocked: ScriptSample | null;
  /** Blocked by the baseline and not by the proposal; `null` when the baseline is unknown. */
  newlyAllowed: ScriptSample | null;
  /**
   * Malicious scripts (spec 1.2) the proposal allows, whatever its action (empty for `none`): up
   * to {@link MALICIOUS_LINES_KEPT} of them.
   */
  maliciousAllowed: ScriptSample;
  /**
   * The two rules a review enforces, counted exactly: `blocks`, detected scripts an enabled
   * `allow` policy blocks that are neither malicious (blocking those is what it is for) nor
   * accepted; `maliciousAllowed`, malicious scripts it allows that are not accepted (all of them
   * until {@link acceptMaliciousScripts} takes the accepted ones out).
   */
  violations: { blocks: number; maliciousAllowed: number };
  /**
   * Scripts whose verdict depends on their pages but whose pages were not read (the request plan's
   * limit on single-script reads): judged on their first page only.
   */
  judgedOnFirstPageOnly: number;
}

/** A policy readied for judging: its host and the directive that governs scripts. */
interface Judge {
  effect: PolicyEffect;
  hostname: string;
  directives: CspDirective[];
  /** `script-src-elem`, else `script-src`, else `default-src` (what `cspAllowsScriptUrl` applies). */
  governing: CspDirective | undefined;
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
  return {
    effect: effectOf(policy),
    hostname: expression.value.hostname,
    directives: value.value,
    governing: scriptDirective(value.value),
  };
}

/** `<directive> <source>` for every source of every directive, canonical. */
function qualifiedSources(directives: readonly CspDirective[]): Set<string> {
  return new Set(
    directives.flatMap((directive) =>
      directive.sources.map((source) => `${directive.name} ${formatCspSource(source)}`),
    ),
  );
}

/** Sources whose use can be judged from a script's URL. */
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

/** Pages parsed once: a zone's scripts share few pages. Emptied when it grows past {@link PAGES_CACHED}. */
const PAGES_CACHED = 4096;

/** A script's URL, parsed once, and a page it is judged on. */
interface Judged {
  /** The URL as written; parsed against the page when it is relative. */
  url: string;
  /** The URL parsed on its own, or `undefined` when it is relative or cannot be parsed. */
  parsed: URL | undefined;
}

function parsedScript(url: string): Judged {
  try {
    return { url, parsed: new URL(url) };
  } catch {
    return { url, parsed: undefined };
  }
}

/** The same page over the other web scheme: a script's page could have been either. */
function otherScheme(page: URL): URL {
  const url = new URL(page.href);
  url.protocol = url.protocol === 'https:' ? 'http:' : 'https:';
  return url;
}

/** `cspAllowsScript` on parsed URLs: a script URL that cannot be parsed is allowed only where nothing restricts scripts. */
function allows(judge: Judge, script: Judged, page: URL): boolean {
  let url = script.parsed;
  if (url === undefined) {
    try {
      url = new URL(script.url, page);
    } catch {
      return judge.governing === undefined;
    }
  }
  return cspAllowsScriptUrl(judge.directives, url, page);
}

function lineOf(
  script: SeenScript,
  on: URL[],
  pagesBasis: ScriptLine['pagesBasis'],
  malicious: boolean,
  accepted?: string,
): ScriptLine {
  return {
    id: script.id,
    url: script.url,
    pages: on.map((page) => page.href),
    pagesBasis,
    lastSeenAt: script.lastSeenAt,
    status: script.status,
    malicious,
    ...(script.jsIntegrityScore !== undefined ? { jsIntegrityScore: script.jsIntegrityScore } : {}),
    ...(accepted !== undefined ? { accepted } : {}),
  };
}

interface Ranked {
  line: ScriptLine;
  violation: boolean;
}

/** Keeps `size` scripts, violations first, then the most recently seen; counts them all. */
class Sample {
  private count = 0;
  private readonly kept: Ranked[] = [];

  constructor(private readonly size: number) {}

  add(line: ScriptLine, violation = false): void {
    this.count += 1;
    const entry = { line, violation };
    const at = this.kept.findIndex((kept) => before(entry, kept));
    if (at < 0) {
      if (this.kept.length < this.size) this.kept.push(entry);
      return;
    }
    this.kept.splice(at, 0, entry);
    if (this.kept.length > this.size) this.kept.pop();
  }

  result(): ScriptSample {
    return { count: this.count, scripts: this.kept.map((entry) => entry.line) };
  }
}

/** Whether `a` is listed before `b`: a violation first, then seen more recently, then by URL. */
function before(a: Ranked, b: Ranked): boolean {
  if (a.violation !== b.violation) return a.violation;
  if (a.line.lastSeenAt !== b.line.lastSeenAt) return a.line.lastSeenAt > b.line.lastSeenAt;
  return a.line.url < b.line.url;
}

/**
 * Judges the scripts of one policy's host, one at a time, against the proposed policy and its
 * baseline: `add` every script detected on {@link PolicyImpactEvaluator.hostname}, then read
 * {@link PolicyImpactEvaluator.result}.
 */
export class PolicyImpactEvaluator {
  /** The host whose scripts this policy judges; `undefined` when the policy cannot be read. */
  readonly hostname: string | undefined;
  private readonly proposed: Judge | undefined;
  private readonly problem: string | undefined;
  private readonly baselineJudge: Judge | undefined;
  private readonly baselineSummary: PolicyImpact['baseline'];
  private readonly sourcesAdded: string[] | null;
  private readonly sourcesRemoved: string[] | null;
  /** Sources judged by URL not seen allowing a script yet, by their canonical text, each as a policy of its own. */
  private readonly unused = new Map<string, Judge>();
  private judged = 0;
  private notAllowedMalicious = 0;
  private firstPageOnly = 0;
  private readonly notAllowed: Sample;
  private readonly newlyBlocked: Sample | undefined;
  private readonly newlyAllowed: Sample | undefined;
  private readonly maliciousAllowed: Sample;
  private readonly violations = { blocks: 0, maliciousAllowed: 0 };
  private readonly acceptBlocked: Acceptance;
  private readonly pages = new Map<string, URL | undefined>();
  /** Each cached page over the other web scheme. */
  private readonly twins = new Map<URL, URL>();
  /** The last script asked about, parsed, and the answer, since the plan asks before it adds. */
  private lastDepends: { script: SeenScript; judged: Judged; depends: boolean } | undefined;

  /**
   * @param proposed - the policy as the change would leave it.
   * @param baseline - what it replaces.
   */
  constructor(proposed: PolicyText, baseline: Baseline, options: EvaluatorOptions = {}) {
    const sampleSize = options.sampleSize ?? DEFAULT_SAMPLE_SIZE;
    this.acceptBlocked = options.acceptBlocked ?? (() => undefined);
    const judge = judgeOf(proposed);
    this.proposed = typeof judge === 'string' ? undefined : judge;
    this.problem = typeof judge === 'string' ? judge : undefined;
    this.hostname = this.proposed?.hostname;
    this.notAllowed = new Sample(sampleSize);
    this.maliciousAllowed = new Sample(options.maliciousKept ?? MALICIOUS_LINES_KEPT);

    let baselineDirectives: CspDirective[] | undefined;
    if (baseline.kind === 'live') {
      const live = judgeOf(baseline.policy);
      this.baselineJudge = typeof live === 'string' ? undefined : live;
      baselineDirectives = this.baselineJudge?.directives;
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

    if (baselineDirectives !== undefined && this.proposed !== undefined) {
      const now = qualifiedSources(this.proposed.directives);
      const before = qualifiedSources(baselineDirectives);
      this.sourcesAdded = [...now].filter((source) => !before.has(source)).sort();
      this.sourcesRemoved = [...before].filter((source) => !now.has(source)).sort();
      this.newlyBlocked = new Sample(sampleSize);
      this.newlyAllowed = new Sample(sampleSize);
    } else {
      this.sourcesAdded = null;
      this.sourcesRemoved = null;
    }
    const proposedJudge = this.proposed;
    for (const source of proposedJudge?.governing?.sources ?? []) {
      if (!judgedByUrl(source)) continue;
      const directive = { name: proposedJudge!.governing!.name, sources: [source] };
      this.unused.set(formatCspSource(source), { ...proposedJudge!, directives: [directive], governing: directive });
    }
  }

  /**
   * Whether the verdict on `script` could change with the page it is judged on, so that its
   * pages should be read (a single-script GET) before it is added: its pages are not known yet
   * and the proposal or the baseline judges it differently on an http and an https page of the
   * host (`'self'` and scheme-less sources depend on the page's scheme).
   */
  dependsOnPages(script: SeenScript): boolean {
    return this.judgedScript(script).depends;
  }

  /** `script` parsed, and whether its verdict depends on its pages, once per script. */
  private judgedScript(script: SeenScript): { judged: Judged; depends: boolean } {
    if (this.lastDepends?.script === script) return this.lastDepends;
    const judged = parsedScript(script.url);
    let depends = false;
    if (this.proposed !== undefined && script.pageUrls === undefined) {
      const [page] = this.pagesOn(script, this.proposed.hostname);
      let twin = this.twins.get(page!);
      if (twin === undefined) {
        if (this.twins.size >= PAGES_CACHED) this.twins.clear();
        twin = otherScheme(page!);
        this.twins.set(page!, twin);
      }
      for (const judge of [this.proposed, this.baselineJudge]) {
        if (judge !== undefined && allows(judge, judged, page!) !== allows(judge, judged, twin)) depends = true;
      }
    }
    this.lastDepends = { script, judged, depends };
    return this.lastDepends;
  }

  /** A page's text as a URL, from the cache. */
  private page(text: string): URL | undefined {
    if (this.pages.has(text)) return this.pages.get(text);
    if (this.pages.size >= PAGES_CACHED) this.pages.clear();
    const url = absolutePage(text);
    this.pages.set(text, url);
    return url;
  }

  /**
   * The pages `script` is judged on for a policy of `hostname`: its pages on that host (all of
   * them when read, else the first), or the host's root when none of them is on it.
   */
  private pagesOn(script: SeenScript, hostname: string): URL[] {
    const pages: URL[] = [];
    for (const text of script.pageUrls ?? [script.firstPageUrl]) {
      const url = this.page(text);
      if (url !== undefined && url.hostname === hostname && !pages.some((seen) => seen.href === url.href))
        pages.push(url);
    }
    return pages.length > 0 ? pages : [new URL(`https://${hostname}/`)];
  }

  /** Judges one script detected on the policy's host. */
  add(script: SeenScript): void {
    const judge = this.proposed;
    if (judge === undefined) return;
    this.judged += 1;
    const { judged, depends } = this.judgedScript(script);
    if (depends) this.firstPageOnly += 1;
    const pagesBasis = script.pageUrls !== undefined ? 'all' : depends ? 'first' : 'any';
    const pages = this.pagesOn(script, judge.hostname);
    const allowedOn: URL[] = [];
    const refusedOn: URL[] = [];
    for (const page of pages) (allows(judge, judged, page) ? allowedOn : refusedOn).push(page);
    const malicious = isMalicious({ js_integrity_score: script.jsIntegrityScore });
    const line = (on: URL[], accepted?: string) => lineOf(script, on, pagesBasis, malicious, accepted);

    if (judge.effect !== 'none' && refusedOn.length > 0) {
      const accepted = judge.effect === 'block' && !malicious ? this.acceptBlocked(script.url) : undefined;
      const violation = judge.effect === 'block' && !malicious && accepted === undefined;
      if (violation) this.violations.blocks += 1;
      if (malicious) this.notAllowedMalicious += 1;
      this.notAllowed.add(line(refusedOn, accepted), violation);
    }
    if (judge.effect !== 'none' && allowedOn.length > 0 && malicious) {
      this.violations.maliciousAllowed += 1;
      this.maliciousAllowed.add(line(allowedOn));
    }

    if (this.newlyBlocked !== undefined && this.newlyAllowed !== undefined) {
      const blocksNow = judge.effect === 'block' && refusedOn.length > 0;
      const base = this.baselineJudge;
      // The live policy blocked it only if it covered these pages: a change of host moves the policy.
      const blockedBefore =
        base !== undefined &&
        base.effect === 'block' &&
        base.hostname === judge.hostname &&
        pages.some((page) => !allows(base, judged, page));
      if (blocksNow && !blockedBefore) this.newlyBlocked.add(line(refusedOn));
      if (blockedBefore && !blocksNow) this.newlyAllowed.add(line(pages));
    }

    if (allowedOn.length > 0) {
      for (const [text, alone] of this.unused) {
        if (allowedOn.some((page) => allows(alone, judged, page))) this.unused.delete(text);
      }
    }
  }

  /** The impact of the policy on every script added so far. */
  result(): PolicyImpact {
    return {
      hostname: this.hostname,
      effect: this.proposed?.effect ?? 'none',
      ...(this.problem !== undefined ? { problem: this.problem } : {}),
      baseline: this.baselineSummary,
      sourcesAdded: this.sourcesAdded,
      sourcesRemoved: this.sourcesRemoved,
      unusedSources: [...this.unused.keys()],
      scriptsJudged: this.judged,
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
 * Takes the malicious scripts a team accepts out of `impact`'s violations: marks their lines with
 * the reason, lists the others first, and counts what is left (lines not kept count as left).
 * The pack's `csp-allows-malicious-script` policy applies its own configuration this way, after
 * the one read of the data, since a policy sees only its own configuration.
 *
 * @returns the malicious scripts allowed and not accepted, also set in `impact.violations`.
 */
export function acceptMaliciousScripts(impact: PolicyImpact, accept: Acceptance): number {
  const lines = impact.maliciousAllowed.scripts.map((line) => {
    const accepted = accept(line.url);
    return accepted === undefined ? line : { ...line, accepted };
  });
  const left = lines.filter((line) => line.accepted === undefined);
  impact.maliciousAllowed = {
    count: impact.maliciousAllowed.count,
    scripts: [...left, ...lines.filter((line) => line.accepted !== undefined)],
  };
  impact.violations.maliciousAllowed = left.length + (impact.maliciousAllowed.count - lines.length);
  return impact.violations.maliciousAllowed;
}

/**
 * Gives the lines of `impact` whose verdict holds on any page of the host (`pagesBasis: any`) and
 * whose script's pages were read since (`pageUrls`, by script id) all those pages on the policy's
 * host. Lines whose verdict depends on the page are left as they are: their pages were judged one
 * by one, or not read.
 */
export function completePages(impact: PolicyImpact, pageUrls: ReadonlyMap<string, readonly string[]>): void {
  const hostname = impact.hostname;
  if (hostname === undefined) return;
  const samples = [impact.notAllowed, impact.newlyBlocked, impact.newlyAllowed, impact.maliciousAllowed];
  for (const sample of samples) {
    if (sample === null) continue;
    sample.scripts = sample.scripts.map((line) => {
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
