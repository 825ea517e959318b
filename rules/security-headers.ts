/**
 * The security-impacting response headers of a payment page that PCI DSS 4.0 requirement 11.6.1
 * asks to watch as the browser receives them (issue 33): what `edgeguard-probe` records of each
 * page, and which of them a `ScriptInventory` may pin to an exact value (`headers`).
 *
 * Pure: the inventory's check and the probe share these names.
 */

/** The CSP headers, which the stack's `CspPolicy` resources set: `allow` enforces, `log` reports only. */
export const CSP_HEADERS = ['content-security-policy', 'content-security-policy-report-only'] as const;

/** The other security headers, which an inventory may pin (`headers`). */
export const PINNABLE_HEADERS = [
  'strict-transport-security',
  'x-frame-options',
  'x-content-type-options',
  'referrer-policy',
  'permissions-policy',
] as const;

/** Every header the probe records, lowercase as HTTP/2 and the browser's protocol give them. */
export const SECURITY_HEADERS = [...CSP_HEADERS, ...PINNABLE_HEADERS] as const;

/** A header the probe records. */
export type SecurityHeader = (typeof SECURITY_HEADERS)[number];

/** A header an inventory may pin. */
export type PinnableHeader = (typeof PINNABLE_HEADERS)[number];

/** A header's value as a line holds it: no line break, which would end the header (RFC 9110 5.5). */
const HEADER_VALUE = /^[^\r\n\0]*$/;

/**
 * Why an inventory cannot pin header `name` to `value`, or `undefined` when it can. Names compare
 * without case, as HTTP does; the CSP headers are refused because the stack's `CspPolicy`
 * resources already say what they must be, and the probe compares them with those.
 */
export function pinnedHeaderProblem(name: string, value: string): string | undefined {
  const lower = name.toLowerCase();
  if ((CSP_HEADERS as readonly string[]).includes(lower))
    return `${JSON.stringify(name)} is set by the stack's CspPolicy resources, which edgeguard-probe compares it with; pin one of ${PINNABLE_HEADERS.join(', ')}`;
  if (!(PINNABLE_HEADERS as readonly string[]).includes(lower))
    return `${JSON.stringify(name)} is not a security header the probe records; pin one of ${PINNABLE_HEADERS.join(', ')}`;
  if (!HEADER_VALUE.test(value)) return `the value of ${JSON.stringify(name)} holds a line break, which no header can`;
  if (value.trim() !== value || value === '')
    return `the value of ${JSON.stringify(name)} must be the exact value the page sends, not empty and without spaces around it`;
  return undefined;
}

/** Pinned headers by their lowercase names (each already passed {@link pinnedHeaderProblem}). */
export function pinnedHeaders(
  headers: Readonly<Record<string, string>> | undefined,
): Partial<Record<PinnableHeader, string>> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
}
