import { z } from 'zod';
import { DEFAULT_DIALECT, DIALECT_DEFAULT_VENDOR, DIALECTS, isDialect, type Dialect } from '../rules/dialect';
import { VENDOR_TOKEN_FORM, VENDOR_TOKEN_PATTERN } from '../rules/limits';
import { APIConnectionError, EdgeGuardError } from './client/errors';

/**
 * Every setting of EdgeGuard, in one table: where the service is, the credentials, the vendor
 * token and the pacing of custom hostname creates. Each is read at call time, first from explicit
 * values (the read helpers' options), then the stack configuration (`edgeguard:<key>`, given to
 * the dynamic provider's `configure`), then the environment, then its default; so nothing is
 * captured into the serialized provider or the state. The resources, the read helpers and the
 * tools all resolve them here, and turn them into a client in one place (`./clients`).
 */

/** The credentials of spec 5: an API token, or an e-mail + key pair. */
export type Credentials = { kind: 'token'; token: string } | { kind: 'key'; email: string; key: string };

/** Resolved settings of one client. */
export interface Settings {
  /** Base address ending in `/v4` (contract), no trailing slash. */
  baseUrl: string;
  credentials: Credentials;
  /**
   * The dialect of the service's API (contract, "Two dialects"): absent for `spec`, the default, so
   * that settings of the spec dialect are what they were before there were two; read it with
   * {@link dialectOf}.
   */
  dialect?: Exclude<Dialect, 'spec'>;
  /** The spec's `<vendor>` token in wire field names. Default: the dialect's (`DIALECT_DEFAULT_VENDOR`). */
  vendor: string;
  /** Custom hostname creates allowed per zone and window (spec 8), which the client paces under. */
  issuance: { limit: number; windowMs: number };
}

/** A setting missing or malformed; the message says which config key or variable to set. */
export class SettingsError extends EdgeGuardError {
  override name = 'SettingsError';

  constructor(
    message: string,
    /** The setting to fix (a provider plugin's CheckConfig names it as the failing property). */
    readonly setting: SettingName,
  ) {
    super(message);
  }
}

/** One row of {@link SETTINGS}. */
interface SettingSpec<T extends string | number> {
  /** The stack config key, without the `edgeguard:` namespace. */
  key: string;
  /** The environment variable. */
  env: string;
  /** What it is, for documentation and messages. */
  about: string;
  /** A credential: never echoed in a message. */
  secret?: true;
  /** The value when it is set nowhere; no default means it is required (or one of a pair). */
  fallback?: T;
  /** Parses the trimmed, non-empty text; its error message says what the value must be. */
  parse: z.ZodType<T, string>;
}

function setting<T extends string | number>(spec: SettingSpec<T>): SettingSpec<T> {
  return spec;
}

const text = z.string();
/**
 * A credential travels in an HTTP header (`Authorization: Bearer <token>`, `X-Auth-Key: <key>`,
 * contract), which takes one word of visible characters: a token pasted with its `Bearer ` prefix,
 * or across two lines, would be refused by the service or the HTTP library with a message that
 * names neither the setting nor the reason.
 */
const credential = z
  .string()
  .regex(/^[\x21-\x7e]+$/, 'must be one word of visible ASCII characters (no spaces, line breaks or "Bearer " prefix)');
const wholeNumberFromOne = z
  .string()
  .regex(/^\d+$/, 'must be a whole number of at least 1')
  .transform(Number)
  .refine((value) => value >= 1, 'must be a whole number of at least 1');

/** Spec 8: certificate issuances a zone may start per window. */
export const DEFAULT_ISSUANCE_LIMIT = 15;
/** Spec 8: the window of {@link DEFAULT_ISSUANCE_LIMIT}, in seconds ("per minute"). */
export const DEFAULT_ISSUANCE_WINDOW_SECONDS = 60;

/** Every setting: its stack config key, environment variable, default and parser. */
export const SETTINGS = {
  baseUrl: setting({
    key: 'baseUrl',
    env: 'EDGEGUARD_BASE_URL',
    about: 'the base address of the API, ending in /v4',
    parse: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .transform((url) => url.replace(/\/+$/, ''))
      .refine(
        (url) => /\/v4$/.test(url),
        'must end with the API version segment /v4 (for the emulator: http://127.0.0.1:8787/client/v4)',
      ),
  }),
  apiToken: setting({
    key: 'apiToken',
    env: 'EDGEGUARD_API_TOKEN',
    about: 'an API token (page security needs one)',
    secret: true,
    parse: credential,
  }),
  apiEmail: setting({
    key: 'apiEmail',
    env: 'EDGEGUARD_API_EMAIL',
    about: 'the e-mail of an e-mail + API key pair',
    parse: text,
  }),
  apiKey: setting({
    key: 'apiKey',
    env: 'EDGEGUARD_API_KEY',
    about: 'the API key of an e-mail + API key pair',
    secret: true,
    parse: credential,
  }),
  dialect: setting({
    key: 'dialect',
    env: 'EDGEGUARD_DIALECT',
    about:
      "the dialect of the service's API: spec (the contract's, as the emulator speaks by default) or vendor (the vendor's own published API: its paths, shapes, page sizes and ids)",
    fallback: DEFAULT_DIALECT,
    parse: z.string().refine(isDialect, `must be one of ${DIALECTS.join(', ')}`),
  }),
  vendor: setting({
    key: 'vendor',
    env: 'EDGEGUARD_VENDOR',
    // No fallback in the table: the default depends on the dialect (and a schema default would
    // make the plugin's SDKs send one whatever the dialect).
    about: `the vendor token of the service's wire field names (default: ${DIALECTS.map((dialect) => `${DIALECT_DEFAULT_VENDOR[dialect]} in the ${dialect} dialect`).join(', ')})`,
    parse: z.string().regex(VENDOR_TOKEN_PATTERN, `must be ${VENDOR_TOKEN_FORM}`),
  }),
  issuanceLimit: setting({
    key: 'issuanceLimit',
    env: 'EDGEGUARD_ISSUANCE_LIMIT',
    about:
      'custom hostname creates per zone and window; lower it when other clients create hostnames in the same zones',
    fallback: DEFAULT_ISSUANCE_LIMIT,
    parse: wholeNumberFromOne,
  }),
  issuanceWindowSeconds: setting({
    key: 'issuanceWindowSeconds',
    env: 'EDGEGUARD_ISSUANCE_WINDOW_SECONDS',
    about: 'the window of issuanceLimit, in seconds',
    fallback: DEFAULT_ISSUANCE_WINDOW_SECONDS,
    parse: wholeNumberFromOne,
  }),
} as const;

