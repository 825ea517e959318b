import type { Finding, InventoryStatement, PhraseList } from '../payment/statements';
import { inventoryStatement } from '../payment/statements';
import type { MeaningRow } from '../review/meaning';
import { isCreatedOrChanged, type PolicyReview } from '../impact/model';
import type { ReviewReport } from '../review/report';
import {
  hostPhrase,
  isList,
  itemList,
  KIND_WORDS,
  KINDS,
  mixedContentTitle,
  named,
  notDonePhrase,
  plural,
  policyStatement,
  poolsPhrase,
  say,
  stateOf,
  unjudgedPhrase,
  WEAKNESSES_ABOUT,
  type ItemList,
  type Phrase,
  type PolicyStatement,
  type Span,
} from '../impact/statements';
import { policiesWeaknesses } from '../impact/weaknesses';
import { markdownCell, markdownCode, markdownFence, markdownText } from './escape';

/**
 * What a review says (`../impact/statements.ts`) as Markdown, for edgeguard-review's report (a
 * pull request comment): values and names as code, stressed words in bold, a list under its title
 * in bold, a policy under a heading and each kind under one of its own. Every value goes through
 * `./escape.ts`: a detected URL shows as it is and renders nothing.
 */

/** A value as inline code. */
const code = markdownCode;

/** Text (words, or a value in words) as a table cell: escaped, no line break, no `|` that ends the cell. */
function cell(text: string): string {
  return markdownCell(markdownText(text));
}

function spanMarkdown(span: Span): string {
  // Words carry values too (a time, a reason): escaped, they stay words on their line.
  if (typeof span === 'string') return markdownText(span);
  if ('value' in span) return code(span.value);
  if ('name' in span) return code(span.name);
  return `**${markdownText(span.stress)}**`;
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
    ...list.lines.map((line) => `- ${code(line.url)} ${markdown(line.pages)}; ${line.notes.map(markdown).join('; ')}`),
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
  if (statement.notRead !== undefined) return [...lines, ...paragraph(statement.notRead)];
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

function hasViolation(review: PolicyReview): boolean {
  return KINDS.some((kind) => review[kind].violations.blocks > 0 || review[kind].violations.maliciousAllowed > 0);
}

/**
 * The weaknesses of every CSP policy of the stack (`./weaknesses.ts`, issue 24, item 4), a table
 * for each policy that has some: severity, directive, source, and what is wrong and what to do.
 */
function weaknessesSection(policies: readonly PolicyReview[]): string[] {
  const weak = policiesWeaknesses(policies).filter(({ weaknesses }) => weaknesses.length > 0);
  const lines = ['### Weaknesses', ''];
  if (weak.length === 0) return [...lines, 'No CSP policy of the stack has a weakness of high or medium severity.', ''];
  lines.push(markdown(WEAKNESSES_ABOUT), '');
  for (const { policy, weaknesses } of weak)
    lines.push(
      `#### ${code(policy.name)} on ${markdown(hostPhrase(policy.hostname))}`,
      '',
      '| Severity | Directive | Source | What is wrong, and what to do |',
      '|---|---|---|---|',
      ...weaknesses.map(
        (weakness) =>
          `| **${weakness.severity}** | ${code(weakness.directive)} | ${weakness.source !== undefined ? markdownCell(code(weakness.source)) : 'missing'} | ${cell(weakness.message)} |`,
      ),
      '',
    );
  return lines;
}

function meaningTable(rows: MeaningRow[]): string[] {
  return [
    '| Resource | Kind | Change | What it means |',
    '|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${markdownCell(code(row.name))} | ${cell(row.resource)} | ${row.kind} | ${cell(row.changes.length > 0 ? row.changes.join('; ') : '')} |`,
    ),
  ];
}

