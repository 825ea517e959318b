import { resolveSettings, SettingsError } from '../../provider/settings';

const URL = 'http://127.0.0.1:8787/client/v4';

describe('resolveSettings', () => {
  test('explicit values win over stack config, which wins over the environment', () => {
    const env = { EDGEGUARD_BASE_URL: 'http://env.example/client/v4', EDGEGUARD_API_TOKEN: 'env-token', EDGEGUARD_VENDOR: 'envvendor' };
    const config = (key: string) => ({ baseUrl: 'http://config.example/client/v4', apiToken: 'config-token' })[key];
    expect(resolveSettings({ env, config })).toEqual({ baseUrl: 'http://config.example/client/v4', credentials: { kind: 'token', token: 'config-token' }, vendor: 'envvendor' });
    expect(resolveSettings({ env, config, explicit: { apiToken: 'explicit' } }).credentials).toEqual({ kind: 'token', token: 'explicit' });
    expect(resolveSettings({ env }).baseUrl).toBe('http://env.example/client/v4');
  });

  test('a trailing slash is dropped; the vendor defaults to edgeguard', () => {
    expect(resolveSettings({ env: { EDGEGUARD_BASE_URL: `${URL}/`, EDGEGUARD_API_TOKEN: 't' } })).toEqual({ baseUrl: URL, credentials: { kind: 'token', token: 't' }, vendor: 'edgeguard' });
  });

  test('e-mail + key are used when there is no token', () => {
    expect(resolveSettings({ env: { EDGEGUARD_BASE_URL: URL, EDGEGUARD_API_EMAIL: 'ops@example.com', EDGEGUARD_API_KEY: 'k' } }).credentials).toEqual({
      kind: 'key',
      email: 'ops@example.com',
      key: 'k',
    });
  });

  test.each<[string, Record<string, string>, RegExp]>([
    ['no address', { EDGEGUARD_API_TOKEN: 't' }, /no service address: set edgeguard:baseUrl \(or EDGEGUARD_BASE_URL\)/],
    ['an address without /v4', { EDGEGUARD_BASE_URL: 'http://127.0.0.1:8787', EDGEGUARD_API_TOKEN: 't' }, /must end with the API version segment \/v4/],
    ['an address that is not a URL', { EDGEGUARD_BASE_URL: 'localhost:8787/v4', EDGEGUARD_API_TOKEN: 't' }, /must be an http\(s\) URL/],
    ['no credentials', { EDGEGUARD_BASE_URL: URL }, /no credentials: set edgeguard:apiToken \(or EDGEGUARD_API_TOKEN\) as a secret, or edgeguard:apiEmail/],
    ['an e-mail without a key', { EDGEGUARD_BASE_URL: URL, EDGEGUARD_API_EMAIL: 'ops@example.com' }, /edgeguard:apiKey \(or EDGEGUARD_API_KEY\) is missing/],
    ['a bad vendor', { EDGEGUARD_BASE_URL: URL, EDGEGUARD_API_TOKEN: 't', EDGEGUARD_VENDOR: 'Bad Vendor' }, /edgeguard:vendor \(or EDGEGUARD_VENDOR\) "Bad Vendor" must be lowercase/],
  ])('%s is a SettingsError saying what to set', (_name, env, message) => {
    expect(() => resolveSettings({ env })).toThrow(SettingsError);
    expect(() => resolveSettings({ env })).toThrow(message);
  });

  test('no error message contains a secret', () => {
    const secrets = { EDGEGUARD_API_TOKEN: 'secret-token-1', EDGEGUARD_API_KEY: 'secret-key-2' };
    for (const env of [{ ...secrets }, { ...secrets, EDGEGUARD_BASE_URL: 'nope' }, { EDGEGUARD_BASE_URL: URL, EDGEGUARD_API_KEY: 'secret-key-2' }]) {
      expect(() => resolveSettings({ env })).toThrow(SettingsError);
      expect(() => resolveSettings({ env })).not.toThrow(/secret-token-1|secret-key-2/);
    }
  });
});
