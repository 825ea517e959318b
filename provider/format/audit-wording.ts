import { shown } from './escape';
import { SCORE_KEYS, type Integrity } from '../payment/scripts';
import { maliciousReasons } from '../payment/statements';
import { KIND_WORDS, named, plural, stress, value, type Phrase } from '../impact/statements';
import { FAILING_INTEGRITIES, findingsOf, type Finding } from '../payment/evidence';
import type {
  AuditCounts,
  AuditEntry,
  AuditEvidence,
  AuditHeader,
  AuditScript,
  AuditVersion,
} from '../payment/evidence-schema';
import { headerChangePhrase } from '../payment/header-change-statements';
import { text } from './review-text';

/**
 * What the audit's evidence says, before any format: each phrase written once, as the review's
 * (`../impact/statements.ts`), and laid out by `./audit-markdown.ts` and `./audit-html.ts`. Values from
 * the service and the stack are always {@link value} spans or plain words, which each format
 * escapes its own way.
 */

/** How each integrity reads. */
export const INTEGRITY_WORDS: Readonly<Record<Integrity, string>> = {
  unchanged: 'pinned, unchanged',
  unpinned: 'unpinned',
  changed: 'changed',
  unauthorized: 'unauthorized',
};

/** The integrities in the order the evidence lists their counts: the best first. */
export const COUNTED: ReadonlyArray<Integrity> = ['unchanged', 'unpinned', 'changed', 'unauthorized'];

/** The summary's row of the malicious scripts, which are also counted under their integrity. */
export const MALICIOUS_COUNTED = 'malicious, whatever the integrity';

/** What makes a script malicious, as the review says it: `classified malicious (js_integrity_score below 10) or reported malicious`. */
export const MALICIOUS_WHY = `${KIND_WORDS.scripts.malicious} or reported malicious`;

/** What passes, said once for the verdict, the command's summary and its usage. */
export const ALL_CLEAR = 'authorized, none changed and none malicious';

/** The requirements the evidence answers. */
export const REQUIREMENTS = 'PCI DSS 4.0 requirements 6.4.3 and 11.6.1';

/** The document's title. */
export function titleOf(evidence: AuditEvidence): string {
  return `Payment-page scripts of ${evidence.project} / ${evidence.stack}: EdgeGuard audit`;
}

/** Where the evidence comes from and when. */
export function aboutPhrase(evidence: AuditEvidence): Phrase {
  return [
    'Evaluated at ',
    value(evidence.evaluatedAt),
    ` by edgeguard-audit ${evidence.tool.version}, from the state of stack `,
    named(evidence.stack),
    ' of project ',
    named(evidence.project),
    ` and what page security reports (${REQUIREMENTS}). The audit reads; it changed nothing.`,
  ];
}

/** `3 scripts (1 pinned, unchanged; 1 unpinned; 1 changed; 0 unauthorized), 1 malicious` (or `none malicious`), or `no script`. */
export function countsText(counts: AuditCounts): string {
  if (counts.scripts === 0) return 'no script';
  return `${plural(counts.scripts, 'script')} (${COUNTED.map((integrity) => `${counts[integrity]} ${INTEGRITY_WORDS[integrity]}`).join('; ')}), ${counts.malicious === 0 ? 'none' : counts.malicious} malicious`;
}

/** The verdict, with what passes and why. */
export function verdictPhrase(evidence: AuditEvidence): Phrase {
  const { counts } = evidence;
  const unpinned =
    counts.unpinned > 0
      ? [
          ` ${plural(counts.unpinned, 'script')} authorized without a pinned hash (unpinned), which passes: no hash says which content was approved.`,
        ]
      : [];
  if (evidence.passed)
    return [
      stress('Pass'),
      counts.scripts === 0
        ? ': page security saw no script on the payment pages.'
        : `: every script seen on the payment pages is ${ALL_CLEAR}.`,
      ...unpinned,
    ];
  const failing = [
    ...(counts.unauthorized > 0 ? [`${plural(counts.unauthorized, 'script')} unauthorized`] : []),
    ...(counts.changed > 0 ? [`${plural(counts.changed, 'pinned script')} changed`] : []),
    ...(counts.malicious > 0
      ? [`${plural(counts.malicious, 'script')} ${MALICIOUS_WHY} (whatever the integrity)`]
      : []),
    ...(headerChangeCount(evidence) > 0
      ? [`${plural(headerChangeCount(evidence), 'CSP header')} of the payment hosts not as the stack manages it`]
      : []),
  ];
  return [stress('Fail'), `: ${failing.join(', ')}.`, ...unpinned];
}

