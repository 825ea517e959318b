import type { Phrase, Span } from '../impact/statements';
import type { AuditEvidence, AuditInventory, AuditPaymentPage } from '../payment/evidence-schema';
import {
  aboutPhrase,
  authorizedByPhrase,
  COUNTED,
  countsText,
  entryPhrase,
  headersTitle,
  integrityPhrase,
  INTEGRITY_WORDS,
  inventoryHeading,
  MALICIOUS_COUNTED,
  managerPhrase,
  modeText,
  pageHeading,
  scoresPhrase,
  scriptPhrase,
  scriptsTitle,
  seenPhrase,
  STALE_TITLE,
  titleOf,
  verdictPhrase,
  versionPhrase,
  versionsTitle,
} from './audit-wording';
import { markdownCell, markdownCode, markdownText } from './escape';
import { HEADER_CHANGES_TITLE, headerChangePhrase } from '../payment/header-change-statements';

/**
 * The audit's evidence as Markdown (`edgeguard-audit --markdown`, and its stdout by default): for a
 * CI job's summary, a ticket or the assessor's file. Every value from the service or the stack is
 * either code (its exact text, whatever it holds) or text whose Markdown and HTML characters are
 * escaped (`./escape.ts`), so a hostile URL or justification shows as written and renders nothing.
 */

function span(part: Span, inCell = false): string {
  if (typeof part === 'string') return markdownText(part);
  if ('stress' in part) return `**${markdownText(part.stress)}**`;
  const text = markdownCode('value' in part ? part.value : part.name);
  return inCell ? markdownCell(text) : text;
}

/** A phrase as Markdown: its values as code, its words as text. */
export function md(phrase: Phrase): string {
  return phrase.map((part) => span(part)).join('');
}

/** A phrase as a table cell. */
export function cell(phrase: Phrase): string {
  return phrase.map((part) => span(part, true)).join('');
}

function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ];
}

function pageMarkdown(page: AuditPaymentPage): string[] {
  const lines = [`### ${md(pageHeading(page))}`, '', `**${md(headersTitle(page))}**`, ''];
  if (page.headers.length > 0)
    lines.push(
      ...table(
        ['Policy', 'Mode', 'Managed by', 'Value'],
        page.headers.map((header) => [
          cell([{ value: header.policyId }, header.description !== '' ? ` ${header.description}` : '']),
          cell([modeText(header)]),
          cell(managerPhrase(header)),
          cell([{ value: header.value }]),
        ]),
      ),
      '',
    );
  lines.push(`**${md([scriptsTitle(page)])}**`, '');
  if (page.scripts.length === 0) return lines;
  lines.push(
    ...table(
      ['Script', 'Seen', 'Authorized by', 'Integrity', 'Scores'],
      page.scripts.map((script) => [
        cell(scriptPhrase(script)),
        cell(seenPhrase(script)),
        cell(authorizedByPhrase(script)),
        cell(integrityPhrase(script)),
        cell(scoresPhrase(script)),
      ]),
    ),
    '',
  );
  for (const script of page.scripts.filter((one) => one.versionsSince.length > 0))
    lines.push(
      `${md(versionsTitle(script))}:`,
      '',
      ...script.versionsSince.map((version, index) => `- ${md(versionPhrase(version, index))}`),
      '',
    );
  return lines;
}

function inventoryMarkdown(inventory: AuditInventory): string[] {
  const lines = [`## ${md(inventoryHeading(inventory))}`, '', `${md([countsText(inventory.counts)])}.`, ''];
  for (const page of inventory.pages) lines.push(...pageMarkdown(page));
  const changes = inventory.headerChanges ?? [];
  if (changes.length > 0)
    lines.push(
      `### ${md(HEADER_CHANGES_TITLE)}`,
      '',
      ...changes.map((change) => `- ${md(headerChangePhrase(change))}`),
      '',
    );
  if (inventory.staleEntries.length > 0)
    lines.push(
      `### ${md(STALE_TITLE)}`,
      '',
      ...inventory.staleEntries.map((entry) => `- ${md(entryPhrase(entry))}`),
      '',
    );
  return lines;
}

/** The whole evidence as one Markdown document. */
export function auditMarkdown(evidence: AuditEvidence): string {
  return [
    `# ${markdownText(titleOf(evidence))}`,
    '',
    md(aboutPhrase(evidence)),
    '',
    md(verdictPhrase(evidence)),
    '',
    ...table(
      ['Integrity', 'Scripts'],
      [
        ...COUNTED.map((integrity) => [INTEGRITY_WORDS[integrity], String(evidence.counts[integrity])]),
        ['total', String(evidence.counts.scripts)],
        [MALICIOUS_COUNTED, String(evidence.counts.malicious)],
      ],
    ),
    '',
    ...evidence.inventories.flatMap(inventoryMarkdown),
  ]
    .join('\n')
    .replace(/\n+$/, '\n');
}
