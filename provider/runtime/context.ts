import type * as pulumi from '@pulumi/pulumi';
import { clientFrom } from '../clients';
import type { HttpClient } from '../client/http';
import { resolveSettings, type Settings } from '../settings';

/**
 * What the runtime of every dynamic resource shares in the provider process: the stack's
 * `edgeguard:*` configuration, given once to `configure`. Settings are resolved from it (then the
 * environment) at call time, so nothing about them is in the serialized provider or the state.
 */

let stackConfig: ((key: string) => string | undefined) | undefined;

/** The dynamic provider's `configure`: keeps the stack configuration for later calls. */
export function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  const config = req.config;
  stackConfig = (key) => config.get(`edgeguard:${key}`);
  return Promise.resolve();
}

/** The settings in force now (throws a `SettingsError` that says what to set). */
export function currentSettings(): Settings {
  return resolveSettings({ config: stackConfig });
}

/**
 * Shows `line` in the engine's output (`pulumi up`, `pulumi destroy`): the dynamic-provider host
 * passes its process's standard output to the engine, which shows each line as a message of the
 * stack, as it comes and again under "Diagnostics". The host does not say which resource a line is
 * about, so the line must name it.
 */
export function showInEngine(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** The process's client for the settings in force. */
export function http(): HttpClient {
  return clientFrom({ config: stackConfig });
}
