import { hasUnknown } from '../runtime/check';
import { resolveSettings, SETTINGS, SettingsError, type SettingName, type Settings } from '../settings';

/**
 * A provider instance's configuration: the settings table's keys, as stack config
 * `edgeguard:<key>` for the default provider (strings) or as inputs of an explicit provider
 * (JSON-typed: `issuanceLimit: 5`). Both resolve through the settings table, with the same
 * environment fallbacks and messages as the dynamic resources.
 */

/** The credentials among the settings: always secret in what the plugin gives back. */
export const SECRET_SETTINGS: ReadonlySet<string> = new Set(
  Object.entries(SETTINGS)
    .filter(([, spec]) => 'secret' in spec && spec.secret === true)
    .map(([name]) => name),
);

/** The settings among `values`, as the text the settings table parses; `undefined` while one is unknown (a preview). */
export function settingTexts(values: Record<string, unknown>): Partial<Record<SettingName, string>> | undefined {
  const texts: Partial<Record<SettingName, string>> = {};
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const value = values[name];
    if (hasUnknown(value)) return undefined;
    if (value === undefined || value === null) continue;
    texts[name] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return texts;
}

/** The settings of a provider instance: its configuration, then `env`. Throws a `SettingsError` naming the key. */
export function instanceSettings(texts: Partial<Record<SettingName, string>>, env: NodeJS.ProcessEnv): Settings {
  return resolveSettings({ config: (key) => texts[key as SettingName], env });
}

/** CheckConfig's failures: none, or the one the settings table names. Values not known yet pass. */
export function configFailures(
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): Array<{ property: string; reason: string }> {
  const texts = settingTexts(values);
  if (texts === undefined) return [];
  try {
    instanceSettings(texts, env);
    return [];
  } catch (error) {
    if (error instanceof SettingsError) return [{ property: error.setting, reason: error.message }];
    throw error;
  }
}

/** The settings whose value differs between two configurations (DiffConfig). */
export function changedSettings(olds: Record<string, unknown>, news: Record<string, unknown>): SettingName[] {
  return (Object.keys(SETTINGS) as SettingName[]).filter(
    (name) => hasUnknown(news[name]) || JSON.stringify(olds[name]) !== JSON.stringify(news[name]),
  );
}
