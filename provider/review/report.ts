import type { ScriptLine, ScriptSample } from './impact';
import type { MeaningRow } from './meaning';
import { pagesText, type Unjudged } from './pack-policies';
import { isCreatedOrChanged, type PolicyReview, type PoolCoverage, type ReviewRequests } from './plan';

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
}

/** What the review found, and how it ends. */
export interface ReviewReport {
  project: string;
  stack: string;
  /** 0: no mandatory violation; 1: at least one; 2: the review could not be done. */
  exitCode: 0 | 1 | 2;
  /** Why the review could not be done (exit 2). */
  reason?: string;
  /** Every resource the preview creates, updates, replaces or deletes, by meaning. */
  changes: MeaningRow[];
  /** What `--refresh` found changed outside the stack; `null` without `--refresh`. */
  drift: MeaningRow[] | null;
  /** Every CSP policy of the stack, judged against the detected scripts. */
  policies: PolicyReview[];
  /** The pools of migrated accounts left without alerts. */
  pools: PoolCoverage[];
  /** Resources the review could not judge, and why. */
  unjudged: Unjudged[];
  violations: ReportedViolation[];
  /** The requests the policy pack made, against its bound. */
  requests?: ReviewRequests;
}

/** Lines of a script list shown in the Markdown (the JSON holds every one kept). */
const LINES_SHOWN = 10;

/** Text for a Markdown table cell or inline: no line break, no unescaped `|`. */
function cell(value: string): string {
  return value.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function code(value: string): string {
  return `\`${value.replace(/`/g, "'")}\``;
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

function scriptLine(line: ScriptLine): string {
  const notes = [
    `last seen ${line.lastSeenAt}`,
    ...(line.status !== 'active' ? [`**${line.status}**`] : []),
    ...(line.malicious ? [`**malicious** (js_integrity_score ${line.jsIntegrityScore})`] : []),
    ...(line.accepted !== undefined ? [`accepted: ${line.accepted}`] : []),
  ];
  return `- ${code(line.url)} ${pagesText(line)}; ${notes.join('; ')}`;
}

function scriptList(title: string, sample: ScriptSample): string[] {
  if (sample.count === 0) return [];
  const shown = sample.scripts.slice(0, LINES_SHOWN);
  const more = sample.count - shown.length;
  return [`**${title}**`, '', ...shown.map(scriptLine), ...(more > 0 ? [`- and ${more} more`] : []), ''];
}

function effectText(review: PolicyReview): string {
  if (review.effect === 'block') return 'blocks what it does not allow';
  if (review.effect === 'report') return 'reports what it does not allow';
  return 'disabled: no effect';
}

