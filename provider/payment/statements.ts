import { differs, type PolicyComparison } from '../../rules/inventory-csp';
import type { EntryRewritten, EntryText } from '../../rules/inventory-changes';
import type { PaymentScript, Scores } from './scripts';
import { connectionReports } from '../impact/evaluate';
import type { InventoryReview } from './review';
import { headerChangePhrase } from './header-change-statements';
import {
  KIND_WORDS,
  LINES_SHOWN,
  named,
  plural,
  say,
  stress,
  value,
  values,
  type ItemList,
  type LineStatement,
  type Phrase,
} from '../impact/statements';

/**
 * What the review says of a stack's script inventories (issue 25, item 3): the part of the one
 * model (`./statements.ts`) that the pack's payment policies (`./pack-policies.ts`, through
 * `./as-text.ts`) and the report's "Payment-page scripts" section (`./report.ts`, through
 * `./as-markdown.ts`) both render, so that a violation reads the same in a preview and in the report.
 */

/** A titled list of sentences: the entries a change adds, the policies compared with an inventory. */
export interface PhraseList {
  title: Phrase;
  items: Phrase[];
}

/** A violation of a payment policy: what is wrong, item by item, and how to fix it. */
export interface Finding {
  list: ItemList;
  fix: Phrase;
}

/** How the review names an inventory. */
export function inventoryPhrase(review: Pick<InventoryReview, 'name'>): Phrase {
  return say`ScriptInventory ${named(review.name)}`;
}

/** How an entry is named: its URL or prefix. */
function entryPhrase(entry: Pick<EntryText, 'kind' | 'text'>): Phrase {
  return say`${entry.kind} ${value(entry.text)}`;
}

// ---- A script of the payment pages ----

/** What {@link maliciousReasons} reads of a script: the reading's, or the audit's evidence of it. */
export type MaliciousFacts = Pick<PaymentScript, 'malicious' | 'scores' | 'reported'>;

/** Why a script of the payment pages is malicious, each reason a phrase; empty when it is not. */
export function maliciousReasons(script: MaliciousFacts): string[] {
  return [
    ...(script.malicious ? [`js_integrity_score ${script.scores.js_integrity_score}`] : []),
    ...connectionReports({
      domain_reported_malicious: script.reported.domainMalicious,
      malicious_domain_categories: [],
      url_reported_malicious: script.reported.urlMalicious,
      malicious_url_categories: script.reported.urlCategories,
    }),
  ];
}

/** Whether a script is malicious: its score (`rules/malicious.ts`), or its domain or URL reported malicious. */
export function isMaliciousPaymentScript(script: MaliciousFacts): boolean {
  return maliciousReasons(script).length > 0;
}

/** The scores page security gives, in spec 2.3's order: `scores: js_integrity_score 45, magecart_score 2`. */
export function scoresPhrase(scores: Scores, label = 'scores'): Phrase {
  const given = Object.entries(scores).map(([name, score]) => `${name} ${score}`);
  return [given.length > 0 ? `${label}: ${given.join(', ')}` : `${label}: none reported`];
}

/** What every line of a script says after what its list is about: scores, malicious flags, status, when seen. */
function factNotes(script: PaymentScript): Phrase[] {
  const reasons = maliciousReasons(script);
  return [
    scoresPhrase(script.scores),
    ...(reasons.length > 0 ? [say`${stress('malicious')} (${reasons.join('; ')})`] : [['not malicious']]),
    ...(script.status !== 'active' ? [[stress(script.status)]] : []),
    [`first seen ${script.firstSeenAt}, last seen ${script.lastSeenAt}`],
  ];
}

function scriptLine(script: PaymentScript, notes: Phrase[]): LineStatement {
  return { url: script.url, pages: say`on ${values(script.pages)}`, notes: [...notes, ...factNotes(script)] };
}

