import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type {
  ConfigMap,
  ConfigValue,
  Deployment,
  OpMap,
  OutputMap,
  PreviewOptions,
  PreviewResult,
  StackSummary,
  UpOptions,
} from '@pulumi/pulumi/automation';
import { EMULATOR_ADMIN_TOKEN, EMULATOR_CONTROL_URL } from '../../provider/helpers/emulator-dns';
import { PulumiCommandError, runPulumi, StackCommands } from '../../provider/stack/stack-commands';
import { pulumiHome } from '../../scripts/pulumi-home';
import type { TestEmulator } from './emulator';
import { REPO } from './repo';

/**
 * End-to-end tests drive the real `pulumi` binary (built by scripts/setup-pulumi.sh) as the
 * Automation API does, without loading it (provider/stack/stack-commands.ts runs the commands),
 * against an emulator the test started. Each stack gets its own file backend and
 * PULUMI_HOME under `.edgeguard/e2e/` (inside the repository, so programs resolve
 * `pulumi-edgeguard` and `@pulumi/pulumi` as the root project does), whose plugins are the
 * project's plugin cache (scripts/pulumi-home.ts), and everything the engine prints is kept so a
 * test can search it (for a leaked credential, say). Programs get the emulator's control API
 * address (and admin token) in the environment, so that DNS records can be published there
 * (provider/helpers/emulator-dns.ts), unless `emulatorDns` is false.
 */

const WORK = path.join(REPO, '.edgeguard', 'e2e');
const PASSPHRASE = 'e2e-passphrase-not-a-secret';

/**
 * The engine this repository built, or a suitable one on PATH, as the Automation API's
 * `PulumiCommand.get` finds it (without its `pulumi version`: the set-up builds the version the project pins).
 */
function pulumiCommand(): string {
  const built = path.join(REPO, '.tools', 'pulumi', 'bin', 'pulumi');
  return fs.existsSync(built) ? built : 'pulumi';
}

/**
 * {@link runPulumi}, failing as the Automation API's commands failed: an error whose message is its
 * `CommandError`'s, `code: N`, what the command printed on both streams (a test searches either
 * for the engine's diagnostics) and the command line. {@link PulumiCommandError} keeps no standard
 * output (it may hold decrypted secrets, which a test's stack does not), so it is kept here as it
 * comes.
 */
async function pulumiRun(
  ...[pulumi, args, cwd, envVars, onOutput]: Parameters<typeof runPulumi>
): ReturnType<typeof runPulumi> {
  let stdout = '';
  try {
    return await runPulumi(pulumi, args, cwd, envVars, (text) => {
      stdout += text;
      onOutput?.(text);
    });
  } catch (error) {
    if (!(error instanceof PulumiCommandError)) throw error;
    const line = [pulumi, ...args, '--non-interactive'].join(' ');
    throw new Error(
      `code: ${error.code}\n stdout: ${stdout}\n stderr: ${error.stderr}\n err?: Error: Command failed with exit code ${error.code}: ${line}\n`,
      { cause: error },
    );
  }
}

/**
 * The commands of a stack, run through {@link pulumiRun}: `exportStack` and `getAllConfig` as the
 * package's commands run them, and the rest of the Automation API's `Stack` that the tests use.
 */
