import type { Finding, InventoryStatement, PhraseList } from '../payment/statements';
import { isList, type ItemList, type Phrase, type PolicyStatement, type Span } from '../review/statements';

/**
 * What a review says (`./statements.ts`) as Markdown, for edgeguard-review's report: values and
 * names as code, stressed words in bold, a list under its title in bold, a policy under a heading
 * and each kind under one of its own.
 */

/** Text for a Markdown table cell: no line break, no unescaped `|`. */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** A value as inline code. */
export function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

function spanMarkdown(span: Span): string {
  // A line break would end a list item or a paragraph: what the service or a team wrote stays on its line.
  if (typeof span === 'string') return span.replace(/\r?\n/g, ' ');
  if ('value' in span) return code(span.value);
  if ('name' in span) return code(span.name);
  return `**${span.stress}**`;
}

/** A phrase as Markdown. */
export function markdown(phrase: Phrase): string {
  return phrase.map(spanMarkdown).join('');
}

/** A list: its title in bold, then an item per line, each a paragraph's lines apart from what follows. */
export function listMarkdown(list: ItemList): string[] {
  return [
    `**${markdown(list.title)}**`,
    '',
    ...list.lines.map((line) => `- ${code(line.url)} ${line.pages}; ${line.notes.map(markdown).join('; ')}`),
    ...(list.more > 0 ? [`- and ${list.more} more`] : []),
    '',
  ];
}

/** A policy's part of the report: a heading, its sentences and lists, and a heading for each kind. */
export function policyMarkdown(statement: PolicyStatement): string[] {
  const paragraph = (phrase: Phrase) => [markdown(phrase), ''];
  const lines = [
    `#### ${code(statement.name)}: ${statement.state} on ${markdown(statement.host)} (${statement.effect})`,
    '',
    ...statement.comparison.flatMap(paragraph),
  ];
  if (statement.problem !== undefined) return [...lines, ...paragraph(statement.problem)];
  lines.push(...statement.changes.flatMap(paragraph));
  for (const kind of statement.kinds)
    lines.push(
      `##### ${markdown(kind.heading)}`,
      '',
      ...kind.parts.flatMap((part) => (isList(part) ? listMarkdown(part) : paragraph(part))),
    );
  return lines;
}

/** A titled list of sentences: its title in bold, then an item per sentence. */
function phraseListMarkdown(list: PhraseList): string[] {
  return [`**${markdown(list.title)}**`, '', ...list.items.map((item) => `- ${markdown(item)}`), ''];
}

/** A payment policy's violation: its list, then how to fix it. */
function findingMarkdown(finding: Finding): string[] {
  return [...listMarkdown(finding.list), markdown(finding.fix), ''];
}

/**
 * An inventory's part of the report (`./payment-statements.ts`): a heading, what is detected on
 * its pages, what the change does to its entries and newly authorizes, its violations, and the CSP
 * policies that enforce it.
 */
export function inventoryMarkdown(statement: InventoryStatement): string[] {
  const paragraph = (phrase: Phrase) => [markdown(phrase), ''];
  const newly = statement.newlyAuthorized;
  return [
    `#### ${code(statement.name)}`,
    '',
    ...paragraph(statement.counts),
    '##### Entries changed',
    '',
    ...statement.entries.flatMap((part) => ('items' in part ? phraseListMarkdown(part) : paragraph(part))),
    ...(newly === undefined ? [] : isList(newly) ? listMarkdown(newly) : paragraph(newly)),
    '##### Violations',
    '',
    ...(statement.findings.length > 0
      ? statement.findings.flatMap(findingMarkdown)
      : ['No script is unauthorized, changed or malicious.', '']),
    '##### The CSP headers of its hosts',
    '',
    ...('items' in statement.headers ? phraseListMarkdown(statement.headers) : paragraph(statement.headers)),
    '##### Enforcement by the CSP policies',
    '',
    ...statement.csp.map((phrase) => `- ${markdown(phrase)}`),
    '',
  ];
}
