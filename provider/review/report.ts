import { GOVERNING_DIRECTIVES } from '../../rules/csp-match';
import type { DetectedImpact, DetectedLine, DetectedSample } from './impact';
import type { MeaningRow } from './meaning';
import { headersText, pagesText, verdictNotes, type Unjudged } from './pack-policies';
import { isCreatedOrChanged, type PolicyReview, type PoolCoverage, type ReviewRequests } from './plan';
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
   * deployment (`./program-location.ts`); absent for a resource the stack does not hold yet.
   */
  declaredAt?: SourceLocation;
}

/** A place in the program: a file relative to the project folder (with `/`), a line and column from 1. */
export interface SourceLocation {
  file: string;
  line: number;
  column?: number;
}

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
  /** Resources the review could not judge, and why. */
  unjudged: Unjudged[];
  violations: ReportedViolation[];
  /** The requests the policy pack made, against its bound. */
  requests?: ReviewRequests;
}

/** Lines of a list shown in the Markdown (the JSON holds every one kept). */
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

/** One item of a list of the policy named `self`: where, when, why malicious, and what the host's headers and the browsers do with it. */
function itemLine(line: DetectedLine, self: string): string {
  const notes = [
    `last seen ${line.lastSeenAt}`,
    ...(line.status !== 'active' ? [`**${line.status}**`] : []),
    ...(line.maliciousBecause !== undefined ? [`**malicious** (${line.maliciousBecause})`] : []),
    ...(line.accepted !== undefined ? [`accepted: ${line.accepted}`] : []),
    ...verdictNotes(line, self),
  ];
  return `- ${code(line.url)} ${pagesText(line)}; ${cell(notes.join('; '))}`;
}

function itemList(title: string, sample: DetectedSample, self: string): string[] {
  if (sample.count === 0) return [];
  const shown = sample.lines.slice(0, LINES_SHOWN);
  const more = sample.count - shown.length;
  return [
    `**${title}**`,
    '',
    ...shown.map((line) => itemLine(line, self)),
    ...(more > 0 ? [`- and ${more} more`] : []),
    '',
  ];
}

function effectText(review: PolicyReview): string {
  if (review.effect === 'block') return 'blocks what it does not allow';
  if (review.effect === 'report') return 'reports what it does not allow';
  return 'disabled: no effect';
}

/** The two kinds a policy is judged on: the review's field, its noun, and why one is malicious. */
const KINDS = [
  { field: 'scripts', kind: 'script', noun: 'script', malicious: 'js_integrity_score below 10' },
  { field: 'connections', kind: 'connection', noun: 'connection', malicious: 'reported by the service' },
] as const;

