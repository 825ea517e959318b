import { LocalWorkspace, Stack, type ProjectSettings, type PulumiCommand } from '@pulumi/pulumi/automation';

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
  /** The engine to use; default the `pulumi` on PATH. */
  pulumiCommand?: PulumiCommand;
}

/** The stack, its name and its project's settings. */
export interface OpenedStack {
  workspace: LocalWorkspace;
  stack: Stack;
  stackName: string;
  settings: ProjectSettings;
}

/** A failure to find the stack to work on. */
export class StackSelectionError extends Error {
  override name = 'StackSelectionError';
}

/** Selects the stack at `location`; a {@link StackSelectionError} when none is named or selected. */
export async function openStack(location: StackLocation): Promise<OpenedStack> {
  const workspace = await LocalWorkspace.create({
    workDir: location.workDir,
    ...(location.envVars ? { envVars: location.envVars } : {}),
    ...(location.pulumiCommand ? { pulumiCommand: location.pulumiCommand } : {}),
  });
  const stackName = location.stackName ?? (await workspace.stack())?.name;
  if (stackName === undefined)
    throw new StackSelectionError(
      `no stack is selected in ${location.workDir}: give --stack NAME (or select one with pulumi stack select)`,
    );
  const settings = await workspace.projectSettings();
  const stack = await Stack.select(stackName, workspace);
  return { workspace, stack, stackName, settings };
}
