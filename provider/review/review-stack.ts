import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ConfigMap, EngineEvent } from '@pulumi/pulumi/automation';
import { nameOf } from '../stack/export';
import { meaningOf, type ChangeKind, type MeaningRow, type ResourceChange } from './meaning';
import type { PackOutput } from './pack-analysis';
import { REVIEW_BASELINE_ENV, REVIEW_OUTPUT_ENV } from './pack-env';
import { openStack, type StackLocation } from '../stack/open';
import { PulumiCommandError, type StackCommands } from '../stack/stack-commands';
import { SETTINGS } from '../settings';
import { locateViolations, mainFileOf } from '../stack/program-location';
import type { ReportedViolation, ReviewReport } from './report';

/**
 * The review of a Pulumi project's stack (`edgeguard-review`, and the end of `npm run demo`): one
 * `pulumi preview` through the Automation API with EdgeGuard's policy pack, which does the
 * reading and judging; this gathers what the engine and the pack report into a {@link ReviewReport}.
 *
 * The pack reads the service with the stack's `edgeguard:*` configuration, which this puts in the
 * preview's environment ({@link packSettingsEnv}): the pack reads its settings from there alone
 * (`./pack-config.ts`). It also gets the stack's state before the change (`pulumi stack export`),
 * to compare changed policies with the live ones, and a file to write its review to.
 */

/**
 * The executable form of the policy pack, the one this engine runs: `policy-pack/` of the
 * package, found above this module (compiled under `dist/`, or run from the sources).
 */
export const POLICY_PACK = ((): string => {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const pack = path.join(dir, 'policy-pack', 'edgeguard-policy-pack');
    if (fs.existsSync(pack)) return pack;
  }
  throw new Error(`the policy pack (policy-pack/edgeguard-policy-pack) is not above ${__dirname}`);
})();

/**
 * The settings' variables (`EDGEGUARD_BASE_URL`, `EDGEGUARD_API_TOKEN`, ...: `../settings.ts`'s
 * table) of the stack's `edgeguard:*` configuration, secrets decrypted, for the preview's
 * environment, over the caller's: the pack then reads the service with the same settings as the
 * stack's resources, which read the stack's configuration first and the environment after, key by
 * key (a key the stack leaves out keeps the caller's variable; one the stack sets empty is empty
 * for both). The settings' own variables rather than one of the review's own:
 * the pack resolves them with the settings table, as every component does, and a pack run by hand
 * reads the variables a user sets for any other EdgeGuard tool; the program, which gets the same
 * environment, reads the same values from the stack first. The values live in this process's
 * memory and the preview's environment alone: never written to a file, printed or put in an error.
 */
export function packSettingsEnv(config: ConfigMap): Record<string, string> {
  const env: Record<string, string> = {};
  for (const setting of Object.values(SETTINGS)) {
    const value = config[`edgeguard:${setting.key}`]?.value;
    if (value !== undefined) env[setting.env] = value;
  }
  return env;
}

/** The stack's configuration, secrets decrypted; a failure says why without the command's output, which may hold them. */
async function stackConfig(stack: StackCommands): Promise<ConfigMap> {
  try {
    return await stack.getAllConfig();
  } catch (error) {
    if (!(error instanceof PulumiCommandError)) throw error;
    // What the command said on stderr; its stdout, the configuration, is never kept.
    throw new Error(`the stack's configuration could not be read (pulumi config): ${lastLines(error.stderr)}`, {
      cause: error,
    });
  }
}

/** The pack configuration `edgeguard-review` uses when the project holds one and none is given. */
export const DEFAULT_POLICY_CONFIG = 'edgeguard-policy-config.json';

/** Options of {@link reviewStack}. */
export interface ReviewStackOptions extends StackLocation {
  /** Refresh first (`pulumi preview --refresh`), and report what changed outside the stack. */
  refresh?: boolean;
  /** With `refresh`: end with exit code 3 when something changed outside the stack and nothing worse was found. */
  failOnDrift?: boolean;
  /** A policy pack configuration (JSON): enforcement levels and accepted scripts. */
  policyConfig?: string;
  /** What the preview prints, as it prints it. Default: dropped. */
  onOutput?: (text: string) => void;
}

const KINDS: Record<string, ChangeKind> = {
  create: 'create',
  update: 'update',
  replace: 'replace',
  'create-replacement': 'replace',
  'delete-replaced': 'replace',
  delete: 'delete',
  discard: 'delete',
};

/** What the engine's events say the preview does, resource by resource, and what a refresh found. */
class EventLog {
  private readonly steps = new Map<string, ResourceChange>();
  private readonly drifted = new Map<string, ResourceChange>();
  readonly violations: ReportedViolation[] = [];
  readonly errors: string[] = [];

  onEvent = (event: EngineEvent): void => {
    const step = event.resourcePreEvent?.metadata ?? event.resOutputsEvent?.metadata;
    if (step !== undefined) this.onStep(step, event.resOutputsEvent !== undefined);
    const policy = event.policyEvent;
    if (policy !== undefined) {
      this.violations.push({
        policy: policy.policyName,
        level: policy.enforcementLevel === 'mandatory' ? 'mandatory' : 'advisory',
        ...(policy.resourceUrn ? { resource: nameOf(policy.resourceUrn), urn: policy.resourceUrn } : {}),
        message: policy.message.trim(),
      });
    }
    const diagnostic = event.diagnosticEvent;
    if (diagnostic?.severity === 'error') this.errors.push(diagnostic.message.trim());
  };

