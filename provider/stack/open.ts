import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProjectSettings } from '@pulumi/pulumi/automation';
import { parse as parseYaml } from 'yaml';
import { OwnMessageError } from '../format/escape';
import { runPulumi, StackCommands } from './stack-commands';

/**
 * The stack a tool works on, as `edgeguard-review` and `edgeguard-audit` take it: the Pulumi
 * project in a folder, and the stack named or else the one selected there. In a module of its own
 * so that the audit, which runs no preview, does not load the review's policy pack modules.
 */

/** Where the stack is. */
export interface StackLocation {
  /** The Pulumi project's folder. */
  workDir: string;
  /** The stack; default the project's selected stack. */
  stackName?: string;
  /** Environment of the Pulumi commands (backend, passphrase, ...), over the process's. */
  envVars?: Record<string, string>;
  /** The engine to use (its path); default the `pulumi` on PATH. */
  pulumi?: string;
}

/** The stack, its name and its project's settings. */
export interface OpenedStack {
  stack: StackCommands;
  stackName: string;
  settings: ProjectSettings;
}

/** A failure to find the stack to work on. */
export class StackSelectionError extends Error {
  override name = 'StackSelectionError';
}

/**
 * No `pulumi` on PATH, when no engine is given: what is missing and how to get it, in lines, rather
 * than the Automation API's `code: -2 ... spawn pulumi ENOENT`.
 */
export class PulumiMissingError extends OwnMessageError {
  override name = 'PulumiMissingError';
  constructor() {
    super(
      [
        'the Pulumi CLI is missing: no `pulumi` on PATH, and the stack is read and previewed through it.',
        'Install it (https://www.pulumi.com/docs/iac/download-install/), for instance with',
        '  curl -fsSL https://get.pulumi.com | sh',
        'and put the folder that holds `pulumi` (~/.pulumi/bin with that script) on PATH.',
      ].join('\n'),
    );
  }
}

/** Whether an executable file `name` is in a folder of PATH, as a spawn of `name` finds it. */
function onPath(name: string): boolean {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir !== '')
    .some((dir) => {
      try {
        const file = path.join(dir, name);
        fs.accessSync(file, fs.constants.X_OK);
        return fs.statSync(file).isFile();
      } catch {
        return false;
      }
    });
}

/** The project's settings: its `Pulumi.yaml` (or `.yml`, or `Pulumi.json`), as the engine reads them. */
function projectSettings(workDir: string): ProjectSettings {
  for (const name of ['Pulumi.yaml', 'Pulumi.yml', 'Pulumi.json']) {
    const file = path.join(workDir, name);
    if (!fs.existsSync(file)) continue;
    const text = fs.readFileSync(file, 'utf8');
    const settings: unknown = name.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
    if (typeof settings !== 'object' || settings === null || typeof (settings as { name?: unknown }).name !== 'string')
      throw new StackSelectionError(`${file} names no project (no name: at its top)`);
    return settings as ProjectSettings;
  }
  throw new StackSelectionError(
    `no Pulumi project in ${workDir}: no Pulumi.yaml there (give --cwd the project's folder)`,
  );
}

/**
 * The stack at `location`, left unselected; a {@link StackSelectionError} when none is named or selected, a
 * {@link PulumiMissingError} when no engine is given and none is on PATH.
 */
export async function openStack(location: StackLocation): Promise<OpenedStack> {
  if (location.pulumi === undefined && !onPath('pulumi')) throw new PulumiMissingError();
  const pulumi = location.pulumi ?? 'pulumi';
  const envVars = location.envVars ?? {};
  const settings = projectSettings(location.workDir);
  // The stack named, not selected: `pulumi stack select` would change the stack selected in the
  // user's project (a later plain `pulumi up` then deploys the stack the review read). Every
  // command names it (`--stack`), so the first of them says when it does not exist ("no stack
  // named 'x' found").
  const stackName =
    location.stackName ??
    (
      JSON.parse((await runPulumi(pulumi, ['stack', 'ls', '--json'], location.workDir, envVars)).stdout) as Array<{
        name: string;
        current?: boolean;
      }>
    ).find((stack) => stack.current === true)?.name;
  if (stackName === undefined)
    throw new StackSelectionError(
      `no stack is selected in ${location.workDir}: give --stack NAME (or select one with pulumi stack select)`,
    );
  return { stack: new StackCommands(pulumi, location.workDir, stackName, envVars), stackName, settings };
}
