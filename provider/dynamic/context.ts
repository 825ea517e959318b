import type * as pulumi from '@pulumi/pulumi';
import { clientFrom } from '../client/shared';
import type { RuntimeContext } from '../runtime/contract';
import { resolveSettings, type Settings } from '../settings';

/**
 * The dynamic host's settings: every dynamic resource of a deployment shares one provider process
 * and the stack's `edgeguard:*` configuration, given once to `configure`. Settings are resolved
 * from it (then the environment) at call time, so nothing about them is in the serialized provider
 * or the state. The provider plugin keeps its own per provider instance (provider/plugin/server.ts).
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
  const show = (line: string) => {
    process.stdout.write(`${line}\n`);
  };
  return {
    get client() {
      // The wait for the API limit is news for the engine's output too.
      return clientFrom({ config: stackConfig }, { notice: show });
    },
    show,
  };
}
