import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { clientFrom } from '../client/shared';
import type { HttpClient } from '../client/http';
import { SETTINGS, withSettingHint } from '../settings';
import { openStack } from '../stack/open';
import { PulumiCommandError } from '../stack/stack-commands';
import { auditedResources, type AuditedResources } from '../stack/inventories';

/**
 * What `edgeguard-audit` and `edgeguard-probe` share to read a stack: the stack's inventories and
 * CSP policies from its state, a client of the service with the stack's `edgeguard:*` settings,
 * the credentials to mask in anything they print, and why the work could not be done, in a line.
 * They run no preview and change nothing.
 */

/** The `parseArgs` options every tool that reads a stack takes: the project's folder, the stack, and `--help`. */
const STACK_OPTIONS = {
  cwd: { type: 'string' },
  stack: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** A stack tool's flags: `options` beside the project's folder, the stack and `--help`; throws on an unknown flag or a positional. */
export function parseStackFlags<Options extends ParseArgsOptionsConfig>(argv: string[], options: Options) {
  return parseArgs({ args: argv, options: { ...STACK_OPTIONS, ...options }, strict: true, allowPositionals: false })
    .values;
}

/** The stack a command reads. */
export interface StackArguments {
  /** The Pulumi project's folder. */
  cwd: string;
  /** The stack; default the selected one. */
  stack?: string;
}

/** A stack read for its payment pages. */
export interface ReadStack extends AuditedResources {
  project: string;
  stackName: string;
  /** A client of the service with the stack's settings (secrets decrypted; EDGEGUARD_* as fallback). */
  client: HttpClient;
}

/**
 * Every credential a command may hold: the secret settings of the environment, and the stack's
 * secret configuration values once read. A message from the engine or the service that echoes one
 * (a failing command line, say) is printed with it masked.
 */
const credentials = new Set<string>(
  Object.values(SETTINGS).flatMap((setting) => {
    const value = 'secret' in setting ? process.env[setting.env]?.trim() : undefined;
    return value ? [value] : [];
  }),
);

/** `text` with every credential known so far replaced by `[secret]`. */
export function masked(text: string): string {
  let out = text;
  for (const secret of credentials) out = out.split(secret).join('[secret]');
  return out;
}

/**
 * Why the work could not be done, in a line, masked: what a failed engine command said last as its
 * error (`no stack named 'x' found`), else the end of its output; else the error's message.
 */
export function reasonOf(error: unknown): string {
  withSettingHint(error);
  if (error instanceof PulumiCommandError) {
    const said = [...error.stderr.matchAll(/^error: (.+)$/gm)].at(-1)?.[1];
    return masked(`pulumi: ${said ?? error.stderr.trim().split('\n').slice(-5).join(' ').slice(-1000)}`);
  }
  return masked(error instanceof Error ? error.message : String(error));
}

/**
 * Reads the stack's inventories and CSP policies and makes the service's client; `doing` is what
 * the command does to the payment pages, as its refusal of a stack without an inventory says it
 * (`auditing its payment pages`).
 */
export async function readStack(args: StackArguments, doing: string): Promise<ReadStack> {
  const { stack, stackName, settings } = await openStack({
    workDir: args.cwd,
    ...(args.stack !== undefined ? { stackName: args.stack } : {}),
  });
  const config = await stack.getAllConfig();
  for (const { value, secret } of Object.values(config)) if (secret && value.trim() !== '') credentials.add(value);
  const resources = auditedResources(await stack.exportStack());
  if (resources.inventories.length === 0)
    throw new Error(
      `stack ${stackName} of project ${settings.name} holds no ScriptInventory: deploy one (pulumi up) before ${doing}`,
    );
  return {
    ...resources,
    project: settings.name,
    stackName,
    client: clientFrom({ config: (key) => config[`edgeguard:${key}`]?.value }),
  };
}
