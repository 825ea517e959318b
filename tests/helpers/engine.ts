import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  LocalWorkspace,
  PulumiCommand,
  type ConfigMap,
  type OpMap,
  type OutputMap,
  type PreviewOptions,
  type PreviewResult,
  type Stack,
  type UpOptions,
} from '@pulumi/pulumi/automation';
import { EMULATOR_ADMIN_TOKEN, EMULATOR_CONTROL_URL } from '../../provider/helpers/emulator-dns';
import { pulumiHome } from '../../scripts/pulumi-home';
import type { TestEmulator } from './emulator';
import { runToEnd } from './process';
import { REPO } from './repo';

/**
 * End-to-end tests drive the real `pulumi` binary (built by scripts/setup-pulumi.sh) through the
 * Automation API, against an emulator the test started. Each stack gets its own file backend and
 * PULUMI_HOME under `.edgeguard/e2e/` (inside the repository, so programs resolve
 * `pulumi-edgeguard` and `@pulumi/pulumi` as the root project does), whose plugins are the
 * project's plugin cache (scripts/pulumi-home.ts), and everything the engine prints is kept so a
 * test can search it (for a leaked credential, say). Programs get the emulator's control API
 * address (and admin token) in the environment, so that DNS records can be published there
 * (provider/helpers/emulator-dns.ts), unless `emulatorDns` is false.
 */

const WORK = path.join(REPO, '.edgeguard', 'e2e');
const PASSPHRASE = 'e2e-passphrase-not-a-secret';

/** The engine this repository built, or a suitable one on PATH; found once per test file (`pulumi version`). */
let command: Promise<PulumiCommand> | undefined;
function pulumiCommand(): Promise<PulumiCommand> {
  const built = path.join(REPO, '.tools', 'pulumi');
  command ??= fs.existsSync(path.join(built, 'bin', 'pulumi'))
    ? PulumiCommand.get({ root: built })
    : PulumiCommand.get();
  return command;
}

/**
 * Copies a Pulumi project (its `Pulumi.yaml` and program files, not stack files) into a fresh
 * folder, so a test can edit the program without touching the repository's copy.
 */
export function copyProject(projectDir: string): string {
  const target = path.join(WORK, `project-${randomUUID().slice(0, 8)}`);
  fs.mkdirSync(target, { recursive: true });
  for (const name of fs.readdirSync(projectDir)) {
    if (name === 'Pulumi.yaml' || name.endsWith('.ts') || name === 'README.md')
      fs.copyFileSync(path.join(projectDir, name), path.join(target, name));
  }
  return target;
}

/** The options of an engine operation that the tests give (the Automation API's names). */
type OperationOptions = Pick<UpOptions, 'policyPacks' | 'continueOnError' | 'expectNoChanges' | 'diff'>;

/** What an update, a refresh or a destroy did: what the engine printed, its summary and the stack's outputs. */
export interface OperationResult {
  stdout: string;
  stderr: string;
  /** The engine's summary: how the operation ended, and its count of each kind of step. */
  summary: { result: string; resourceChanges: OpMap };
  /**
   * The stack's outputs the operation left, as the engine reported them: a secret's value is the
   * engine's mask, `[secret]` ({@link EngineStack.outputs} has the values).
   */
  outputs: OutputMap;
}

/** The command line's flags for `options`, as the Automation API writes them. */
function flagsOf(options: OperationOptions): string[] {
  return [
    ...(options.policyPacks ?? []).flatMap((pack) => ['--policy-pack', pack]),
    ...(options.continueOnError ? ['--continue-on-error'] : []),
    ...(options.expectNoChanges ? ['--expect-no-changes'] : []),
    ...(options.diff ? ['--diff'] : []),
  ];
}

/** An event of the engine's event log (`--event-log`), the parts read here. */
interface EngineEvent {
  summaryEvent?: { result: string; resourceChanges: OpMap };
  resOutputsEvent?: { metadata: { type: string; new?: { outputs?: Record<string, unknown> } } };
}

/**
 * The summary of an operation and the stack's outputs after it, from the event log the engine
 * wrote; none when it wrote no summary.
 */