function scriptList(
  title: Phrase,
  scripts: readonly PaymentScript[],
  notes: (script: PaymentScript) => Phrase[],
): ItemList {
  const shown = scripts.slice(0, LINES_SHOWN);
  return {
    title,
    lines: shown.map((script) => scriptLine(script, notes(script))),
    more: scripts.length - shown.length,
  };
}

/** `it` or `them`, for `count` items. */
const them = (count: number) => (count === 1 ? 'it' : 'them');
const isAre = (count: number) => (count === 1 ? 'is' : 'are');

// ---- The mandatory policies' findings ----

/** `payment-script-unauthorized`: the scripts detected on the pages that no entry authorizes. */
export function unauthorizedFinding(review: InventoryReview): Finding | undefined {
  const scripts = review.scripts.filter((script) => script.integrity === 'unauthorized');
  if (scripts.length === 0) return undefined;
  const n = scripts.length;
  return {
    list: scriptList(
      say`${inventoryPhrase(review)}: ${plural(n, 'script')} detected on its payment pages ${isAre(n)} authorized by no entry`,
      scripts,
      () => [],
    ),
    fix: [
      `Add an entry for ${n === 1 ? 'it' : 'each'} to the inventory with its justification (why it is on the payment pages), pinning its hash, or remove ${them(n)} from the pages.`,
    ],
  };
}

/** `payment-script-changed`: the pinned scripts whose live hash is not the pinned one. */
export function changedFinding(review: InventoryReview): Finding | undefined {
  const scripts = review.scripts.filter((script) => script.integrity === 'changed');
  if (scripts.length === 0) return undefined;
  const n = scripts.length;
  return {
    list: scriptList(
      say`${inventoryPhrase(review)}: ${plural(n, 'pinned script')} ${isAre(n)} no longer the version approved`,
      scripts,
      (script) => {
        const pinned = script.entry?.kind === 'url' ? script.entry.hash : undefined;
        const since = script.changes.filter((version) => version.hash?.toLowerCase() !== pinned).length;
        return [
          say`entry ${value(script.entry?.address.text ?? script.url)}`,
          say`pinned hash ${value(pinned ?? 'none')}`,
          say`live hash ${value(script.hash ?? 'none reported')}`,
          [
            `new version fetched ${script.fetchedAt ?? 'at a time not reported'}${since > 1 ? ` (${since} versions since the pinned one)` : ''}`,
          ],
        ];
      },
    ),
    fix: [
      `Review the new content and re-pin the entry to the live hash (set its hash to it), or restore the approved version${n === 1 ? '' : 's'}.`,
    ],
  };
}

/** `payment-script-malicious`: the scripts an entry authorizes that are malicious. */
export function maliciousFinding(review: InventoryReview): Finding | undefined {
  const scripts = review.scripts.filter((script) => script.entry !== undefined && isMaliciousPaymentScript(script));
  if (scripts.length === 0) return undefined;
  const n = scripts.length;
  return {
    list: scriptList(
      say`${inventoryPhrase(review)} authorizes ${plural(n, 'script')} ${KIND_WORDS.scripts.malicious} or reported malicious`,
      scripts,
      (script) => [say`entry ${value(script.entry!.address.text)} (justification: ${script.entry!.justification})`],
    ),
    fix: [
      `Remove the entr${n === 1 ? 'y' : 'ies'}, and the script${n === 1 ? '' : 's'} from the payment pages; a script page security classifies malicious cannot be authorized there.`,
    ],
  };
}

/**
 * `payment-headers-changed`: the CSP headers of the pages' hosts not as the stack managed them
 * before the change (PCI DSS 4.0 requirement 11.6.1: a change to the CSP can be a sign of
 * tampering), each with the header before and after.
 */