/** The inventory's heading. */
export function inventoryHeading(inventory: { name: string; zoneId: string }): Phrase {
  return ['Inventory ', named(inventory.name), ' (zone ', value(inventory.zoneId), ')'];
}

/** A payment page's heading. */
export function pageHeading(page: { page: string }): Phrase {
  return ['Payment page ', value(page.page)];
}

/** The headers' title, or why there are none. */
export function headersTitle(page: { host: string; headers: readonly AuditHeader[] }): Phrase {
  if (page.headers.length === 0)
    return ['No enabled CSP policy applies to ', value(page.host), ': no header restricts the scripts of this page.'];
  const enforced = page.headers.filter((header) => header.mode === 'enforced').length;
  return [
    'CSP headers in force on ',
    value(page.host),
    `: ${enforced} enforced, ${page.headers.length - enforced} report only`,
  ];
}

/** `enforced (allow)` or `report only (log)`. */
export function modeText(header: AuditHeader): string {
  // The action itself is the service's data: the evidence's JSON holds it, the words here do not.
  if (header.mode === 'unknown') return 'neither enforced nor report only (an action EdgeGuard does not know)';
  return header.mode === 'enforced' ? 'enforced (allow)' : 'report only (log)';
}

/** The resource managing a header, or who does. */
export function managerPhrase(header: AuditHeader): Phrase {
  return header.managedBy !== undefined ? [named(header.managedBy.name)] : ['not this stack'];
}

/** The scripts' title of a page. */
export function scriptsTitle(page: { counts: AuditCounts }): string {
  return `Scripts seen on this page: ${countsText(page.counts)}`;
}

/** `scripts[0]`, how an entry is named. */
export function entryName(entry: AuditEntry): string {
  return `scripts[${entry.index}]`;
}

/** An entry: its name, what it matches, its justification and owner. */
export function entryPhrase(entry: AuditEntry): Phrase {
  return [
    value(entryName(entry)),
    ' ',
    value(entry.url ?? entry.prefix ?? ''),
    entry.prefix !== undefined ? ' (prefix)' : '',
    `: ${entry.justification}`,
    ...(entry.owner !== undefined ? [` (owner: ${entry.owner})`] : []),
  ];
}

/** Who authorizes a script: its entry, or no one. */
export function authorizedByPhrase(script: AuditScript): Phrase {
  return script.entry !== undefined ? entryPhrase(script.entry) : [stress('no entry'), ' of the inventory'];
}

/** The script itself: URL, status, id and the pages it was seen on. */
export function scriptPhrase(script: AuditScript): Phrase {
  return [value(script.url), ` (${script.status}, id `, value(script.id), ')'];
}

/** When it was seen, and where. */
export function seenPhrase(script: AuditScript): Phrase {
  return [
    'first ',
    value(script.firstSeenAt),
    ', last ',
    value(script.lastSeenAt),
    ', on ',
    ...script.seenOn.flatMap((page, index) => (index === 0 ? [value(page)] : [', ', value(page)])),
  ];
}

/** Its integrity, with the hashes that show it. */
export function integrityPhrase(script: AuditScript): Phrase {
  const live = script.hash !== undefined ? value(script.hash) : 'none reported';
  const word = stress(INTEGRITY_WORDS[script.integrity]);
  switch (script.integrity) {
    case 'unchanged':
      return [word, ': hash ', live];
    case 'changed':
      return [
        word,
        ': pinned ',
        value(script.entry?.hash ?? ''),
        ', live ',
        live,
        script.changedAt !== undefined
          ? `, changed at `
          : '; the pinned version is no longer among the versions page security lists',
        ...(script.changedAt !== undefined ? [value(script.changedAt)] : []),
      ];
    case 'unpinned':
      return [word, ': the entry pins no hash; live ', live];
    case 'unauthorized':
      return [word, ': no entry of the inventory authorizes it; live ', live];
  }
}

/** The versions' title of a changed script. */
export function versionsTitle(script: AuditScript): Phrase {
  return ['Versions of ', value(script.url), ' since the pinned one, newest first'];
}