/** What a policy does to one kind of detected item. */
function kindSection(review: PolicyReview, kind: (typeof KINDS)[number]): string[] {
  const impact: DetectedImpact = review[kind.field];
  const host = code(review.hostname ?? '?');
  const lines = [`${plural(impact.judged, kind.noun)} detected on ${host}.`, ''];
  const list = (title: string, sample: DetectedSample) => itemList(title, sample, review.name);
  // What the host's other headers and the browser block, whatever this policy says.
  const onHost = [
    ...list(
      `Other policies of the host block ${plural(impact.blockedByOthers.count, kind.noun)} this one does not`,
      impact.blockedByOthers,
    ),
    ...list(
      `Blocked by the browser as mixed content, whatever the policies say: ${plural(impact.mixedContent.count, kind.noun)} (http: or ws: from an https: page that no upgrade-insecure-requests rewrites; neither allowed nor a policy's block)`,
      impact.mixedContent,
    ),
  ];
  if (impact.governedBy === null)
    return [
      ...lines,
      `The policy has none of ${GOVERNING_DIRECTIVES[kind.kind].map(code).join(', ')}: it restricts no ${kind.noun}.`,
      '',
      ...onHost,
    ];
  const verb = review.effect === 'report' ? 'Reports' : 'Blocks';
  if (review.effect !== 'none') {
    lines.push(
      ...(impact.notAllowed.count > 0
        ? list(`${verb} ${plural(impact.notAllowed.count, kind.noun)}`, impact.notAllowed)
        : [`${verb} no detected ${kind.noun}.`, '']),
    );
  }
  if (impact.newlyBlocked !== null)
    lines.push(
      ...(impact.newlyBlocked.count > 0
        ? list(`Newly blocks ${plural(impact.newlyBlocked.count, kind.noun)}`, impact.newlyBlocked)
        : review.effect === 'block'
          ? [`Newly blocks no detected ${kind.noun}.`, '']
          : []),
    );
  if (impact.newlyAllowed !== null)
    lines.push(...list(`Newly allows ${plural(impact.newlyAllowed.count, kind.noun)}`, impact.newlyAllowed));
  lines.push(...onHost);
  lines.push(
    ...list(
      `Allows ${plural(impact.maliciousAllowed.count, `malicious ${kind.noun}`)} (${kind.malicious})`,
      impact.maliciousAllowed,
    ),
  );
  if (impact.unusedSources.length > 0)
    lines.push(
      `Sources that allow no detected ${kind.noun} (candidates for removal): ${impact.unusedSources.map(code).join(', ')}.`,
      '',
    );
  if (impact.judgedOnFirstPageOnly > 0)
    lines.push(
      kind.field === 'scripts'
        ? `${plural(impact.judgedOnFirstPageOnly, kind.noun)} judged on its first page only: the review reads at most a bounded number of scripts' pages.`
        : `${plural(impact.judgedOnFirstPageOnly, kind.noun)} judged on its first page only: the service gives a connection's first page alone, and the verdict depends on the page's scheme.`,
      '',
    );
  return lines;
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
  const headers = headersText(review);
  if (headers !== undefined) lines.push(cell(headers), '');
  for (const kind of KINDS) {
    const governedBy = review[kind.field].governedBy;
    lines.push(
      `##### ${kind.noun === 'script' ? 'Scripts' : 'Connections'} (${governedBy !== null ? code(governedBy) : 'not restricted'})`,
      '',
      ...kindSection(review, kind),
    );
  }
  return lines;
}

function hasViolation(review: PolicyReview): boolean {
  return KINDS.some(
    ({ field }) => review[field].violations.blocks > 0 || review[field].violations.maliciousAllowed > 0,
  );
}

/**
 * The weaknesses of every CSP policy of the stack (`./weaknesses.ts`, issue 24, item 4), a table
 * for each policy that has some: severity, directive, source, and what is wrong and what to do.
 */
function weaknessesSection(policies: readonly PolicyReview[]): string[] {
  const weak = policiesWeaknesses(policies).filter(({ weaknesses }) => weaknesses.length > 0);
  const lines = ['### Weaknesses', ''];
  if (weak.length === 0) return [...lines, 'No CSP policy of the stack has a weakness of high or medium severity.', ''];
  lines.push(
    "What each policy lets in that injected markup can use to run code past it, of high and medium severity, as Google's CSP Evaluator finds it; advice the service cannot follow (nonces, `'strict-dynamic'`, reporting) is left out.",
    '',
  );
  for (const { policy, weaknesses } of weak)
    lines.push(
      `#### ${code(policy.name)} on ${code(policy.hostname ?? '?')}`,
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
      ? `**The review could not be done**: ${report.reason ?? 'unknown reason'}`
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
  for (const review of shown) out.push(...policySection(review));
  if (quiet > 0) {
    out.push(
      `${shown.length > 0 ? 'The other CSP policies' : 'The CSP policies'} of the stack, unchanged and without violation:`,
      '',
      '| Policy | Host | Action | Detected | Blocked or reported | Of which malicious | Unused sources |',
      '|---|---|---|---|---|---|---|',
      ...report.policies
        .filter((review) => !shown.includes(review))
        .flatMap((review) =>
          KINDS.map(({ field, noun }) => {
            const impact = review[field];
            const unused = impact.unusedSources.map(code).join(', ') || 'none';
            return `| ${code(review.name)} | ${code(review.hostname ?? '?')} | ${review.enabled ? review.action : `${review.action} (disabled)`} | ${plural(impact.judged, noun)} | ${impact.notAllowed.count} | ${impact.notAllowedMalicious} | ${cell(unused)} |`;
          }),
        ),
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

  if (report.policies.length > 0) out.push(...weaknessesSection(report.policies));

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
