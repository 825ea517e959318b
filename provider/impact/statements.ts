import { BROWSERS, GOVERNING_DIRECTIVES, type Browser, type CspFetchKind } from '../../rules/csp-match';
import { MALICIOUS_SCRIPT_RULE } from '../../rules/malicious';
import type { DetectedLine, DetectedSample, HeaderRef } from './evaluate';
import type { PolicyReview, PoolCoverage } from './model';

/**
 * What a review says, before any format: the facts and phrases of each policy's impact, of each
 * kind of detected item, down to every listed line and its notes (who blocks it, in which browser,
 * mixed content, upgrades), and the review's other sentences. Two thin formatters lay it out:
 * `./as-text.ts` for the policy pack's messages, `./as-markdown.ts` for edgeguard-review's report.
 * Each phrase of the review is written here once.
 *
 * Built from a policy's review, its counts and bounded samples: a list holds at most
 * {@link LINES_SHOWN} lines, however many items were judged. The pack builds it at each analysis,
 * after a policy's configuration has marked the lines it accepts, so it is never kept.
 */

/**
 * A piece of a phrase: words; a value shown as it is (a URL, a source, an id: code in Markdown);
 * the name of a resource of the program (quoted in text, code in Markdown); or words a reader must
 * not miss (bold in Markdown).
 */
export type Span = string | { value: string } | { name: string } | { stress: string };
/** A sentence, a title or a note. */
export type Phrase = readonly Span[];

/** A value shown as it is. */
export const value = (text: string): Span => ({ value: text });
/** The name of a resource of the program. */
export const named = (text: string): Span => ({ name: text });
/** Words a reader must not miss. */
export const stress = (text: string): Span => ({ stress: text });

/** Values in a row, `, ` between them. */
export function values(texts: readonly string[]): Phrase {
  return texts.flatMap((text, i) => (i === 0 ? [value(text)] : [', ', value(text)]));
}

/** A phrase of words and parts: `` say`Sources added: ${values(added)}.` ``. */
export function say(words: TemplateStringsArray, ...parts: ReadonlyArray<Span | Phrase | number>): Phrase {
  const spans: Span[] = [];
  words.forEach((text, i) => {
    if (text !== '') spans.push(text);
    if (i >= parts.length) return;
    const part = parts[i]!;
    if (typeof part === 'number') spans.push(String(part));
    else if (Array.isArray(part)) spans.push(...(part as Phrase));
    else spans.push(part as Span);
  });
  return spans;
}

/** `1 script`, `2 scripts`. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

// ---- The kinds of detected item ----

/** The two kinds of detected item the CSP policies judge, as the review's data names them. */
export type Kind = 'scripts' | 'connections';

/** The kinds, in the order the review speaks of them. */
export const KINDS: readonly Kind[] = ['scripts', 'connections'];

/** How the review speaks of a kind. */
export interface KindWords {
  /** The kind of fetch its items are. */
  fetch: CspFetchKind;
  noun: string;
  /** Its title: `Scripts`. */
  title: string;
  /** What makes one malicious: `classified malicious (js_integrity_score below 10)`. */
  malicious: string;
  /** Why some are judged on their first page only. */
  firstPageOnly: string;
}

export const KIND_WORDS: Readonly<Record<Kind, KindWords>> = {
  scripts: {
    fetch: 'script',
    noun: 'script',
    title: 'Scripts',
    malicious: `classified malicious (${MALICIOUS_SCRIPT_RULE})`,
    firstPageOnly: "the review reads at most a bounded number of scripts' pages",
  },
  connections: {
    fetch: 'connection',
    noun: 'connection',
    title: 'Connections',
    malicious: 'reported malicious (its domain or URL, or their categories)',
    firstPageOnly: "the service gives a connection's first page alone, and the verdict depends on the page's scheme",
  },
};

// ---- Lines ----

/** Lines a list shows; past them, how many more there are. */
export const LINES_SHOWN = 10;

/** One detected item of a list: its URL, where the list's verdict holds, and its notes. */
export interface LineStatement {
  url: string;
  /** The pages, or the first page and what it stands for: page URLs are the service's, so values. */
  pages: Phrase;
  /** When it was last seen, its status, why it is malicious or accepted, and what the host's headers and the browsers do with it. */
  notes: Phrase[];
}

