import { configure, currentSettings } from '../../../provider/dynamic/context';
import { resolveSettings, SETTINGS, SettingsError, type SettingName, type Settings } from '../../../provider/settings';

const URL = 'http://127.0.0.1:8787/client/v4';
const DEFAULT_ISSUANCE = { limit: 15, windowMs: 60_000 };

describe('resolveSettings', () => {
  test('explicit values win over stack config, which wins over the environment', () => {
    const env = {
      EDGEGUARD_BASE_URL: 'http://env.example/client/v4',
      EDGEGUARD_API_TOKEN: 'env-token',
      EDGEGUARD_VENDOR: 'envvendor',
    };
    const config = (key: string) => ({ baseUrl: 'http://config.example/client/v4', apiToken: 'config-token' })[key];
    expect(resolveSettings({ env, config })).toEqual({
      baseUrl: 'http://config.example/client/v4',
      credentials: { kind: 'token', token: 'config-token' },
      vendor: 'envvendor',
      issuance: DEFAULT_ISSUANCE,
    });
    expect(resolveSettings({ env, config, explicit: { apiToken: 'explicit' } }).credentials).toEqual({
      kind: 'token',
      token: 'explicit',
    });
    expect(resolveSettings({ env }).baseUrl).toBe('http://env.example/client/v4');
  });

  test('a trailing slash is dropped; the vendor defaults to edgeguard', () => {
    expect(resolveSettings({ env: { EDGEGUARD_BASE_URL: `${URL}/`, EDGEGUARD_API_TOKEN: 't' } })).toEqual({
      baseUrl: URL,
      credentials: { kind: 'token', token: 't' },
      vendor: 'edgeguard',
      issuance: DEFAULT_ISSUANCE,
    });
  });

  test("the dialect (issue 42): spec by default, left out of the settings; vendor names the vendor's token unless it is set", () => {
    const env = { EDGEGUARD_BASE_URL: URL, EDGEGUARD_API_TOKEN: 't' };
    expect(resolveSettings({ env }).dialect).toBeUndefined();
    expect(resolveSettings({ env: { ...env, EDGEGUARD_DIALECT: 'spec' } })).toEqual(resolveSettings({ env }));
    expect(resolveSettings({ env: { ...env, EDGEGUARD_DIALECT: 'vendor' } })).toMatchObject({
      dialect: 'vendor',
      vendor: 'cloudflare',
    });
    expect(resolveSettings({ env: { ...env, EDGEGUARD_DIALECT: 'vendor', EDGEGUARD_VENDOR: 'acme' } }).vendor).toBe(
      'acme',
    );
    expect(() => resolveSettings({ env: { ...env, EDGEGUARD_DIALECT: 'cloudflare' } })).toThrow(
      'edgeguard:dialect (or EDGEGUARD_DIALECT) "cloudflare" must be one of spec, vendor (default spec)',
    );
  });

  test('e-mail + key are used when there is no token', () => {
    expect(
      resolveSettings({
        env: { EDGEGUARD_BASE_URL: URL, EDGEGUARD_API_EMAIL: 'ops@example.com', EDGEGUARD_API_KEY: 'k' },
      }).credentials,
    ).toEqual({
      kind: 'key',
      email: 'ops@example.com',
      key: 'k',
    });
  });

  test.each<[string, Record<string, string>, RegExp]>([
    ['no address', { EDGEGUARD_API_TOKEN: 't' }, /no service address: set edgeguard:baseUrl \(or EDGEGUARD_BASE_URL\)/],
    [
      'an address without /v4',
      { EDGEGUARD_BASE_URL: 'http://127.0.0.1:8787', EDGEGUARD_API_TOKEN: 't' },
      /must end with the API version segment \/v4/,
    ],
    [
      'an address that is not a URL',
      { EDGEGUARD_BASE_URL: 'localhost:8787/v4', EDGEGUARD_API_TOKEN: 't' },
      /must be an http\(s\) URL/,
    ],
    [
      'no credentials',
      { EDGEGUARD_BASE_URL: URL },
      /no credentials: set edgeguard:apiToken \(or EDGEGUARD_API_TOKEN\) as a secret, or edgeguard:apiEmail/,
    ],
    [
      'an e-mail without a key',
      { EDGEGUARD_BASE_URL: URL, EDGEGUARD_API_EMAIL: 'ops@example.com' },
      /edgeguard:apiKey \(or EDGEGUARD_API_KEY\) is missing/,
    ],
    [
      'a bad vendor',
      { EDGEGUARD_BASE_URL: URL, EDGEGUARD_API_TOKEN: 't', EDGEGUARD_VENDOR: 'Bad Vendor' },
      /edgeguard:vendor \(or EDGEGUARD_VENDOR\) "Bad Vendor" must be lowercase/,
    ],
  ])('%s is a SettingsError saying what to set', (_name, env, message) => {
    expect(() => resolveSettings({ env })).toThrow(SettingsError);
    expect(() => resolveSettings({ env })).toThrow(message);
  });

  test('no error message contains a secret', () => {
    const secrets = { EDGEGUARD_API_TOKEN: 'secret-token-1', EDGEGUARD_API_KEY: 'secret-key-2' };
    for (const env of [
      { ...secrets },
      { ...secrets, EDGEGUARD_BASE_URL: 'nope' },
      { EDGEGUARD_BASE_URL: URL, EDGEGUARD_API_KEY: 'secret-key-2' },
    ]) {
      expect(() => resolveSettings({ env })).toThrow(SettingsError);
      expect(() => resolveSettings({ env })).not.toThrow(/secret-token-1|secret-key-2/);
    }
  });

  test.each([
    ['apiToken', { EDGEGUARD_API_TOKEN: 'Bearer secret-token-1' }, 'secret-token-1'],
    [
      'apiKey',
      { EDGEGUARD_API_EMAIL: 'ops@example.com', EDGEGUARD_API_KEY: 'secret-key-2\nsecret-key-3' },
      'secret-key',
    ],
  ])('a malformed %s is refused naming the setting and the reason, never its value', (name, credentials, secret) => {
    const env = { EDGEGUARD_BASE_URL: URL, ...credentials };
    const label = `edgeguard:${name} \\(or ${Object.keys(credentials).at(-1)!}\\)`;
    expect(() => resolveSettings({ env })).toThrow(
      new RegExp(
        `^${label} must be one word of visible ASCII characters \\(no spaces, line breaks or "Bearer " prefix\\)$`,
      ),
    );
    expect(() => resolveSettings({ env })).not.toThrow(secret);
  });

  test('the issuance pacing: spec 8 by default, the environment over that, the stack configuration over both', () => {
    const env = { EDGEGUARD_BASE_URL: URL, EDGEGUARD_API_TOKEN: 't' };
    expect(resolveSettings({ env }).issuance).toEqual({ limit: 15, windowMs: 60_000 });
    const paced = { ...env, EDGEGUARD_ISSUANCE_LIMIT: '5', EDGEGUARD_ISSUANCE_WINDOW_SECONDS: '10' };
    expect(resolveSettings({ env: paced }).issuance).toEqual({ limit: 5, windowMs: 10_000 });
    const config = (key: string) => (key === 'issuanceLimit' ? '3' : undefined);
    expect(resolveSettings({ env: paced, config }).issuance).toEqual({ limit: 3, windowMs: 10_000 });
  });

  test.each(['0', '-1', 'ten', '1.5'])(
    'an issuance limit of %p is refused, naming the setting and its default',
    (value) => {
      const env = { EDGEGUARD_BASE_URL: URL, EDGEGUARD_API_TOKEN: 't', EDGEGUARD_ISSUANCE_LIMIT: value };
      expect(() => resolveSettings({ env })).toThrow(SettingsError);
      expect(() => resolveSettings({ env })).toThrow(
        `edgeguard:issuanceLimit (or EDGEGUARD_ISSUANCE_LIMIT) "${value}" must be a whole number of at least 1 (default 15)`,
      );
    },
  );
});