export function headersChangedFinding(review: InventoryReview): { list: PhraseList; fix: Phrase } | undefined {
  const changes = Array.isArray(review.headerChanges) ? review.headerChanges : [];
  if (changes.length === 0) return undefined;
  const n = changes.length;
  return {
    list: {
      title: say`${inventoryPhrase(review)}: ${plural(n, 'CSP header')} of its pages' hosts ${isAre(n)} not as the stack manages ${them(n)}`,
      items: changes.map(headerChangePhrase),
    },
    fix: [
      'Bring a policy the stack does not manage under it (a CspPolicy; edgeguard-import writes it) or remove it; restore a managed one (pulumi up), or bring its change into the program.',
    ],
  };
}

/** The report's words on the headers of the pages' hosts: the finding's list, none changed, or why they are not compared. */
function headersPart(review: InventoryReview): PhraseList | Phrase {
  if (review.headerChanges === undefined)
    return ["The CSP headers of its pages' hosts are not compared with the stack's: no previous state was given."];
  if (!Array.isArray(review.headerChanges))
    return say`The CSP headers of its pages' hosts are not compared with the stack's: ${review.headerChanges.unknown}.`;
  return headersChangedFinding(review)?.list ?? ["Every CSP header of its pages' hosts is as the stack manages it."];
}

// ---- The CSP policies that enforce an inventory ----

function comparisonPhrase(comparison: PolicyComparison, host: string): Phrase {
  const policy = say`CspPolicy ${named(comparison.name)} (allow on ${value(host)})`;
  if (comparison.unreadable !== undefined) return say`${policy}: its value cannot be read: ${comparison.unreadable}.`;
  if (comparison.governedBy === null)
    return say`${policy} has neither ${value('script-src')} nor ${value('default-src')}: it allows every script.`;
  if (!differs(comparison))
    return say`${policy} allows exactly what the inventory authorizes (${value(comparison.governedBy)}).`;
  const parts: Phrase[] = [];
  if (comparison.missing.length > 0)
    parts.push(say`does not allow ${values(comparison.missing)}, which the inventory authorizes`);
  if (comparison.extra.length > 0)
    parts.push(say`allows more than the inventory authorizes: ${values(comparison.extra)}`);
  return say`${policy}, by its ${value(comparison.governedBy)}, ${parts.flatMap((part, i) => (i === 0 ? part : ['; ', ...part]))}.`;
}

/**
 * The inventory's hosts and the enforcing policies of each, every one said (`differs`: whether it
 * is a difference): a policy that allows exactly the inventory, one that allows less or more, a
 * host nothing enforces it on.
 */
export function cspComparisonPhrases(review: InventoryReview): Array<{ phrase: Phrase; differs: boolean }> {
  return review.csp.flatMap(({ host, policies }) =>
    policies.length === 0
      ? [
          {
            phrase: say`Nothing enforces the inventory on ${value(host)}: no enabled ${value('allow')} CspPolicy of the stack covers that host.`,
            differs: true,
          },
        ]
      : policies.map((comparison) => ({ phrase: comparisonPhrase(comparison, host), differs: differs(comparison) })),
  );
}

/** `payment-csp-differs-from-inventory`: the policies and hosts where what is enforced is not the inventory. */
export function cspDifferenceFinding(review: InventoryReview): { list: PhraseList; fix: Phrase } | undefined {
  const items = cspComparisonPhrases(review)
    .filter((item) => item.differs)
    .map((item) => item.phrase);
  if (items.length === 0) return undefined;
  return {
    list: {
      title: say`The CSP policies of the hosts of ${inventoryPhrase(review)}'s pages do not enforce exactly what it authorizes`,
      items,
    },
    fix: say`Give each host of the pages an allow CspPolicy whose script-src is fed by the inventory's cspSources (${value(`script-src ${review.cspSources}`)}).`,
  };
}

// ---- The report's section ----

/** An entry's justification and owner. */
function entryFacts(entry: EntryText): Phrase {
  return [`${entry.justification}${entry.owner !== undefined ? ` (owner: ${entry.owner})` : ''}`];
}

function entryItem(entry: EntryText): Phrase {
  const pin: Phrase =
    entry.hash !== undefined ? say`, pinned ${value(entry.hash)}` : [entry.kind === 'url' ? ', not pinned' : ''];
  return say`${entryPhrase(entry)}: ${entryFacts(entry)}${pin}`;
}