  private onStep(step: NonNullable<EngineEvent['resourcePreEvent']>['metadata'], done: boolean): void {
    if (step.type.startsWith('pulumi:providers:') || step.type === 'pulumi:pulumi:Stack') return;
    if (step.op === 'refresh') {
      // The refresh's outcome is in its outputs event: the state before, and as read now.
      if (!done) return;
      const before = step.old?.outputs ?? {};
      const after = step.new?.outputs;
      const gone = after === undefined || Object.keys(after).length === 0;
      const row = { urn: step.urn, type: step.type, kind: gone ? 'delete' : 'update', olds: before } as const;
      if (gone || JSON.stringify(withoutProvider(before)) !== JSON.stringify(withoutProvider(after)))
        this.drifted.set(step.urn, gone ? row : { ...row, news: after });
      return;
    }
    const kind = KINDS[step.op];
    if (kind === undefined) return;
    const known = this.steps.get(step.urn);
    this.steps.set(step.urn, {
      urn: step.urn,
      type: step.type,
      kind: known?.kind === 'replace' ? 'replace' : kind,
      ...((known?.olds ?? step.old?.inputs) !== undefined ? { olds: known?.olds ?? step.old?.inputs } : {}),
      ...((step.new?.inputs ?? known?.news) !== undefined ? { news: step.new?.inputs ?? known?.news } : {}),
    });
  }

  changes(): MeaningRow[] {
    return [...this.steps.values()].map(meaningOf);
  }

  drift(): MeaningRow[] {
    return [...this.drifted.values()].map((change) => {
      const row = meaningOf(change);
      return change.kind === 'delete' ? { ...row, changes: ['gone: deleted outside the stack'] } : row;
    });
  }
}

function withoutProvider(outputs: Record<string, unknown>): Record<string, unknown> {
  const { __provider: _provider, ...rest } = outputs;
  return rest;
}

/** The review of a stack: a preview with the policy pack, and what it found. */
export async function reviewStack(options: ReviewStackOptions): Promise<ReviewReport> {
  const { stack, stackName, settings } = await openStack(options);

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-review-'));
  try {
    const baseline = path.join(scratch, 'baseline.json');
    // Two engine commands side by side: each is a process of its own, most of its time starting.
    const [before, config] = await Promise.all([stack.exportStack(), stackConfig(stack)]);
    fs.writeFileSync(baseline, JSON.stringify(before));
    const output = path.join(scratch, 'review.json');
    stack.envVars = {
      ...stack.envVars,
      ...packSettingsEnv(config),
      [REVIEW_BASELINE_ENV]: baseline,
      [REVIEW_OUTPUT_ENV]: output,
    };
    const events = new EventLog();
    let failure: string | undefined;
    try {
      await stack.preview({
        policyPacks: [POLICY_PACK],
        ...(options.policyConfig !== undefined ? { policyPackConfigs: [path.resolve(options.policyConfig)] } : {}),
        refresh: options.refresh ?? false,
        onEvent: events.onEvent,
        onOutput: options.onOutput ?? (() => undefined),
      });
    } catch (error) {
      if (!(error instanceof PulumiCommandError)) throw error;
      failure = events.errors.join('; ') || lastLines(error.stderr);
    }

    const packOutput = readPackOutput(output);
    const mandatory = events.violations.filter((violation) => violation.level === 'mandatory');
    let exitCode: ReviewReport['exitCode'];
    let reason: string | undefined;
    if (packOutput?.error !== undefined) {
      exitCode = 2;
      reason = packOutput.error;
    } else if (packOutput === undefined) {
      exitCode = 2;
      reason = `the policy pack reported nothing${failure !== undefined ? `; the preview failed: ${failure}` : ''}`;
    } else if (mandatory.length > 0) exitCode = 1;
    else if (failure !== undefined) {
      exitCode = 2;
      reason = `the preview failed: ${failure}`;
    } else exitCode = 0;
    const drift = options.refresh ? events.drift() : null;
    if (exitCode === 0 && options.failOnDrift && drift !== null && drift.length > 0) exitCode = 3;

    return {
      project: settings.name,
      stack: stackName,
      mainFile: mainFileOf(options.workDir, settings),
      exitCode,
      ...(reason !== undefined ? { reason } : {}),
      changes: events.changes(),
      drift,
      policies: packOutput?.review?.policies ?? [],
      pools: packOutput?.review?.pools ?? [],
      inventories: packOutput?.review?.inventories ?? [],
      unjudged: packOutput?.unjudged ?? [],
      violations: locateViolations(events.violations, before, options.workDir),
      ...(packOutput?.review?.requests ? { requests: packOutput.review.requests } : {}),
    };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function readPackOutput(file: string): PackOutput | undefined {
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, 'utf8')) as PackOutput;
}

/** The end of a long engine message, where its reason is. */
function lastLines(text: string): string {
  return text.trim().split('\n').slice(-5).join(' ').slice(-1000);
}