describe('configure', () => {
  /**
   * A value for every setting of the table, unlike its default, and where it shows in the resolved
   * settings. Typed by the table's names, so a setting added to the table without a row here does
   * not compile. The token and the e-mail + key pair exclude each other, so the pair has its own run.
   */
  const cases: Record<
    SettingName,
    { value: string; seen: (settings: Settings) => unknown; expected: unknown; without?: SettingName }
  > = {
    baseUrl: {
      value: 'http://config.example/client/v4',
      seen: (s) => s.baseUrl,
      expected: 'http://config.example/client/v4',
    },
    apiToken: { value: 'config-token', seen: (s) => s.credentials, expected: { kind: 'token', token: 'config-token' } },
    apiEmail: {
      value: 'config@example.com',
      seen: (s) => s.credentials,
      expected: { kind: 'key', email: 'config@example.com', key: 'env-key' },
      without: 'apiToken',
    },
    apiKey: {
      value: 'config-key',
      seen: (s) => s.credentials,
      expected: { kind: 'key', email: 'env@example.com', key: 'config-key' },
      without: 'apiToken',
    },
    dialect: { value: 'vendor', seen: (s) => s.dialect, expected: 'vendor' },
    vendor: { value: 'configvendor', seen: (s) => s.vendor, expected: 'configvendor' },
    issuanceLimit: { value: '4', seen: (s) => s.issuance.limit, expected: 4 },
    issuanceWindowSeconds: { value: '7', seen: (s) => s.issuance.windowMs, expected: 7_000 },
  };
  const environment = {
    EDGEGUARD_BASE_URL: URL,
    EDGEGUARD_API_TOKEN: 'env-token',
    EDGEGUARD_API_EMAIL: 'env@example.com',
    EDGEGUARD_API_KEY: 'env-key',
  };
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  test.each(Object.keys(SETTINGS) as SettingName[])(
    'edgeguard:%s given to configure is the value in force, over the environment',
    async (name) => {
      const { value, seen, expected, without } = cases[name];
      process.env = { ...saved, ...environment };
      if (without !== undefined) delete process.env[SETTINGS[without].env];
      await configure({
        config: { get: (key: string) => (key === `edgeguard:${name}` ? value : undefined), require: () => '' },
      });
      expect(seen(currentSettings())).toEqual(expected);
      // And without it, the environment's (or the default) is in force: the value came through configure.
      await configure({ config: { get: () => undefined, require: () => '' } });
      expect(seen(currentSettings())).not.toEqual(expected);
    },
  );
});