class TestStackCommands extends StackCommands {
  override run(
    args: readonly string[],
    onOutput?: (text: string) => void,
  ): Promise<{ stdout: string; stderr: string }> {
    return pulumiRun(this.pulumi, [...args, '--stack', this.name], this.workDir, this.envVars, onOutput);
  }
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

/** The options of a preview that the tests give (the Automation API's names). */
type EnginePreviewOptions = Pick<
  PreviewOptions,
  'policyPacks' | 'policyPackConfigs' | 'expectNoChanges' | 'refresh' | 'diff' | 'onOutput'
>;

/**
 * The workspace of a stack, the members of the Automation API's `LocalWorkspace` that the tests
 * use, with its semantics: the environment of every command (a test may replace it), the engine,
 * and the project's other stacks.
 */
export interface EngineWorkspace {
  /** Environment of every command, over this process's; the next command runs with what it is then. */
  envVars: Record<string, string>;
  readonly pulumiCommand: { readonly command: string };
  /** `pulumi stack init <name>`, which selects the stack it creates. */
  createStack(name: string): Promise<void>;
  /** `pulumi stack select --stack <name>`. */
  selectStack(name: string): Promise<void>;
  /** `pulumi stack rm --yes [--force] <name>`. */
  removeStack(name: string, options?: { force?: boolean }): Promise<void>;
  /** The selected stack (`pulumi stack ls --json`), if any. */
  stack(): Promise<StackSummary | undefined>;
}

/** A stack, the members of the Automation API's `Stack` that the tests use, with its semantics. */
export interface EngineStackCommands {
  readonly name: string;
  readonly workspace: EngineWorkspace;
  /**
   * Sets one key (`path`: a path into a map or a list), as `setAllConfig` sets one:
   * `pulumi config set-all [--path] --secret|--plaintext <key>=<value>`. (The Automation API's
   * `setConfig` ends `pulumi config set` with `-- <value>`, which {@link runPulumi}, appending
   * `--non-interactive` to the arguments, cannot do.)
   */
  setConfig(key: string, value: ConfigValue, path?: boolean): Promise<void>;
  /** Sets every key of `config` with one `pulumi config set-all [--path] --secret|--plaintext <key>=<value>...`. */
  setAllConfig(config: ConfigMap, path?: boolean): Promise<void>;
  /** `pulumi config rm <key> [--path]`. */
  removeConfig(key: string, path?: boolean): Promise<void>;
  /** Removes every key of `keys` with one `pulumi config rm-all [--path] <key>...`. */
  removeAllConfig(keys: string[], path?: boolean): Promise<void>;
  /** The configuration, secrets decrypted (`pulumi config --show-secrets --json`). */
  getAllConfig(): Promise<ConfigMap>;
  /** The state, secrets decrypted (`pulumi stack export --show-secrets`). */
  exportStack(): Promise<Deployment>;
  /** `pulumi stack import --file <state>`. */
  importStack(state: Deployment): Promise<void>;
  /** The outputs, each with its value shown and whether it is secret (`pulumi stack output --json`, twice). */
  outputs(): Promise<OutputMap>;
  /** `pulumi up --skip-preview` as {@link EngineStack.up}, with the outputs' values shown (`outputs()`). */
  up(options?: OperationOptions): Promise<OperationResult>;
}

/** A stack of a project, with everything the engine printed for it. */
export interface EngineStack {
  stack: EngineStackCommands;
  workDir: string;
  /** Everything the engine printed so far, across operations. */
  output: string[];
  preview(options?: EnginePreviewOptions): Promise<PreviewResult>;
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

/**
 * Creates a new stack of `projectDir` against `emu`. Every command runs as the Automation API ran
 * it (the same arguments and environment: provider/stack/stack-commands.ts), without loading it:
 * `@pulumi/pulumi/automation` loads the whole SDK, 1 to 1.7 s of CPU in each test file, and runs
 * `pulumi version` first.
 */
export async function engineStack(options: EngineStackOptions): Promise<EngineStack> {
  const id = randomUUID().slice(0, 8);
  const workDir = options.inPlace ? options.projectDir : copyProject(options.projectDir);
  const home = path.join(WORK, `home-${id}`);
  const backend = path.join(WORK, `backend-${id}`);
  pulumiHome(REPO, home);
  fs.mkdirSync(backend, { recursive: true });
  const stackName = options.stackName ?? `e2e-${id}`;
  const pulumi = pulumiCommand();
  const commands = new TestStackCommands(pulumi, workDir, stackName, {
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
  });
  /** A command of the workspace, which names the stack in `args` if it is about one. */
  const inWorkspace = (args: string[]) => pulumiRun(pulumi, args, workDir, commands.envVars);
  const workspace: EngineWorkspace = {
    get envVars() {
      return commands.envVars;
    },
    set envVars(envVars) {
      commands.envVars = envVars;
    },
    pulumiCommand: { command: pulumi },
    createStack: async (name) => void (await inWorkspace(['stack', 'init', name])),
    selectStack: async (name) => void (await inWorkspace(['stack', 'select', '--stack', name])),
    removeStack: async (name, removeOptions = {}) =>
      void (await inWorkspace(['stack', 'rm', '--yes', ...(removeOptions.force ? ['--force'] : []), name])),
    stack: async () => {
      const stacks = JSON.parse((await inWorkspace(['stack', 'ls', '--json'])).stdout) as StackSummary[];
      return stacks.find((stack) => stack.current);
    },
  };
  /** The Automation API's `setAllConfig`: one `pulumi config set-all`. */
  const setAllConfig = async (config: ConfigMap, keyPath: boolean) =>
    void (await commands.run([
      'config',
      'set-all',
      ...(keyPath ? ['--path'] : []),
      ...Object.entries(config).flatMap(([key, value]) => [
        value.secret ? '--secret' : '--plaintext',
        `${key}=${value.value}`,
      ]),
    ]));
  await workspace.createStack(stackName);
  if (options.config) await setAllConfig(options.config, false);
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
   * Runs `pulumi <verb> ...flags` with an event log, as the Automation API runs a preview or an
   * operation (`--exec-kind auto.local`, `--event-log`), and gives what it printed and the events it
   * logged; a failed command throws what the engine printed.
   */
  const withEvents = async <T>(
    verb: string[],
    flags: string[],
    onText: ((text: string) => void) | undefined,
    read: (stdout: string, stderr: string, eventLog: string) => T,
  ): Promise<T> => {
    const eventLog = path.join(WORK, `events-${id}-${++operations}.jsonl`);
    try {
      const { stdout, stderr } = await failing(
        commands.run([...verb, ...flags, '--exec-kind', 'auto.local', '--event-log', eventLog], (text) => {
          onOutput(text);
          onText?.(text);
        }),
      );
      return read(stdout, stderr, eventLog);
    } finally {
      fs.rmSync(eventLog, { force: true });
    }
  };
  /**
   * `pulumi up`, `refresh` or `destroy` as the Automation API runs them (the same arguments and
   * environment), without what its methods run after each: `pulumi stack output` twice and `pulumi
   * stack history`, about 1.2 s of CPU, a fifth of an operation's. The counts of the steps are the
   * engine's summary event, from the event log it writes; {@link EngineStack.outputs} asks for the
   * outputs where a test reads them. A failed operation throws what the engine printed.
   */
  const operation = (verb: 'up' | 'refresh' | 'destroy', options: OperationOptions): Promise<OperationResult> =>
    withEvents([verb, '--yes', '--skip-preview'], flagsOf(options), undefined, (stdout, stderr, eventLog) => {
      const events = eventsOf(eventLog);
      if (events === undefined) throw new Error(`pulumi ${verb} succeeded but wrote no summary event`);
      return collect({ stdout, stderr, ...events });
    });
  /**
   * `pulumi preview` as the Automation API's `Stack.preview` runs it, its flags in the same order; the
   * counts of the steps are the summary event's (none when the engine wrote none, as there).
   */
  const preview = (previewOptions: EnginePreviewOptions): Promise<PreviewResult> =>
    withEvents(
      ['preview'],
      [
        ...(previewOptions.expectNoChanges ? ['--expect-no-changes'] : []),
        ...(previewOptions.refresh ? ['--refresh'] : []),
        ...(previewOptions.diff ? ['--diff'] : []),
        ...(previewOptions.policyPacks ?? []).flatMap((pack) => ['--policy-pack', pack]),
        ...(previewOptions.policyPackConfigs ?? []).flatMap((config) => ['--policy-pack-config', config]),
      ],
      previewOptions.onOutput,
      (stdout, stderr, eventLog) =>
        collect({ stdout, stderr, changeSummary: eventsOf(eventLog)?.summary.resourceChanges ?? {} }),
    );
  const stack: EngineStackCommands = {
    name: stackName,
    workspace,
    setConfig: (key, value, keyPath = false) => setAllConfig({ [key]: value }, keyPath),
    setAllConfig: (config, keyPath = false) => setAllConfig(config, keyPath),
    removeConfig: async (key, keyPath = false) =>
      void (await commands.run(['config', 'rm', key, ...(keyPath ? ['--path'] : [])])),
    removeAllConfig: async (keys, keyPath = false) =>
      void (await commands.run(['config', 'rm-all', ...(keyPath ? ['--path'] : []), ...keys])),
    getAllConfig: () => commands.getAllConfig(),
    exportStack: () => commands.exportStack(),
    importStack: async (state) => {
      const file = path.join(WORK, `state-${id}-${randomUUID().slice(0, 8)}.json`);
      fs.writeFileSync(file, JSON.stringify(state, null, 4));
      try {
        await commands.run(['stack', 'import', '--file', file]);
      } finally {
        fs.rmSync(file, { force: true });
      }
    },
    outputs: async () => {
      // As the Automation API: the masked outputs say which are secret, the shown ones their values.
      const masked = JSON.parse((await commands.run(['stack', 'output', '--json'])).stdout) as Record<string, unknown>;
      const shown = JSON.parse((await commands.run(['stack', 'output', '--json', '--show-secrets'])).stdout) as Record<
        string,
        unknown
      >;
      return Object.fromEntries(
        Object.entries(shown).map(([key, value]) => [key, { value, secret: masked[key] === '[secret]' }]),
      );
    },
    up: async (upOptions = {}) => {
      const result = await operation('up', upOptions);
      return { ...result, outputs: await stack.outputs() };
    },
  };
  return {
    stack,
    workDir,
    output,
    preview: (previewOptions = {}) => preview(previewOptions),
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
