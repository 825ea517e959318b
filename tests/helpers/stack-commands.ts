import * as fs from 'node:fs';
import * as path from 'node:path';
import { auditEvidenceSchema, type AuditEvidence } from '../../provider/payment/evidence-schema';
import type { EngineStack } from './engine';
import { runToEnd, type Finished } from './process';
import { REPO } from './repo';
import { REVIEW_AHEAD_PRIORITY_ENV } from '../../provider/review/pack-env';

/**
 * The package's built commands that work on a stack (`edgeguard-review`, `edgeguard-audit`,
 * `edgeguard-probe`), run on
 * an engine test's stack as a CI job runs them: from the project's folder and the stack's name,
 * the engine this repository built on PATH, the stack's backend and passphrase in the environment,
 * and no EDGEGUARD_* variable, so the service's settings can only come from the stack's
 * configuration; but one: the review's read ahead at the usual priority
 * ({@link REVIEW_AHEAD_PRIORITY_ENV}). At the lowest, on a machine whose cores other work keeps
 * busy, the child that reads ahead starves, and the review, once the program has run, reads on for
 * itself: what these tests say of the read ahead through the engine would depend on the machine's
 * load. The lowest priority, and the review reading on, have their own tests
 * (tests/service/review/read-ahead-failures.test.ts).
 */

const PULUMI_BIN = path.join(REPO, '.tools', 'pulumi', 'bin');

/** The built `edgeguard-review`. */
export const REVIEW_CLI = path.join(REPO, 'dist', 'provider', 'cli', 'review.js');
/** The built `edgeguard-audit`. */
export const AUDIT_CLI = path.join(REPO, 'dist', 'provider', 'cli', 'audit.js');
/** The built `edgeguard-probe`. */
export const PROBE_CLI = path.join(REPO, 'dist', 'provider', 'cli', 'probe.js');

/**
 * Runs the built command `cli` with `--cwd <project> --stack <stack>` and `args`, as a CI job on
 * `engine`'s stack (`stack` names another stack of the project, or one that does not exist).
 */
export function runOnStack(
  engine: EngineStack,
  cli: string,
  args: readonly string[],
  stack: string = engine.stack.name,
): Promise<Finished> {
  const env = Object.fromEntries(
    Object.entries(engine.stack.workspace.envVars).filter(([name]) => !name.startsWith('EDGEGUARD_')),
  );
  return runToEnd(process.execPath, [cli, '--cwd', engine.workDir, '--stack', stack, ...args], {
    env: { ...env, [REVIEW_AHEAD_PRIORITY_ENV]: 'usual', PATH: `${PULUMI_BIN}:${process.env.PATH ?? ''}` },
  });
}

/** The text of `file`, which a run wrote anew (removed first), or undefined when it wrote none. */
function written(file: string): string | undefined {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
}

/** Files a command may write, in the project's folder, removed so that what remains after a run is its own. */
function outputFiles<T extends string>(engine: EngineStack, names: Record<T, string>): Record<T, string> {
  const files = Object.fromEntries(
    Object.entries<string>(names).map(([flag, name]) => [flag, path.join(engine.workDir, name)]),
  ) as Record<T, string>;
  for (const file of Object.values<string>(files)) fs.rmSync(file, { force: true });
  return files;
}

/** How `edgeguard-review` ended, with the report it wrote. */
export interface ReviewRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The report as Markdown (`--markdown`), or '' when none was written. */
  markdown: string;
  /** The report as JSON (`--json`), parsed; undefined when none was written. */
  json: any;
}

/**
 * `edgeguard-review --markdown <file> --json <file> ...extra` on `engine`'s stack as a CI job runs
 * it ({@link runOnStack}).
 */
export async function runReview(engine: EngineStack, ...extra: string[]): Promise<ReviewRun> {
  const files = outputFiles(engine, { markdown: 'review.md', json: 'review.json' });
  const run = await runOnStack(engine, REVIEW_CLI, ['--markdown', files.markdown, '--json', files.json, ...extra]);
  const json = written(files.json);
  return {
    code: run.status,
    stdout: run.stdout,
    stderr: run.stderr,
    markdown: written(files.markdown) ?? '',
    json: json === undefined ? undefined : (JSON.parse(json) as unknown),
  };
}

/** The violations of a review's JSON, each message by `<level> <policy>`. */
export function violationsOf(json: {
  violations: Array<{ policy: string; level: string; message: string }>;
}): Record<string, string> {
  return Object.fromEntries(json.violations.map((v) => [`${v.level} ${v.policy}`, v.message]));
}

/** The review Markdown's Payment-page scripts section ('' when it has none). */
export function paymentSection(markdown: string): string {
  return markdown.split('\n### Payment-page scripts\n')[1]?.split('\n### ')[0] ?? '';
}

/** How `edgeguard-audit` ended: the Markdown on stdout, and the files it wrote. */
export interface AuditRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The files written, by flag: none when it wrote none. */
  files: { json?: string; html?: string };
}

/**
 * `edgeguard-audit --markdown - --json <file> --html <file>` on `stack` of `engine`'s project as a
 * weekly job runs it ({@link runOnStack}).
 */
export async function runAudit(engine: EngineStack, stack: string = engine.stack.name): Promise<AuditRun> {
  const files = outputFiles(engine, { json: 'audit.json', html: 'audit.html' });
  const run = await runOnStack(
    engine,
    AUDIT_CLI,
    ['--markdown', '-', '--json', files.json, '--html', files.html],
    stack,
  );
  const [json, html] = [written(files.json), written(files.html)];
  return {
    code: run.status,
    stdout: run.stdout,
    stderr: run.stderr,
    files: { ...(json !== undefined ? { json } : {}), ...(html !== undefined ? { html } : {}) },
  };
}

/** The evidence of an audit's JSON (`--json`), checked against its schema. */
export function evidenceOf(run: AuditRun): AuditEvidence {
  return auditEvidenceSchema.parse(JSON.parse(run.files.json!));
}