function eventsOf(eventLog: string): Pick<OperationResult, 'summary' | 'outputs'> | undefined {
  if (!fs.existsSync(eventLog)) return undefined;
  let summary: OperationResult['summary'] | undefined;
  let outputs: OutputMap = {};
  for (const line of fs.readFileSync(eventLog, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line) as EngineEvent;
    if (event.summaryEvent)
      summary = { result: event.summaryEvent.result, resourceChanges: event.summaryEvent.resourceChanges };
    const resource = event.resOutputsEvent?.metadata;
    if (resource?.type === 'pulumi:pulumi:Stack')
      outputs = Object.fromEntries(
        Object.entries(resource.new?.outputs ?? {}).map(([key, value]) => [
          key,
          { value, secret: value === '[secret]' },
        ]),
      );
  }
  return summary === undefined ? undefined : { summary, outputs };
}

/** Options of {@link engineStack}. */
export interface EngineStackOptions {
  /** The project directory (a copy is made unless `inPlace`). */
  projectDir: string;
  emu: TestEmulator;
  /** The API token the provider uses (the emulator must accept it). */
  token: string;
  /**
   * Give the providers the emulator's address and `token` through `EDGEGUARD_BASE_URL` and
   * `EDGEGUARD_API_TOKEN`, the settings' fallbacks; `false` leaves them to the program and the stack
   * configuration (a test of the configuration itself). Default `true`.
   */
  providerEnv?: boolean;
  /** Stack configuration, keys like `edgeguard-flagship:zoneId` or `edgeguard:apiToken`. */
  config?: ConfigMap;
  /** Run the project where it is (the root project, whose program must not be edited). */
  inPlace?: boolean;
  /** Give the programs the emulator's control API, as the demo does; `false` plays a real service. Default `true`. */
  emulatorDns?: boolean;
  /** The stack's name (a stack export can only be imported into a stack of its own name). Default `e2e-<random>`. */
  stackName?: string;
  /**
   * Let ts-node type-check the program at each run, as it does by default for a user: for a program
   * a tool wrote (`edgeguard-import`, `edgeguard-inventory`), which `tsc` has not checked. Default
   * `false`: `npm test` type-checks the repository's programs with `tsc` before any test, and
   * loading the checker costs about 2 s of CPU at every run of a program.
   */
  typeCheck?: boolean;
}

/** A stack of a project, with everything the engine printed for it. */
export interface EngineStack {
  stack: Stack;
  workDir: string;
  /** Everything the engine printed so far, across operations. */
  output: string[];
  preview(options?: PreviewOptions): Promise<PreviewResult>;
  up(options?: OperationOptions): Promise<OperationResult>;
  refresh(): Promise<OperationResult>;
  destroy(): Promise<OperationResult>;
  /** The stack's outputs, secrets shown (`pulumi stack output`, twice). */
  outputs(): Promise<OutputMap>;
  /** The stack's state file, as the backend keeps it. */
  stateText(): string;
  /** Removes the stack and its files. */
  dispose(): Promise<void>;
}

