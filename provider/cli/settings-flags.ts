import { parseArgs } from 'node:util';
import { AuthenticationError, EdgeGuardError, NotFoundError, PermissionDeniedError } from '../client/errors';
import { hexIdSchema } from '../runtime/check';
import { SETTINGS, settingLabel, withSettingHint, type SettingName } from '../settings';

/**
 * What the commands that read the service and write a program (`edgeguard-import`,
 * `edgeguard-csp`, `edgeguard-inventory`) share: the settings of `../settings.ts` as flags, with
 * their usage text, the parsing of their flags, the zone and account ids they check, and what a
 * failed read means for the user (each setting named by its flag). They run on `./runner.ts`.
 */

/** A setting's flag: its name in kebab case (`baseUrl` → `--base-url`). */
export const flagOf = (name: SettingName) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/**
 * The settings these commands take as flags: those of the table that reading uses. The pacing of
 * custom hostname creates does not apply to a command that creates nothing.
 */
export const SETTING_NAMES = (Object.keys(SETTINGS) as SettingName[]).filter(
  (name) => name !== 'issuanceLimit' && name !== 'issuanceWindowSeconds',
);

/** `[--base-url VALUE] ...`, wrapped under a usage line `indent` characters in. */
export function settingsSynopsis(indent: number): string {
  const pad = ' '.repeat(indent);
  return `${pad}${SETTING_NAMES.map((name) => `[--${flagOf(name)} VALUE]`)
    .join(' ')
    .replace(/(.{1,76})(?: |$)/g, `$1\n${pad}`)
    .trimEnd()}`;
}

/** One usage line per setting flag, then how the settings are read. */
export function settingsHelp(): string {
  return `${SETTING_NAMES.map((name) => `  ${`--${flagOf(name)} VALUE`.padEnd(22)}${SETTINGS[name].about} (else ${SETTINGS[name].env})`).join('\n')}

Each setting is read from its flag, else its environment variable; prefer the environment for
credentials, which a command line shows to other users of the machine.`;
}

/** The `parseArgs` options of the setting flags. */
const SETTING_OPTIONS = Object.fromEntries(SETTING_NAMES.map((name) => [flagOf(name), { type: 'string' as const }]));

/** The settings given as flags, from `parseArgs` values. */
function explicitSettings(values: Record<string, unknown>): Partial<Record<SettingName, string>> {
  return Object.fromEntries(
    SETTING_NAMES.flatMap((name) => {
      const value = values[flagOf(name)];
      return typeof value === 'string' ? [[name, value]] : [];
    }),
  );
}

/** A command line the command cannot run: exit 2 with the usage. */
export class UsageError extends EdgeGuardError {
  override name = 'UsageError';
}

/** The id given to `--<flag>`, checked, or a {@link UsageError}; `undefined` when not given. */
export function idFlag(flag: string, what: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const checked = hexIdSchema(what).safeParse(value);
  if (!checked.success) throw new UsageError(`--${flag} ${checked.error.issues[0]!.message}`);
  return checked.data;
}

/** A settings message with each setting named by its flag, the way these commands take it. */
export function withFlags(message: string): string {
  return SETTING_NAMES.reduce(
    (text, name) => text.split(settingLabel(name)).join(`--${flagOf(name)} (or ${SETTINGS[name].env})`),
    message,
  );
}

/** What a failed read of a zone or account means for the user: which flag or setting to check. */
export function explainReadFailure(error: unknown, scope: 'zone' | 'account', id: string): string {
  withSettingHint(error);
  const message = withFlags(error instanceof Error ? error.message : String(error));
  const flag = scope === 'zone' ? '--zone' : '--account';
  if (error instanceof NotFoundError) return `${scope} ${id} was not found: check ${flag}. (${message})`;
  if (error instanceof AuthenticationError) {
    return `the service refused the credentials: check --api-token (or ${SETTINGS.apiToken.env}), or the e-mail and API key. (${message})`;
  }
  if (error instanceof PermissionDeniedError) {
    return `the credentials may not read ${scope} ${id} (page security needs an API token with access to the zone). (${message})`;
  }
  return message;
}

/** What {@link parseFlags} read: `--help`, each flag's text, and the settings given as flags. */
export interface Flags {
  help: boolean;
  text: (key: string) => string | undefined;
  /** Every text of a flag that may be repeated (`multiple`), in the order given; `[]` when not given. */
  texts: (key: string) => string[];
  explicit: Partial<Record<SettingName, string>>;
}

/** `argv` parsed with `options` and the setting flags, or a {@link UsageError}. */
export function parseFlags(argv: string[], options: Record<string, { type: 'string'; multiple?: boolean }>): Flags {
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' }, ...SETTING_OPTIONS },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return {
    help: values.help === true,
    text: (key) => (typeof values[key] === 'string' ? values[key] : undefined),
    texts: (key) => {
      const value = values[key];
      return Array.isArray(value) ? value : [];
    },
    explicit: explicitSettings(values),
  };
}
