import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ConfigMap, Deployment, EngineEvent } from '@pulumi/pulumi/automation';

/**
 * The few `pulumi` commands `edgeguard-review`, `-audit` and `-probe` run on a stack, run as the
 * Automation API runs them (the same arguments, `--non-interactive`, `PULUMI_AUTOMATION_API`, the
 * engine's events from its event log) without loading the Automation API: `@pulumi/pulumi/automation`
 * loads the whole SDK, about 770 modules and a second of CPU, in every run of a command that only
 * spawns `pulumi` (and skips its `pulumi version`, 0.4 s more). Only the types come from it.
 */

/** A `pulumi` command that ended with a status other than 0. */
export class PulumiCommandError extends Error {
  override name = 'PulumiCommandError';
  constructor(
    readonly command: string,
    readonly code: number | null,
    /** What it wrote to standard error (its standard output may hold decrypted secrets: not kept). */
    readonly stderr: string,
  ) {
    super(`pulumi ${command} failed (exit ${code ?? 'by a signal'}):\n${stderr.trim()}`);
  }
}

/** Options of a preview, as the review runs it. */
export interface PreviewOptions {
  policyPacks: readonly string[];
  policyPackConfigs?: readonly string[];
  /** `--refresh`: read the resources first. */
  refresh?: boolean;
  /** Each event of the engine's event log, in order, once the preview has ended. */
  onEvent?: (event: EngineEvent) => void;
  /** What the preview prints on its standard output, as it prints it. */
  onOutput?: (text: string) => void;
}

/** One stack of a project, by name, and the commands run on it. */
export class StackCommands {
  constructor(
    /** The `pulumi` to run (a path, or a name found on PATH). */
    readonly pulumi: string,
    readonly workDir: string,
    readonly name: string,
    /** Environment of the commands, over this process's (backend, passphrase, ...). */
    public envVars: Record<string, string> = {},
  ) {}

  /** `pulumi stack export --show-secrets`: the stack's state. */
  async exportStack(): Promise<Deployment> {
    const { stdout } = await this.run(['stack', 'export', '--show-secrets']);
    return JSON.parse(stdout) as Deployment;
  }

  /** `pulumi config --show-secrets --json`: the stack's configuration, secrets decrypted. */
  async getAllConfig(): Promise<ConfigMap> {
    const { stdout } = await this.run(['config', '--show-secrets', '--json']);
    return JSON.parse(stdout) as ConfigMap;
  }

  /**
   * `pulumi preview` with the policy packs; throws a {@link PulumiCommandError} when it fails, after
   * the events it logged have been given to `onEvent`.
   */
  async preview(options: PreviewOptions): Promise<void> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-events-'));
    const eventLog = path.join(dir, 'events.jsonl');
    try {
      const args = [
        'preview',
        ...options.policyPacks.flatMap((pack) => ['--policy-pack', pack]),
        ...(options.policyPackConfigs ?? []).flatMap((config) => ['--policy-pack-config', config]),
        ...(options.refresh ? ['--refresh'] : []),
        '--color',
        'never',
        '--exec-kind',
        'auto.local',
        '--event-log',
        eventLog,
      ];
      try {
        await this.run(args, options.onOutput);
      } finally {
        // The events of a failed preview too: its diagnostics say why it failed.
        if (options.onEvent !== undefined && fs.existsSync(eventLog)) {
          for (const line of fs.readFileSync(eventLog, 'utf8').split('\n'))
            if (line.trim() !== '') options.onEvent(JSON.parse(line) as EngineEvent);
        }
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Runs `pulumi <args> --stack <name> --non-interactive` in the project's folder. */
  run(args: readonly string[], onOutput?: (text: string) => void): Promise<{ stdout: string; stderr: string }> {
    return runPulumi(this.pulumi, [...args, '--stack', this.name], this.workDir, this.envVars, onOutput);
  }
}

/**
 * Runs `pulumi <args> --non-interactive` in `cwd`, this process's environment with `envVars` over
 * it; resolves with what it printed, or rejects with a {@link PulumiCommandError}.
 */
export function runPulumi(
  pulumi: string,
  args: readonly string[],
  cwd: string,
  envVars: Record<string, string>,
  onOutput?: (text: string) => void,
): Promise<{ stdout: string; stderr: string }> {
  // PULUMI_DEBUG_COMMANDS: the engine takes `--event-log`, a hidden flag, only with it (the Automation
  // API sets it on every command of a stack, and PULUMI_AUTOMATION_API on every command).
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PULUMI_DEBUG_COMMANDS: 'true',
    ...envVars,
    PULUMI_AUTOMATION_API: 'true',
  };
  // An engine given by its path finds the plugins installed beside it first, as with the Automation API.
  if (path.isAbsolute(pulumi)) env.PATH = `${path.dirname(pulumi)}${path.delimiter}${env.PATH ?? ''}`;
  return new Promise((resolve, reject) => {
    const child = spawn(pulumi, [...args, '--non-interactive'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      onOutput?.(text);
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve({ stdout, stderr });
      else {
        const verb = args.slice(
          0,
          Math.max(
            1,
            args.findIndex((arg) => arg.startsWith('-')),
          ),
        );
        reject(new PulumiCommandError(verb.join(' '), code, stderr));
      }
    });
  });
}