/** One version of a changed script. */
export function versionPhrase(version: AuditVersion, index: number): Phrase {
  return [
    version.hash !== undefined ? value(version.hash) : 'no hash reported',
    ', fetched ',
    version.fetchedAt !== undefined ? value(version.fetchedAt) : 'at a time not reported',
    index === 0 ? ' (live)' : '',
    version.pinned ? ' (pinned)' : '',
  ];
}

/** The scores' names as the evidence reads them. */
const SCORE_WORDS: Readonly<Record<(typeof SCORE_KEYS)[number], string>> = {
  js_integrity_score: 'JS integrity',
  obfuscation_score: 'obfuscation',
  dataflow_score: 'dataflow',
  malware_score: 'malware',
  cryptomining_score: 'cryptomining',
  magecart_score: 'magecart',
};

/** `malicious (js_integrity_score 4; URL reported malicious (Malware))`: why, as the review says it; undefined when it is not. */
function maliciousText(script: AuditScript): string | undefined {
  const reasons = maliciousReasons(script);
  return reasons.length > 0 ? `malicious (${reasons.join('; ')})` : undefined;
}

/** The scores, and whether the script is malicious and why (its score, what is reported of its URL and domain). */
export function scoresPhrase(script: AuditScript): Phrase {
  const scores = SCORE_KEYS.flatMap((key) =>
    script.scores[key] !== undefined ? [`${SCORE_WORDS[key]} ${script.scores[key]}`] : [],
  );
  const malicious = maliciousText(script);
  return [
    scores.length > 0 ? scores.join(', ') : 'no scores reported',
    '; ',
    malicious !== undefined ? stress(malicious) : 'not malicious',
  ];
}

/** The stale entries' title. */
export const STALE_TITLE: Phrase = [
  'Entries that no script seen on the pages matches (',
  stress('not a failure'),
  ': a script may load rarely; remove the entry when the script is gone for good)',
];

/**
 * A script that fails the audit, as one line of text for the command's summary on stderr: why its
 * integrity fails, why it is malicious (with its integrity when that alone passes), and where.
 * Every value is {@link shown}: a URL cannot end the line or send the terminal a command.
 */
export function findingText(finding: Finding): string {
  const { script } = finding;
  const malicious = maliciousText(script);
  const integrityFails = FAILING_INTEGRITIES.includes(script.integrity);
  const why = [
    ...(script.integrity === 'unauthorized' ? ['unauthorized, no entry authorizes it'] : []),
    ...(script.integrity === 'changed'
      ? [
          `changed, pinned ${shown(script.entry?.hash ?? '')}, live ${shown(script.hash ?? 'none reported')}${script.changedAt !== undefined ? ` since ${shown(script.changedAt)}` : ''}`,
        ]
      : []),
    ...(malicious !== undefined
      ? [integrityFails ? shown(malicious) : `${shown(malicious)}, ${INTEGRITY_WORDS[script.integrity]}`]
      : []),
  ];
  return `${shown(script.url)}: ${why.join('; ')}, on ${finding.pages.map(shown).join(', ')} (inventory ${shown(finding.inventory)})`;
}

/** The CSP headers changed outside the stack, over every inventory. */
function headerChangeCount(evidence: AuditEvidence): number {
  return evidence.inventories.reduce((sum, inventory) => sum + (inventory.headerChanges?.length ?? 0), 0);
}

/** The command's summary on stderr: the verdict, and each failing script and changed header on a line. */
export function summaryText(evidence: AuditEvidence): string {
  if (evidence.passed)
    return `pass: every script ${ALL_CLEAR} (unpinned ones are allowed); ${countsText(evidence.counts)}`;
  const headers = headerChangeCount(evidence);
  return [
    `fail: ${countsText(evidence.counts)}${headers > 0 ? `; ${plural(headers, 'CSP header')} changed outside the stack` : ''}; failing:`,
    ...findingsOf(evidence).map((finding) => `  ${findingText(finding)}`),
    ...evidence.inventories.flatMap((inventory) =>
      (inventory.headerChanges ?? []).map(
        (change) => `  ${text(headerChangePhrase(change))} (inventory ${inventory.name})`,
      ),
    ),
  ].join('\n');
}
