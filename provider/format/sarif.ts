import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { EnforcementLevel } from '@pulumi/policy';
import type * as sarif from 'sarif';
import { PACK_POLICIES } from '../pack/policies';
import { policyHelp } from '../review/policy-help';
import type { ReportedViolation, ReviewReport } from '../review/report';
import { sarifText } from './escape';

/**
 * The review's policy violations as SARIF 2.1.0 (`edgeguard-review --sarif`, issue 24, item 6),
 * the format Checkov, tfsec and conftest give GitHub code scanning and other CI systems: one rule
 * per policy of the pack, one result per violation, located at the program line that declares the
 * resource where the engine recorded it (`ReportedViolation.declaredAt`), else at the program's
 * main file. Pure: `./review-stack.ts` gathers the locations.
 */

/** The package's own metadata, by the package's name, so from the sources as from `dist/`. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const PACKAGE = require('pulumi-edgeguard/package.json') as { version: string; repository: { url: string } };

/** The project's page: the repository's web address (`git+https://github.com/o/r.git` -> `https://github.com/o/r`). */
const HOME = PACKAGE.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

/** The guides at this version: the help's links are relative to this folder. */
const GUIDES = `${HOME}/blob/v${PACKAGE.version}/docs/guides/`;

/** The guide's section that tells what each policy of the pack reports (its table), at this version. */
const POLICIES_HELP = `${GUIDES}reviewing.md#the-policy-pack`;

/** A SARIF level for each enforcement level: what fails a check is an error, what informs a warning. */
const LEVELS: Record<EnforcementLevel, sarif.ReportingConfiguration.level> = {
  mandatory: 'error',
  remediate: 'error',
  advisory: 'warning',
  disabled: 'none',
};

/** A rule's title from the policy's name: `csp-blocks-detected-scripts` -> `CSP blocks detected scripts`. */
function titleOf(policy: string): string {
  const words = policy.split('-').map((word) => (word === 'csp' ? 'CSP' : word));
  const title = words.join(' ');
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/**
 * A rule's help, which code scanning shows with each alert: the guide's words for the policy
 * (`../review/policy-help.ts`), as Markdown with its links made absolute, and as text without the
 * Markdown; then the policy's description.
 */
function helpOf(policy: { name: string; description: string }): sarif.MultiformatMessageString {
  const reports = policyHelp(policy.name).reports;
  const sentence = (words: string) => `Reports ${words}.`;
  const markdown = reports.replace(/\]\((?![a-z]+:)([^)]+)\)/g, (_, target: string) => `](${GUIDES}${target})`);
  const text = reports.replace(/\[([^\]]+)\]\([^)]+\)/g, '$1').replace(/`/g, '');
  return {
    text: `${sentence(text)}\n\n${policy.description}\n\nThe policies of the pack: ${POLICIES_HELP}`,
    markdown: `${sentence(markdown)}\n\n${policy.description}\n\n[The policies of the pack](${POLICIES_HELP})`,
  };
}

/** The pack's policies as SARIF rules, in the pack's order, with what code scanning reads of each. */
function rules(): sarif.ReportingDescriptor[] {
  return PACK_POLICIES.map((policy) => {
    const { tags, securitySeverity } = policyHelp(policy.name);
    return {
      id: policy.name,
      shortDescription: { text: titleOf(policy.name) },
      fullDescription: { text: policy.description },
      defaultConfiguration: { level: LEVELS[policy.enforcementLevel ?? 'advisory'] },
      helpUri: POLICIES_HELP,
      help: helpOf({ name: policy.name, description: policy.description ?? '' }),
      properties: {
        tags: [...tags],
        ...(securitySeverity !== undefined ? { 'security-severity': securitySeverity } : {}),
      },
    };
  });
}

/**
 * What makes a finding the same from run to run, for code scanning's `partialFingerprints`: the
 * rule (the policy of the pack, so the kind of finding) and the resource it is about (its URN:
 * the CSP policy, the inventory, the migration; the project and stack for a finding about the
 * stack as a whole). Not the line, which moves as the program is edited, nor the message, whose
 * counts and listed scripts change from run to run while the finding stays: the pack reports one
 * violation per rule and resource, so no two results of a run share a fingerprint. Hashed, so
 * the value is short and says nothing.
 */
export function fingerprintOf(
  violation: Pick<ReportedViolation, 'policy' | 'urn'>,
  report: Pick<ReviewReport, 'project' | 'stack'>,
): string {
  const subject = violation.urn ?? `stack:${report.project}/${report.stack}`;
  return createHash('sha256').update(`${violation.policy}\u0000${subject}`).digest('hex');
}

/** A path of the program as a URI reference from the repository's root, each segment percent-encoded. */
function uriOf(projectPath: string, file: string): string {
  return path.posix.join(projectPath, file).split('/').map(encodeURIComponent).join('/');
}

function locationOf(violation: ReportedViolation, report: ReviewReport, projectPath: string): sarif.Location {
  const at = violation.declaredAt;
  return {
    physicalLocation: {
      artifactLocation: { uri: uriOf(projectPath, at?.file ?? report.mainFile) },
      region:
        at !== undefined
          ? { startLine: at.line, ...(at.column !== undefined ? { startColumn: at.column } : {}) }
          : { startLine: 1 },
    },
    ...(violation.urn !== undefined
      ? {
          logicalLocations: [
            { name: violation.resource ?? violation.urn, fullyQualifiedName: violation.urn, kind: 'resource' },
          ],
        }
      : {}),
  };
}

/**
 * The SARIF log of a review. `projectPath` is the project folder's path from the repository's
 * root (`''` at the root; see `pathInRepository`), since code scanning places a result by its
 * path there.
 *
 * Each result has a fingerprint of its rule and resource ({@link fingerprintOf}), so code scanning
 * follows one alert per policy and resource from run to run even when the line moves, and tells
 * apart the violations located at the main file's first line. Its message is the pack's, escaped
 * for SARIF (`./escape.ts`): a detected URL makes no link there. The run's category
 * (`automationDetails.id`) names the project and stack: each stack's uploads replace that stack's
 * alerts only.
 */
export function reviewSarif(report: ReviewReport, projectPath: string): sarif.Log {
  const results = report.violations.map((violation): sarif.Result => ({
    ruleId: violation.policy,
    level: violation.level === 'mandatory' ? 'error' : 'warning',
    message: { text: sarifText(violation.message) },
    locations: [locationOf(violation, report, projectPath)],
    partialFingerprints: { 'edgeguardFinding/v1': fingerprintOf(violation, report) },
  }));
  return {
    $schema: 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'EdgeGuard', version: PACKAGE.version, informationUri: HOME, rules: rules() } },
        automationDetails: { id: `edgeguard-review/${report.project}/${report.stack}/` },
        invocations: [
          {
            executionSuccessful: report.exitCode !== 2,
            ...(report.reason !== undefined
              ? { toolExecutionNotifications: [{ level: 'error', message: { text: sarifText(report.reason) } }] }
              : {}),
          },
        ],
        results,
      },
    ],
  };
}