/** Creates a new stack of `projectDir` against `emu`. */
export async function engineStack(options: EngineStackOptions): Promise<EngineStack> {
  const id = randomUUID().slice(0, 8);
  const workDir = options.inPlace ? options.projectDir : copyProject(options.projectDir);
  const home = path.join(WORK, `home-${id}`);
  const backend = path.join(WORK, `backend-${id}`);
  pulumiHome(REPO, home);
  fs.mkdirSync(backend, { recursive: true });
  const stackName = options.stackName ?? `e2e-${id}`;
  const stack = await LocalWorkspace.createStack(
    { stackName, workDir },
    {
      pulumiCommand: await pulumiCommand(),
      envVars: {
        ...(options.providerEnv === false
          ? {}
          : { EDGEGUARD_BASE_URL: options.emu.baseUrl, EDGEGUARD_API_TOKEN: options.token }),
        PULUMI_BACKEND_URL: `file://${backend}`,
        PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
        PULUMI_HOME: home,
        PULUMI_SKIP_UPDATE_CHECK: 'true',
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true',
        PULUMI_NODEJS_TRANSPILE_ONLY: options.typeCheck === true ? 'false' : 'true',
        ...(options.emulatorDns === false
          ? {}
          : {
              [EMULATOR_CONTROL_URL]: options.emu.emulator.controlUrl,
              ...(options.emu.adminToken !== undefined ? { [EMULATOR_ADMIN_TOKEN]: options.emu.adminToken } : {}),
            }),
      },
    },
  );
  if (options.config) await stack.setAllConfig(options.config);
  const output: string[] = [];
  const onOutput = (text: string) => void output.push(text);
  const collect = <T extends { stdout: string; stderr: string }>(result: T): T => {
    output.push(result.stdout, result.stderr);
    return result;
  };
  const failing = async <T>(operation: Promise<T>): Promise<T> => {
    try {
      return await operation;
    } catch (error) {
      output.push(String((error as Error).message));
      throw error;
    }
  };
  let operations = 0;
  /**
   * `pulumi up`, `refresh` or `destroy` as the Automation API runs them (the same arguments and
   * environment), without what its methods run after each: `pulumi stack output` twice and `pulumi
   * stack history`, about 1.2 s of CPU, a fifth of an operation's. The counts of the steps are the
   * engine's summary event, from the event log it writes; {@link EngineStack.outputs} asks for the
   * outputs where a test reads them. A failed operation throws what the engine printed.
   */
  const operation = async (verb: 'up' | 'refresh' | 'destroy', options: OperationOptions): Promise<OperationResult> => {
    const eventLog = path.join(WORK, `events-${id}-${++operations}.jsonl`);
    const pulumi = stack.workspace.pulumiCommand.command;
    const args = [verb, '--yes', '--skip-preview', ...flagsOf(options), '--exec-kind', 'auto.local'];
    try {
      const result = await failing(
        runToEnd(pulumi, [...args, '--event-log', eventLog, '--stack', stackName, '--non-interactive'], {
          cwd: workDir,
          // This process's whole environment, as the Automation API passes it (with its previews).
          env: {
            ...(Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== undefined)) as Record<
              string,
              string
            >),
            ...stack.workspace.envVars,
            PULUMI_DEBUG_COMMANDS: 'true',
            PULUMI_AUTOMATION_API: 'true',
            PATH: `${path.dirname(pulumi)}${path.delimiter}${process.env.PATH ?? ''}`,
          },
          onStdout: onOutput,
        }).then((run) => {
          if (run.status !== 0)
            throw new Error(`code: ${run.status}\n stdout: ${run.stdout}\n stderr: ${run.stderr}\n`);
          return run;
        }),
      );
      const events = eventsOf(eventLog);
      if (events === undefined) throw new Error(`pulumi ${verb} succeeded but wrote no summary event`);
      return collect({ stdout: result.stdout, stderr: result.stderr, ...events });
    } finally {
      fs.rmSync(eventLog, { force: true });
    }
  };
  return {
    stack,
    workDir,
    output,
    preview: (previewOptions = {}) => failing(stack.preview({ ...previewOptions, onOutput }).then(collect)),
    up: (upOptions = {}) => operation('up', upOptions),
    refresh: () => operation('refresh', {}),
    destroy: () => operation('destroy', {}),
    outputs: () => stack.outputs(),
    stateText: () => {
      const stacksDir = path.join(backend, '.pulumi', 'stacks');
      const project = fs.readdirSync(stacksDir)[0]!;
      return fs.readFileSync(path.join(stacksDir, project, `${stackName}.json`), 'utf8');
    },
    // The stack is its files: its backend, its PULUMI_HOME and its settings file (no `pulumi stack
    // rm`, which would delete the backend's copy only for the folder to go next).
    dispose: async () => {
      fs.rmSync(path.join(workDir, `Pulumi.${stackName}.yaml`), { force: true });
      if (!options.inPlace) fs.rmSync(workDir, { recursive: true, force: true });
      fs.rmSync(home, { recursive: true, force: true });
      fs.rmSync(backend, { recursive: true, force: true });
    },
  };
}

/** The error an engine operation fails with; an operation that succeeds fails the test instead. */
export function failureOf(operation: Promise<unknown>): Promise<Error> {
  return operation.then(
    () => {
      throw new Error('the operation succeeded, but it was expected to fail');
    },
    (error: unknown) => error as Error,
  );
}
