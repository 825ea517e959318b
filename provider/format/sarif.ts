import * as path from 'node:path';
import type { EnforcementLevel } from '@pulumi/policy';
import type * as sarif from 'sarif';
import { PACK_POLICIES } from '../review/pack-policies';
import type { ReportedViolation, ReviewReport } from '../review/report';

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

/** The guide's section that tells what each policy of the pack reports (its table), at this version. */
const POLICIES_HELP = `${HOME}/blob/v${PACKAGE.version}/docs/guides/reviewing.md#the-policy-pack`;

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

/** The pack's policies as SARIF rules, in the pack's order. */
function rules(): sarif.ReportingDescriptor[] {
  return PACK_POLICIES.map((policy) => ({
    id: policy.name,
    shortDescription: { text: titleOf(policy.name) },
    fullDescription: { text: policy.description },
    defaultConfiguration: { level: LEVELS[policy.enforcementLevel ?? 'advisory'] },
    helpUri: POLICIES_HELP,
  }));
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
 * Each result has a fingerprint of its resource (its URN, or the stack's for a violation about
 * the stack), so code scanning follows one alert per policy and resource from run to run even
 * when the line moves, and tells apart the violations located at the main file's first line.
 * The run's category (`automationDetails.id`) names the project and stack: each stack's
 * uploads replace that stack's alerts only.
 */
export function reviewSarif(report: ReviewReport, projectPath: string): sarif.Log {
  const results = report.violations.map((violation): sarif.Result => ({
    ruleId: violation.policy,
    level: violation.level === 'mandatory' ? 'error' : 'warning',
    message: { text: violation.message },
    locations: [locationOf(violation, report, projectPath)],
    partialFingerprints: { 'edgeguardResource/v1': violation.urn ?? `${report.project}/${report.stack}` },
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
              ? { toolExecutionNotifications: [{ level: 'error', message: { text: report.reason } }] }
              : {}),
          },
        ],
        results,
      },
    ],
  };
}
