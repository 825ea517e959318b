import {
  CAA_ISSUER_DOMAINS,
  DEFAULT_VENDOR,
  POLICY_DESCRIPTION_MAX_LENGTH,
  VENDOR_TOKEN_FORM,
  VENDOR_TOKEN_PATTERN,
} from '../../../rules/limits';

describe('limits both sides must agree on', () => {
  test('the policy description limit is 1024 characters', () => {
    expect(POLICY_DESCRIPTION_MAX_LENGTH).toBe(1024);
  });

  test('the CAA issuer domains are those of the contract', () => {
    expect(CAA_ISSUER_DOMAINS).toEqual({ google: 'pki.goog', lets_encrypt: 'letsencrypt.org' });
  });

  test('the default vendor token is edgeguard, and is itself a valid token', () => {
    expect(DEFAULT_VENDOR).toBe('edgeguard');
    expect(VENDOR_TOKEN_PATTERN.test(DEFAULT_VENDOR)).toBe(true);
  });

  test.each(['a', 'acme', 'acme_cdn', 'cdn77', `a${'b'.repeat(31)}`])('the vendor token %j is accepted', (token) => {
    expect(VENDOR_TOKEN_PATTERN.test(token)).toBe(true);
  });

  test.each(['', 'Acme', '7cdn', '_acme', 'acme-cdn', 'acme cdn', `a${'b'.repeat(32)}`, 'acme\n'])(
    'the vendor token %j is refused',
    (token) => {
      expect(VENDOR_TOKEN_PATTERN.test(token)).toBe(false);
    },
  );

  test('the vendor token rule in words says what the pattern checks', () => {
    expect(VENDOR_TOKEN_FORM).toBe(
      'lowercase letters, digits and underscores, starting with a letter, at most 32 characters',
    );
  });
});