function policySection(review: PolicyReview): string[] {
  const lines = [
    `#### ${code(review.name)}: ${review.action} on ${code(review.hostname ?? '?')} (${effectText(review)})`,
    '',
  ];
  const baseline = review.baseline;
  if (baseline === 'none') lines.push('Created.');
  else if ('unknown' in baseline) lines.push(`Not compared with a live policy: ${baseline.unknown}.`);
  else {
    lines.push(`Compared with the live policy ${code(baseline.id)}: ${code(baseline.value)}.`);
    if (baseline.hostname !== review.hostname)
      lines.push('', `Host: ${code(baseline.hostname ?? '?')} -> ${code(review.hostname ?? '?')}.`);
  }
  lines.push('');
  if (review.problem !== undefined) return [...lines, `It cannot be judged: ${review.problem}.`, ''];
  if (review.sourcesAdded !== null && review.sourcesAdded.length > 0)
    lines.push(`Sources added: ${review.sourcesAdded.map(code).join(', ')}.`, '');
  if (review.sourcesRemoved !== null && review.sourcesRemoved.length > 0)
    lines.push(`Sources removed: ${review.sourcesRemoved.map(code).join(', ')}.`, '');
  lines.push(`${plural(review.scriptsJudged, 'script')} detected on ${code(review.hostname ?? '?')}.`, '');
  const verb = review.effect === 'report' ? 'Reports' : 'Blocks';
  if (review.effect !== 'none') {
    lines.push(
      ...(review.notAllowed.count > 0
        ? scriptList(`${verb} ${plural(review.notAllowed.count, 'script')}`, review.notAllowed)
        : [`${verb} no detected script.`, '']),
    );
  }
  if (review.newlyBlocked !== null)
    lines.push(
      ...(review.newlyBlocked.count > 0
        ? scriptList(`Newly blocks ${plural(review.newlyBlocked.count, 'script')}`, review.newlyBlocked)
        : review.effect === 'block'
          ? ['Newly blocks no detected script.', '']
          : []),
    );
  if (review.newlyAllowed !== null)
    lines.push(...scriptList(`Newly allows ${plural(review.newlyAllowed.count, 'script')}`, review.newlyAllowed));
  lines.push(
    ...scriptList(
      `Allows ${plural(review.maliciousAllowed.count, 'malicious script')} (js_integrity_score below 10)`,
      review.maliciousAllowed,
    ),
  );
  if (review.unusedSources.length > 0)
    lines.push(
      `Sources that allow no detected script (candidates for removal): ${review.unusedSources.map(code).join(', ')}.`,
      '',
    );
  if (review.judgedOnFirstPageOnly > 0)
    lines.push(
      `${plural(review.judgedOnFirstPageOnly, 'script')} judged on its first page only: the review reads at most a bounded number of scripts' pages.`,
      '',
    );
  return lines;
}

function hasViolation(review: PolicyReview): boolean {
  return review.violations.blocks > 0 || review.violations.maliciousAllowed > 0;
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
      ? `**The review could not be done**: ${report.reason ?? 'unknown reason'}`
      : mandatory.length > 0
        ? `**${plural(mandatory.length, 'mandatory policy violation')}**: the check fails.`
        : '**No mandatory policy violation.**';
  const out = [`## EdgeGuard review of ${code(`${report.project}/${report.stack}`)}`, '', verdict, ''];

  out.push('### Changes in meaning', '');
  out.push(...(report.changes.length > 0 ? meaningTable(report.changes) : ['The preview changes nothing.']), '');

  out.push('### Impact on the scripts page security detected', '');
  const shown = report.policies.filter((review) => isCreatedOrChanged(review) || hasViolation(review));
  const quiet = report.policies.length - shown.length;
  if (report.policies.length === 0) out.push('The stack has no CSP policy.', '');
  for (const review of shown) out.push(...policySection(review));
  if (quiet > 0) {
    out.push(
      `${shown.length > 0 ? 'The other CSP policies' : 'The CSP policies'} of the stack, unchanged and without violation:`,
      '',
      '| Policy | Host | Action | Scripts detected | Blocked or reported | Of which malicious | Unused sources |',
      '|---|---|---|---|---|---|---|',
      ...report.policies
        .filter((review) => !shown.includes(review))
        .map((review) => {
          const unused = review.unusedSources.map(code).join(', ') || 'none';
          return `| ${code(review.name)} | ${code(review.hostname ?? '?')} | ${review.enabled ? review.action : `${review.action} (disabled)`} | ${review.scriptsJudged} | ${review.notAllowed.count} | ${review.notAllowedMalicious} | ${cell(unused)} |`;
        }),
      '',
    );
  }
  for (const resource of report.unjudged) out.push(`- ${code(resource.name)} cannot be judged: ${resource.reason}`);
  for (const coverage of report.pools.filter((pools) => pools.uncovered.count > 0)) {
    const more = coverage.uncovered.count - coverage.uncovered.names.length;
    out.push(
      `${code(coverage.name)} removes the legacy alert e-mails of account ${code(coverage.accountId)}, but ${coverage.uncovered.count} of its ${plural(coverage.pools, 'pool')} have no HealthNotification of this stack: ${coverage.uncovered.names.map(code).join(', ')}${more > 0 ? ` and ${more} more` : ''}.`,
      '',
    );
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
