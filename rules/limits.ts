/**
 * Fixed values that the emulator enforces and the provider checks or quotes, so each must be the
 * same on both sides: if they drifted, the provider would accept at preview what the service then
 * refuses, or give advice the service does not follow.
 *
 * Only values live here. The wire types (the schemas of request and response bodies, and the
 * lists of values a field takes) stay written on each side, so that the emulator remains an
 * independent check of the client.
 */

/**
 * The longest `description` of a CSP policy, in characters.
 *
 * The spec (2.6) gives no limit; this one is our choice, documented in the emulator's README
 * ("Policies"). The emulator refuses a longer description with a 400, and the provider refuses it
 * in `check` so that the mistake shows at preview instead of half-way through an update.
 */
export const POLICY_DESCRIPTION_MAX_LENGTH = 1024;

/**
 * The issuer domain each certificate authority needs in a domain's CAA records
 * (`0 issue "<domain>"`; RFC 8659). Contract, "Custom hostnames (zone level)".
 *
 * The emulator judges CAA records against these; the provider names them in its advice on a
 * `caa_error`, which only works if it names the domain the service looks for. Keyed by the wire
 * name of the certificate authority, which each side lists itself.
 */
export const CAA_ISSUER_DOMAINS = {
  google: 'pki.goog',
  lets_encrypt: 'letsencrypt.org',
} as const satisfies Readonly<Record<string, string>>;

/**
 * The spec's `<vendor>` token when none is configured (contract, "Conventions"): the emulator's
 * `--vendor` and the provider's `edgeguard:vendor` default to it, so that wire fields such as
 * `edgeguard_branding` match without configuration.
 */
export const DEFAULT_VENDOR = 'edgeguard';

/**
 * What a `<vendor>` token may be (contract, "Conventions", leaves the form open; this is our
 * choice): it becomes part of wire field names such as `use_<vendor>_reporting_endpoint`, so both
 * sides must accept the same tokens, or a setting one side accepts would name fields the other
 * never reads. Described in words by {@link VENDOR_TOKEN_FORM}.
 */
export const VENDOR_TOKEN_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;

/** {@link VENDOR_TOKEN_PATTERN} in words, for the message that refuses a token (`must be <this>`). */
export const VENDOR_TOKEN_FORM =
  'lowercase letters, digits and underscores, starting with a letter, at most 32 characters';
