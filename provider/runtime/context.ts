import type * as pulumi from '@pulumi/pulumi';
import { HttpClient } from '../client/http';
import { resolveSettings, type Settings } from '../settings';

/**
 * What the runtime of every dynamic resource shares in the provider process: the stack's
 * `edgeguard:*` configuration (given once to `configure`) and one HTTP client per resolved
 * settings. Settings are resolved at call time, config first and then the environment, so
 * nothing about them is in the serialized provider or the state.
 */

let stackConfig: ((key: string) => string | undefined) | undefined;
let cached: { key: string; http: HttpClient } | undefined;

/** The dynamic provider's `configure`: keeps the stack configuration for later calls. */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  const config = req.config;
  stackConfig = (key) => config.get(`edgeguard:${key}`);
  cached = undefined;
}

/** The settings in force now (throws a `SettingsError` that says what to set). */
export function currentSettings(): Settings {
  return resolveSettings(stackConfig ? { config: stackConfig } : {});
}

/** The process's client for the settings in force. */
export function http(): HttpClient {
  const settings = currentSettings();
  const key = JSON.stringify(settings);
  if (cached?.key !== key) cached = { key, http: new HttpClient(settings) };
  return cached.http;
}