/** A list of detected items: its title, its first {@link LINES_SHOWN} lines, and how many more there are. */
export interface ItemList {
  title: Phrase;
  lines: LineStatement[];
  more: number;
}

/** Whether a part of a kind's statement is a list, not a sentence. */
export function isList(part: Phrase | ItemList): part is ItemList {
  return 'title' in part;
}

/** Where a line applies, in words: the pages, or the first page and what it stands for. */
function pagesPhrase(line: DetectedLine): Phrase {
  const pages = values(line.pages);
  if (line.pagesBasis === 'all') return say`on ${pages}`;
  if (line.pagesBasis === 'any') return say`on every page it was seen on (first: ${pages})`;
  return say`on its first page ${pages} (its other pages not read)`;
}

/** The browsers as a reviewer knows them. */
const BROWSER_NAMES: Record<Browser, string> = { chromium: 'Chromium', firefox: 'Firefox' };

/**
 * A CSP header of a host in words: `this policy` (the one named `self`), another policy of the
 * stack by its name, or a live policy the stack does not manage by its id.
 */
export function headerName(ref: HeaderRef, self: string): string {
  if ('live' in ref) return `the live policy ${ref.live}`;
  return ref.stack === self ? 'this policy' : `"${ref.stack}"`;
}

/**
 * What a line says of the browsers and the host's headers: the browser that blocks it as mixed
 * content, the headers that block or report it, the one browser its list's verdict holds in, the
 * upgrade of its URL. `self` is the name of the policy whose line it is.
 */
function verdictNotes(line: DetectedLine, self: string): string[] {
  const names = (refs: readonly HeaderRef[]) => refs.map((ref) => headerName(ref, self)).join(' and ');
  const others = BROWSERS.filter((browser) => browser !== line.only).map((browser) => BROWSER_NAMES[browser]);
  return [
    ...(line.mixedContent ? ['blocked by the browser as mixed content'] : []),
    ...(line.blockedBy !== undefined ? [`blocked by ${names(line.blockedBy)}`] : []),
    ...(line.reportedBy !== undefined ? [`reported by ${names(line.reportedBy)}`] : []),
    ...(line.only !== undefined ? [`in ${BROWSER_NAMES[line.only]} only, not in ${others.join(' or ')}`] : []),
    ...(line.upgraded
      ? [`upgraded to ${line.url.startsWith('ws:') ? 'wss:' : 'https:'} by upgrade-insecure-requests`]
      : []),
  ];
}

function lineStatement(line: DetectedLine, self: string): LineStatement {
  return {
    url: line.url,
    pages: pagesPhrase(line),
    notes: [
      [`last seen ${line.lastSeenAt}`],
      ...(line.status !== 'active' ? [[stress(line.status)]] : []),
      ...(line.maliciousBecause !== undefined ? [say`${stress('malicious')} (${line.maliciousBecause})`] : []),
      ...(line.accepted !== undefined ? [[`accepted: ${line.accepted}`]] : []),
      ...verdictNotes(line, self).map((note) => [note]),
    ],
  };
}

/**
 * A list of `count` detected items of the policy named `self`, of which `lines` are kept (those to
 * show first, first): the first {@link LINES_SHOWN} of them as lines.
 */
export function itemList(title: Phrase, { count, lines }: DetectedSample, self: string): ItemList {
  const shown = lines.slice(0, LINES_SHOWN);
  return { title, lines: shown.map((line) => lineStatement(line, self)), more: count - shown.length };
}

// ---- A policy ----

/** What a policy does to one kind of detected item: sentences and lists, in order. */
export interface KindStatement {
  kind: Kind;
  /** `Scripts (script-src)`, or `(not restricted)`. */
  heading: Phrase;
  parts: Array<Phrase | ItemList>;
}

