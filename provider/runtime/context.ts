import type * as pulumi from '@pulumi/pulumi';
import { clientFrom } from '../clients';
import type { HttpClient } from '../client/http';
import { resolveSettings, type Settings } from '../settings';

/**
 * What a runtime acts through: the client of its provider's settings, and the engine's output.
 * Each host makes it: the dynamic host from the stack's `edgeguard:*` configuration (below), the
 * provider plugin from each provider instance's own configuration, so one program can hold
 * several accounts.
 */
export interface RuntimeContext {
  /** The client of the provider's settings (resolved when first asked for: a `SettingsError` says what to set). */
  readonly client: HttpClient;
  /**
   * Shows `line` in the engine's output (`pulumi up`, `pulumi destroy`), as it comes and again
   * under "Diagnostics". The dynamic host cannot say which resource a line is about, so the line
   * must name it.
   */
  show(line: string): void;
}

/**
 * The dynamic host's side: every dynamic resource of a deployment shares one provider process and
 * the stack's `edgeguard:*` configuration, given once to `configure`. Settings are resolved from
 * it (then the environment) at call time, so nothing about them is in the serialized provider or
 * the state.
 */

let stackConfig: ((key: string) => string | undefined) | undefined;

/** The dynamic provider's `configure`: keeps the stack configuration for later calls. */
export function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  const config = req.config;
  stackConfig = (key) => config.get(`edgeguard:${key}`);
  return Promise.resolve();
}

/** The settings in force now for dynamic resources (throws a `SettingsError` that says what to set). */
export function currentSettings(): Settings {
  return resolveSettings({ config: stackConfig });
}

/**
 * The context of a dynamic resource's call. The dynamic-provider host passes its process's
 * standard output to the engine, which shows each line as a message of the stack.
 */
export function dynamicContext(): RuntimeContext {
  return {
    get client() {
      return clientFrom({ config: stackConfig });
    },
    show: (line) => {
      process.stdout.write(`${line}\n`);
    },
  };
}
