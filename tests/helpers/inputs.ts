import type { CustomHostnameInputs } from '../../provider/runtime/custom-hostname';
import type { CustomHostnameValidationInputs } from '../../provider/runtime/custom-hostname-validation';

/**
 * Ids and valid inputs of the resources, shared by the pure tests of their check and diff
 * (tests/unit/provider/) and the tests of their methods against the emulator
 * (tests/service/provider/), which put them in a zone or account of their own.
 */

/** The zone of the pure tests. */
export const ZONE = 'c0000000000000000000000000000001';
/** The account of the pure tests. */
export const ACCOUNT = 'a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1';
export const POOL_A = '0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
export const POOL_B = '0bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
export const POOL_C = '0ccccccccccccccccccccccccccccccc';
export const WEBHOOK = 'f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0';

/** A valid `CspPolicy`'s inputs, in {@link ZONE}. */
export const CSP_POLICY = {
  zoneId: ZONE,
  description: 'shop scripts',
  action: 'allow',
  expression: 'http.host eq "shop.example.com"',
  value: "script-src 'self' cdn.example.com https://js.example.net/app.js",
};

/** A valid `CustomHostname`'s inputs, in {@link ZONE}, with `overrides`. */
export function customHostnameInputs(
  overrides: Partial<Record<keyof CustomHostnameInputs, unknown>> = {},
): Record<string, unknown> {
  return { zoneId: ZONE, hostname: 'shop.customer.net', ssl: { method: 'txt', type: 'dv' }, ...overrides };
}

/** A valid hostname of `length` characters, in labels of at most 40. */
export function hostnameOfLength(length: number): string {
  const labels: string[] = [];
  let left = length - '.customer.net'.length;
  while (left > 0) {
    // A label of 40 followed by its dot must leave at least one character for the next label.
    const size = left <= 40 ? left : left === 41 ? 39 : 40;
    labels.push('a'.repeat(size));
    left -= size < left ? size + 1 : size;
  }
  return `${labels.join('.')}.customer.net`;
}

/** A valid `CustomHostnameValidation`'s inputs, in {@link ZONE}, with `overrides`. */
export function validationInputs(overrides: Partial<Record<keyof CustomHostnameValidationInputs, unknown>> = {}) {
  return { zoneId: ZONE, customHostnameId: 'f'.repeat(32), ...overrides };
}