/** What the review says of one CSP policy. */
export interface PolicyStatement {
  name: string;
  /** Its action, and whether it is disabled: `allow`, `log, disabled`. */
  state: string;
  /** The host it covers. */
  host: Phrase;
  /** What it does to what it does not allow. */
  effect: string;
  /** What it is compared with, and what changes from it: its host, its effect. */
  comparison: Phrase[];
  /** Why it cannot be judged; then nothing else is said of it. */
  problem?: Phrase;
  /**
   * Why its host's detected scripts and connections were not read ({@link PolicyReview.notRead});
   * then nothing is said of them.
   */
  notRead?: Phrase;
  /** The sources added and removed, and the headers of the host its verdicts come from. */
  changes: Phrase[];
  kinds: KindStatement[];
}

const EFFECTS: Record<PolicyReview['effect'], string> = {
  block: 'blocks what it does not allow',
  report: 'reports what it does not allow',
  none: 'has no effect',
};

/** A policy's host, or what stands for it when the expression cannot be read. */
export function hostPhrase(hostname: string | undefined): Phrase {
  return hostname !== undefined ? [value(hostname)] : ['an unreadable host'];
}

/** A policy's action, and whether it is disabled. */
export function stateOf(review: Pick<PolicyReview, 'action' | 'enabled'>): string {
  return review.enabled ? review.action : `${review.action}, disabled`;
}

function comparisonOf(review: PolicyReview): Phrase[] {
  const baseline = review.baseline;
  if (baseline === 'none') return [['Created.']];
  if ('unknown' in baseline) return [say`Created or changed; not compared with a live policy: ${baseline.unknown}.`];
  return [
    say`Compared with the live policy ${value(baseline.id)}: ${value(baseline.value)}.`,
    ...(baseline.hostname !== review.hostname
      ? [say`Host: ${hostPhrase(baseline.hostname)} -> ${hostPhrase(review.hostname)}.`]
      : []),
    ...(baseline.effect !== review.effect ? [say`Effect: ${baseline.effect} -> ${review.effect}.`] : []),
  ];
}

/**
 * What the verdicts of a policy come from, when it is not its header alone: every CSP header of
 * its host after the change (a fetch loads only if each enforced one allows it), and why some may
 * be missing.
 */
function headersPhrase(review: PolicyReview): Phrase[] {
  const sentences: string[] = [];
  if (review.hostHeaders.length > 1 || (review.hostHeaders.length === 1 && review.effect === 'none')) {
    const headers = review.hostHeaders.map(
      (header) =>
        `${headerName(header.policy, review.name)} (${header.effect === 'block' ? 'enforced' : 'report-only'})`,
    );
    sentences.push(
      `Judged with every CSP header of ${review.hostname} after the change, in Chromium and Firefox: ${headers.join(', ')}; a fetch loads only if every enforced one allows it.`,
    );
  }
  if (review.headersUnknown !== undefined)
    sentences.push(`Live policies of the host are left out of the judgement: ${review.headersUnknown}.`);
  return sentences.length > 0 ? [[sentences.join(' ')]] : [];
}

/** The title of the list of what the browser blocks as mixed content, of a changed policy or an unchanged one. */
export function mixedContentTitle(count: number, noun: string): string {
  return `Blocked by the browser as mixed content, whatever the policies say: ${plural(count, noun)} (http: or ws: from an https: page that no upgrade-insecure-requests rewrites; neither allowed nor a policy's block)`;
}