/** The report as Markdown, for a pull request comment. */
export function renderMarkdown(report: ReviewReport): string {
  const mandatory = report.violations.filter((violation) => violation.level === 'mandatory');
  const verdict =
    report.exitCode === 2
      ? markdown(notDonePhrase(report.reason ?? 'unknown reason'))
      : mandatory.length > 0
        ? `**${plural(mandatory.length, 'mandatory policy violation')}**: the check fails.`
        : report.exitCode === 3
          ? `**No mandatory policy violation, but ${plural(report.drift?.length ?? 0, 'resource')} changed outside the stack** (see "Drift found by \`--refresh\`"): the check fails on drift.`
          : '**No mandatory policy violation.**';
  const out = [`## EdgeGuard review of ${code(`${report.project}/${report.stack}`)}`, '', verdict, ''];

  out.push('### Changes in meaning', '');
  out.push(...(report.changes.length > 0 ? meaningTable(report.changes) : ['The preview changes nothing.']), '');

  out.push('### Impact on the scripts and connections page security detected', '');
  // A policy whose host was not read (the scope change) says so under its own heading: the table
  // below claims its counts.
  const shown = report.policies.filter(
    (review) => isCreatedOrChanged(review) || hasViolation(review) || review.notRead !== undefined,
  );
  const quietPolicies = report.policies.filter((review) => !shown.includes(review));
  const quiet = quietPolicies.length;
  if (report.policies.length === 0) out.push('The stack has no CSP policy.', '');
  for (const review of shown) out.push(...policyMarkdown(policyStatement(review)));
  if (quiet > 0) {
    out.push(
      `${shown.length > 0 ? 'The other CSP policies' : 'The CSP policies'} of the stack, unchanged and without violation:`,
      '',
      '| Policy | Host | Action | Detected | Blocked or reported | Of which malicious | Blocked as mixed content | Unused sources |',
      '|---|---|---|---|---|---|---|---|',
      ...quietPolicies.flatMap((review) =>
        KINDS.map((kind) => {
          const impact = review[kind];
          const unused = impact.unusedSources.map(code).join(', ') || 'none';
          return `| ${markdownCell(code(review.name))} | ${markdownCell(markdown(hostPhrase(review.hostname)))} | ${stateOf(review)} | ${plural(impact.judged, KIND_WORDS[kind].noun)} | ${impact.notAllowed.count} | ${impact.notAllowedMalicious} | ${impact.mixedContent.count} | ${markdownCell(unused)} |`;
        }),
      ),
      '',
      // The browser blocks these whatever the policies say: named as a changed policy's part names them.
      ...quietPolicies.flatMap((review) =>
        KINDS.filter((kind) => review[kind].mixedContent.count > 0).flatMap((kind) =>
          listMarkdown(
            itemList(
              say`${named(review.name)} on ${hostPhrase(review.hostname)}: ${mixedContentTitle(review[kind].mixedContent.count, KIND_WORDS[kind].noun)}`,
              review[kind].mixedContent,
              review.name,
            ),
          ),
        ),
      ),
    );
  }
  for (const resource of report.unjudged) out.push(`- ${markdown(unjudgedPhrase(resource))}`);
  for (const coverage of report.pools.filter((pools) => pools.uncovered.count > 0))
    out.push(markdown(poolsPhrase(coverage)), '');

  if (report.policies.length > 0) out.push(...weaknessesSection(report.policies));

  if (report.inventories.length > 0) {
    out.push('### Payment-page scripts', '');
    for (const inventory of report.inventories) out.push(...inventoryMarkdown(inventoryStatement(inventory)));
  }

  if (report.drift !== null) {
    out.push('### Drift found by `--refresh`', '');
    out.push(...(report.drift.length > 0 ? meaningTable(report.drift) : ['Nothing changed outside the stack.']), '');
  }

  out.push('### Policy violations', '');
  if (report.violations.length === 0) out.push('None.', '');
  for (const violation of [...mandatory, ...report.violations.filter((v) => v.level !== 'mandatory')]) {
    const on = violation.resource !== undefined ? ` on ${code(violation.resource)}` : '';
    out.push(
      `- **${violation.level}** ${code(violation.policy)}${on}:`,
      '',
      ...markdownFence(violation.message, '  '),
      '',
    );
  }
  if (report.requests !== undefined)
    out.push(
      `<sub>The review read the service with ${plural(report.requests.made, 'request')} (at most ${report.requests.bound}: ${markdownText(report.requests.plan)}).</sub>`,
      '',
    );
  return out.join('\n');
}