/** The name of a setting, which is also its stack config key. */
export type SettingName = keyof typeof SETTINGS;

/** What the settings are read from, in this order: explicit values, stack config, environment. */
export interface SettingsSources {
  /** Explicit values, which win over the others (the read helpers take them as options). */
  explicit?: Partial<Record<SettingName, string>>;
  /** The stack configuration: `edgeguard:<key>` values, looked up by key without the namespace. */
  config?: (key: string) => string | undefined;
  /** Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** `edgeguard:baseUrl (or EDGEGUARD_BASE_URL)`: what a message tells a user to set. */
export function settingLabel(name: SettingName): string {
  return `edgeguard:${SETTINGS[name].key} (or ${SETTINGS[name].env})`;
}

function valueOf<N extends SettingName>(
  name: N,
  sources: SettingsSources,
): z.output<(typeof SETTINGS)[N]['parse']> | undefined {
  const spec: SettingSpec<string | number> = SETTINGS[name];
  const raw = sources.explicit?.[name] ?? sources.config?.(spec.key) ?? (sources.env ?? process.env)[spec.env];
  const trimmed = raw?.trim();
  if (trimmed === undefined || trimmed === '')
    return spec.fallback as z.output<(typeof SETTINGS)[N]['parse']> | undefined;
  const parsed = spec.parse.safeParse(trimmed);
  if (parsed.success) return parsed.data as z.output<(typeof SETTINGS)[N]['parse']>;
  const shown = spec.secret ? '' : ` "${trimmed}"`;
  const fallback = spec.fallback !== undefined ? ` (default ${String(spec.fallback)})` : '';
  throw new SettingsError(`${settingLabel(name)}${shown} ${parsed.error.issues[0]!.message}${fallback}`, name);
}

/** Resolves every setting, or throws a {@link SettingsError} naming what to set. Never echoes a secret. */
export function resolveSettings(sources: SettingsSources = {}): Settings {
  const baseUrl = valueOf('baseUrl', sources);
  if (baseUrl === undefined)
    throw new SettingsError(
      `no service address: set ${settingLabel('baseUrl')}, for example http://127.0.0.1:8787/client/v4`,
      'baseUrl',
    );
  const token = valueOf('apiToken', sources);
  const email = valueOf('apiEmail', sources);
  const key = valueOf('apiKey', sources);
  let credentials: Credentials;
  if (token !== undefined) credentials = { kind: 'token', token };
  else if (email !== undefined && key !== undefined) credentials = { kind: 'key', email, key };
  else if (email !== undefined || key !== undefined) {
    const missing = email === undefined ? 'apiEmail' : 'apiKey';
    throw new SettingsError(
      `${settingLabel(missing)} is missing: an e-mail and an API key go together (or set ${settingLabel('apiToken')})`,
      missing,
    );
  } else {
    throw new SettingsError(
      `no credentials: set ${settingLabel('apiToken')} as a secret, or ${settingLabel('apiEmail')} and ${settingLabel('apiKey')}`,
      'apiToken',
    );
  }
  const dialect = valueOf('dialect', sources)!;
  return {
    baseUrl,
    credentials,
    ...(dialect === 'vendor' ? { dialect } : {}),
    vendor: valueOf('vendor', sources) ?? DIALECT_DEFAULT_VENDOR[dialect],
    issuance: {
      limit: valueOf('issuanceLimit', sources)!,
      windowMs: valueOf('issuanceWindowSeconds', sources)! * 1000,
    },
  };
}

/** The dialect of `settings` (absent: the default, `spec`). */
export function dialectOf(settings: Pick<Settings, 'dialect'>): Dialect {
  return settings.dialect ?? DEFAULT_DIALECT;
}

/**
 * `error` with the setting to check when it is a refused or lost connection. The reusable client
 * knows nothing of these settings, so the code that resolved them (a runtime, a read helper) adds it.
 */
export function withSettingHint(error: unknown): unknown {
  if (error instanceof APIConnectionError && !error.message.includes(settingLabel('baseUrl'))) {
    error.message = `${error.message}, or set ${settingLabel('baseUrl')} to its address`;
  }
  return error;
}