function kindStatement(review: PolicyReview, kind: Kind): KindStatement {
  const impact = review[kind];
  const { fetch, noun, title, malicious, firstPageOnly } = KIND_WORDS[kind];
  const list = (heading: Phrase, sample: DetectedSample | null): ItemList[] =>
    sample !== null && sample.count > 0 ? [itemList(heading, sample, review.name)] : [];
  const heading = say`${title} (${impact.governedBy !== null ? [value(impact.governedBy)] : ['not restricted']})`;
  const parts: KindStatement['parts'] = [
    say`${plural(impact.judged, noun)} detected on ${hostPhrase(review.hostname)}.`,
  ];
  // What the host's other headers and the browser block, whatever this policy says.
  const onHost = [
    ...list(
      [`Other policies of the host block ${plural(impact.blockedByOthers.count, noun)} this one does not`],
      impact.blockedByOthers,
    ),
    ...list([mixedContentTitle(impact.mixedContent.count, noun)], impact.mixedContent),
  ];
  if (impact.governedBy === null)
    return {
      kind,
      heading,
      parts: [
        ...parts,
        say`The policy has none of ${values(GOVERNING_DIRECTIVES[fetch])}: it restricts no ${noun}.`,
        ...onHost,
      ],
    };
  const verb = review.effect === 'report' ? 'Reports' : 'Blocks';
  if (review.effect !== 'none')
    parts.push(
      ...(impact.notAllowed.count > 0
        ? list([`${verb} ${plural(impact.notAllowed.count, noun)}`], impact.notAllowed)
        : [[`${verb} no detected ${noun}.`]]),
    );
  if (impact.newlyBlocked?.count === 0 && review.effect === 'block') parts.push([`Newly blocks no detected ${noun}.`]);
  parts.push(
    ...list([`Newly blocks ${plural(impact.newlyBlocked?.count ?? 0, noun)}`], impact.newlyBlocked),
    ...list([`Newly allows ${plural(impact.newlyAllowed?.count ?? 0, noun)}`], impact.newlyAllowed),
    ...onHost,
    ...list([`Allows ${plural(impact.maliciousAllowed.count, noun)} ${malicious}`], impact.maliciousAllowed),
  );
  if (impact.unusedSources.length > 0)
    parts.push(say`Sources that allow no detected ${noun} (candidates for removal): ${values(impact.unusedSources)}.`);
  if (impact.judgedOnFirstPageOnly > 0)
    parts.push([`${plural(impact.judgedOnFirstPageOnly, noun)} judged on its first page only: ${firstPageOnly}.`]);
  return { kind, heading, parts };
}

/** What the review says of one policy: what it is compared with, what changes, and what it does to each kind. */
export function policyStatement(review: PolicyReview): PolicyStatement {
  const about = {
    name: review.name,
    state: stateOf(review),
    host: hostPhrase(review.hostname),
    effect: EFFECTS[review.effect],
    comparison: comparisonOf(review),
  };
  if (review.problem !== undefined)
    return { ...about, problem: say`It cannot be judged: ${review.problem}.`, changes: [], kinds: [] };
  const sources = (label: string, list: string[] | null): Phrase[] =>
    list !== null && list.length > 0 ? [say`${label}: ${values(list)}.`] : [];
  if (review.notRead !== undefined)
    return {
      ...about,
      notRead: say`Its host's detected scripts and connections were not read: ${review.notRead}.`,
      changes: [],
      kinds: [],
    };
  return {
    ...about,
    changes: [
      ...sources('Sources added', review.sourcesAdded),
      ...sources('Sources removed', review.sourcesRemoved),
      ...headersPhrase(review),
    ],
    kinds: KINDS.map((kind) => kindStatement(review, kind)),
  };
}

// ---- The review's other sentences ----

/** Why the review could not be done. */
export function notDonePhrase(reason: string): Phrase {
  return say`${stress('The EdgeGuard review could not be done')}: ${reason}`;
}

/** A resource the review cannot judge, and why. */
export function unjudgedPhrase(resource: { name: string; reason: string }): Phrase {
  return say`${named(resource.name)} cannot be judged: ${resource.reason}`;
}

/** A migration whose account has pools no enabled notification of the stack covers. */
export function poolsPhrase(coverage: PoolCoverage): Phrase {
  const { count, names } = coverage.uncovered;
  const more = count - names.length;
  return say`PoolNotificationMigration ${named(coverage.name)} removes the legacy alert e-mails of account ${value(coverage.accountId)}, but ${count} of its ${plural(coverage.pools, 'pool')} ${count === 1 ? 'is' : 'are'} covered by no enabled HealthNotification of this stack: ${values(names)}${more > 0 ? ` and ${more} more` : ''}.`;
}

/** What the weaknesses of a policy are, and which are left out. */
export const WEAKNESSES_ABOUT: Phrase = say`What each CSP policy lets in that injected markup can use to run code past it, of high and medium severity, as Google's CSP Evaluator finds it (hosts serving JSONP endpoints or AngularJS, ${value("'unsafe-inline'")}, ${value("'unsafe-eval'")}, a lone ${value('*')} or scheme, ${value('object-src')} missing), less advice the service cannot follow (nonces, ${value("'strict-dynamic'")}, reporting).`;
