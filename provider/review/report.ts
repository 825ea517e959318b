import { cell, code, inventoryMarkdown, markdown, policyMarkdown } from '../format/review-markdown';
import type { SourceLocation } from '../stack/program-location';
import type { MeaningRow } from './meaning';
import type { Unjudged } from './pack-input';
import type { InventoryReview } from '../payment/review';
import { inventoryStatement } from '../payment/statements';
import { isCreatedOrChanged, type PolicyReview, type PoolCoverage, type ReviewRequests } from './plan';
import {
  hostPhrase,
  KIND_WORDS,
  KINDS,
  notDonePhrase,
  plural,
  policyStatement,
  poolsPhrase,
  stateOf,
  unjudgedPhrase,
  WEAKNESSES_ABOUT,
} from './statements';
import { policiesWeaknesses } from './weaknesses';

/**
 * The review report of `edgeguard-review` (issue 9, item 3), as data (`--json`) and as Markdown
 * (`--markdown`) for a pull request comment. Pure: `./review-stack.ts` gathers what it holds.
 */

/** A policy violation the engine reported for the preview. */
export interface ReportedViolation {
  policy: string;
  /** `mandatory` fails the check; `advisory` informs. */
  level: 'mandatory' | 'advisory';
  /** The resource's name in the program, when the violation is about one. */
  resource?: string;
  urn?: string;
  message: string;
  /**
   * Where the program declares the resource, as the engine recorded it at the stack's last
   * deployment (`../stack/program-location.ts`); absent for a resource the stack does not hold yet.
   */
  declaredAt?: SourceLocation;
}

/** A place in the program: a file relative to the project folder (with `/`), a line and column from 1. */
/** What the review found, and how it ends. */
export interface ReviewReport {
  project: string;
  stack: string;
  /** The program's main file, relative to the project folder: where a violation not located at its resource is. */
  mainFile: string;
  /**
   * 0: no mandatory violation; 1: at least one; 2: the review could not be done; 3: asked to fail
   * on drift (`--fail-on-drift`), the refresh found a change made outside the stack, and there is
   * no mandatory violation (1 and 2 win).
   */
  exitCode: 0 | 1 | 2 | 3;
  /** Why the review could not be done (exit 2). */
  reason?: string;
  /** Every resource the preview creates, updates, replaces or deletes, by meaning. */
  changes: MeaningRow[];
  /** What `--refresh` found changed outside the stack; `null` without `--refresh`. */
  drift: MeaningRow[] | null;
  /** Every CSP policy of the stack, judged against the detected scripts and connections. */
  policies: PolicyReview[];
  /** The pools of migrated accounts left without alerts. */
  pools: PoolCoverage[];
  /**
   * Every script inventory of the stack: the scripts detected on its pages, judged against it as
   * the change leaves it, what the change does to its entries, and the CSP policies that enforce it.
   */
  inventories: InventoryReview[];
  /** Resources the review could not judge, and why. */
  unjudged: Unjudged[];
  violations: ReportedViolation[];
  /** The requests the policy pack made, against its bound. */
  requests?: ReviewRequests;
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
          `| **${weakness.severity}** | ${code(weakness.directive)} | ${weakness.source !== undefined ? cell(code(weakness.source)) : 'missing'} | ${cell(weakness.message)} |`,
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
        `| ${cell(code(row.name))} | ${cell(row.resource)} | ${row.kind} | ${cell(row.changes.length > 0 ? row.changes.join('; ') : '')} |`,
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
  const shown = report.policies.filter((review) => isCreatedOrChanged(review) || hasViolation(review));
  const quiet = report.policies.length - shown.length;
  if (report.policies.length === 0) out.push('The stack has no CSP policy.', '');
  for (const review of shown) out.push(...policyMarkdown(policyStatement(review)));
  if (quiet > 0) {
    out.push(
      `${shown.length > 0 ? 'The other CSP policies' : 'The CSP policies'} of the stack, unchanged and without violation:`,
      '',
      '| Policy | Host | Action | Detected | Blocked or reported | Of which malicious | Unused sources |',
      '|---|---|---|---|---|---|---|',
      ...report.policies
        .filter((review) => !shown.includes(review))
        .flatMap((review) =>
          KINDS.map((kind) => {
            const impact = review[kind];
            const unused = impact.unusedSources.map(code).join(', ') || 'none';
            return `| ${code(review.name)} | ${markdown(hostPhrase(review.hostname))} | ${stateOf(review)} | ${plural(impact.judged, KIND_WORDS[kind].noun)} | ${impact.notAllowed.count} | ${impact.notAllowedMalicious} | ${cell(unused)} |`;
          }),
        ),
      '',
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
      '  ```',
      ...violation.message.split('\n').map((line) => `  ${line}`),
      '  ```',
      '',
    );
  }
  if (report.requests !== undefined)
    out.push(
      `<sub>The review read the service with ${plural(report.requests.made, 'request')} (at most ${report.requests.bound}: ${cell(report.requests.plan)}).</sub>`,
      '',
    );
  return out.join('\n');
}
