import { z } from 'zod';

/**
 * Where the provider and the read helpers find the service and their credentials. Each setting is
 * read at call time, first from the stack configuration (`edgeguard:<key>`, passed to the
 * dynamic provider's `configure`), then from the environment, so nothing is captured into state.
 */

/** The credentials of spec 5: an API token, or an e-mail + key pair. */
export type Credentials = { kind: 'token'; token: string } | { kind: 'key'; email: string; key: string };

/** Resolved settings of one client. */
export interface Settings {
  /** Base address ending in `/v4` (contract), no trailing slash. */
  baseUrl: string;
  credentials: Credentials;
  /** The spec's `<vendor>` token in wire field names. Default `edgeguard`. */
  vendor: string;
}

/** What the settings are read from: stack config (keys without namespace) and the environment. */
export interface SettingsSources {
  /** `edgeguard:<key>` values of the stack, keyed `baseUrl`, `apiToken`, `apiEmail`, `apiKey`, `vendor`. */
  config?: (key: string) => string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Explicit values, which win over both (read helpers take them as options). */
  explicit?: Partial<{ baseUrl: string; apiToken: string; apiEmail: string; apiKey: string; vendor: string }>;
}

/** A setting missing or malformed; the message says which config key or variable to set. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

const SETTINGS = {
  baseUrl: { config: 'edgeguard:baseUrl', env: 'EDGEGUARD_BASE_URL' },
  apiToken: { config: 'edgeguard:apiToken', env: 'EDGEGUARD_API_TOKEN' },
  apiEmail: { config: 'edgeguard:apiEmail', env: 'EDGEGUARD_API_EMAIL' },
  apiKey: { config: 'edgeguard:apiKey', env: 'EDGEGUARD_API_KEY' },
  vendor: { config: 'edgeguard:vendor', env: 'EDGEGUARD_VENDOR' },
} as const;

type SettingName = keyof typeof SETTINGS;

const baseUrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .transform((url) => url.replace(/\/+$/, ''))
  .refine((url) => /\/v4$/.test(url), 'must end with the API version segment /v4 (for the emulator: http://127.0.0.1:8787/client/v4)');

/** Resolves the settings, or throws a {@link SettingsError} naming what to set. Never echoes a secret. */
export function resolveSettings(sources: SettingsSources = {}): Settings {
  const env = sources.env ?? process.env;
  const read = (name: SettingName): string | undefined => {
    const value = sources.explicit?.[name] ?? sources.config?.(name) ?? env[SETTINGS[name].env];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const describe = (name: SettingName) => `${SETTINGS[name].config} (or ${SETTINGS[name].env})`;

  const rawBaseUrl = read('baseUrl');
  if (rawBaseUrl === undefined) throw new SettingsError(`no service address: set ${describe('baseUrl')}, for example http://127.0.0.1:8787/client/v4`);
  const baseUrl = baseUrlSchema.safeParse(rawBaseUrl);
  if (!baseUrl.success) throw new SettingsError(`${describe('baseUrl')} "${rawBaseUrl}" ${baseUrl.error.issues[0]!.message}`);

  const vendor = read('vendor') ?? 'edgeguard';
  if (!/^[a-z][a-z0-9_]{0,31}$/.test(vendor)) throw new SettingsError(`${describe('vendor')} "${vendor}" must be lowercase letters, digits and underscores`);

  const token = read('apiToken');
  const email = read('apiEmail');
  const key = read('apiKey');
  let credentials: Credentials;
  if (token !== undefined) credentials = { kind: 'token', token };
  else if (email !== undefined && key !== undefined) credentials = { kind: 'key', email, key };
  else if (email !== undefined || key !== undefined) {
    throw new SettingsError(`${email === undefined ? describe('apiEmail') : describe('apiKey')} is missing: an e-mail and an API key go together (or set ${describe('apiToken')})`);
  } else {
    throw new SettingsError(`no credentials: set ${describe('apiToken')} as a secret, or ${describe('apiEmail')} and ${describe('apiKey')}`);
  }
  return { baseUrl: baseUrl.data, credentials, vendor };
}