function rewrittenItem(change: EntryRewritten, what: string): Phrase {
  const side = (text: string | undefined): Phrase => (text === undefined ? ['none'] : [value(text)]);
  return say`${entryPhrase(change.entry)}: ${what} ${side(change.from)} -> ${side(change.to)}`;
}

/** What the change does to the inventory's entries, each a list, or why it is not known. */
export function entryChangeLists(review: InventoryReview): Array<PhraseList | Phrase> {
  const changes = review.changes;
  if ('unknown' in changes)
    return [say`The entries are not compared with those before the change: ${changes.unknown}.`];
  const list = (title: string, items: Phrase[]): PhraseList[] =>
    items.length > 0 ? [{ title: [`${title} (${items.length})`], items }] : [];
  const lists = [
    ...list('Entries added', changes.added.map(entryItem)),
    ...list('Entries removed', changes.removed.map(entryItem)),
    ...list(
      'Entries re-pinned',
      changes.repinned.map((change) => say`${rewrittenItem(change, 'hash')}; ${entryFacts(change.entry)}`),
    ),
    ...list(
      'Justifications changed',
      changes.justified.map((change) => rewrittenItem(change, 'justification')),
    ),
    ...list(
      'Owners changed',
      changes.owned.map((change) => rewrittenItem(change, 'owner')),
    ),
  ];
  return lists.length > 0 ? lists : [['The change adds, removes, re-pins and rewrites no entry.']];
}

/** The scripts the change newly authorizes, with their scores and malicious flags, for the reviewer who approves them. */
export function newlyAuthorizedList(review: InventoryReview): ItemList | Phrase | undefined {
  // Not known without the entries before the change, which entryChangeLists says.
  if ('unknown' in review.changes) return undefined;
  const ids = new Set(review.newlyAuthorized);
  const scripts = review.scripts.filter((script) => ids.has(script.id));
  if (scripts.length === 0)
    return ['The change authorizes no script detected on the pages that was not authorized before.'];
  return scriptList([`Detected scripts this change newly authorizes (${scripts.length})`], scripts, (script) => [
    say`entry ${value(script.entry!.address.text)}`,
    ...(script.hash !== undefined ? [say`live hash ${value(script.hash)}`] : []),
  ]);
}

/** How many scripts were detected on the pages, by integrity. */
export function integrityPhrase(review: InventoryReview): Phrase {
  // By the integrities' own names, as the resource's `detected` output and the report's JSON give them.
  const counts = Object.entries(review.integrity).map(([integrity, count]) => `${count} ${integrity}`);
  return say`${plural(review.scripts.length, 'script')} detected on its pages (${values(review.pages)}): ${counts.join(', ')}.`;
}

/** The report's part of one inventory: in order, what is detected, what the change does, what it newly authorizes, the violations, the enforcement. */
export interface InventoryStatement {
  name: string;
  counts: Phrase;
  entries: Array<PhraseList | Phrase>;
  /** Absent when the entries before the change are not known. */
  newlyAuthorized?: ItemList | Phrase;
  findings: Finding[];
  /** The CSP headers of its pages' hosts against the stack's (`payment-headers-changed`). */
  headers: PhraseList | Phrase;
  csp: Phrase[];
}

/** What the report says of one inventory. */
export function inventoryStatement(review: InventoryReview): InventoryStatement {
  const newly = newlyAuthorizedList(review);
  return {
    name: review.name,
    counts: integrityPhrase(review),
    entries: entryChangeLists(review),
    ...(newly !== undefined ? { newlyAuthorized: newly } : {}),
    findings: [unauthorizedFinding(review), changedFinding(review), maliciousFinding(review)].filter(
      (finding): finding is Finding => finding !== undefined,
    ),
    headers: headersPart(review),
    csp: cspComparisonPhrases(review).map((item) => item.phrase),
  };
}
