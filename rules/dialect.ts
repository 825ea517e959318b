/**
 * The two dialects of the service's API (contract, "Two dialects"; issue 42), as values both sides
 * agree on. `spec` is what `service-spec.md` and `contract.md` say (the default); `vendor` is the
 * vendor's own published API: its OpenAPI schema (`api-schemas`, `openapi.json` at commit
 * `cca3064`, 2024-08-06) with the changes its official TypeScript SDK (npm `cloudflare` 7.1.0)
 * shows since, taken as newer.
 *
 * Only values live here, as in `limits.ts`: the wire shapes of each dialect stay written on each
 * side (the client's and the emulator's), so the emulator remains an independent check.
 */

/** The dialects, the default first. */
export const DIALECTS = ['spec', 'vendor'] as const;

/** A dialect of the API. */
export type Dialect = (typeof DIALECTS)[number];

/** The dialect when none is configured. */
export const DEFAULT_DIALECT: Dialect = 'spec';

/** Whether `value` names a dialect. */
export function isDialect(value: string): value is Dialect {
  return (DIALECTS as readonly string[]).includes(value);
}

/**
 * The path segment of page security after `zones/{zone_id}/`: the spec's neutral `page_security`,
 * the vendor's `page_shield` (its schema's paths, e.g. `GET /zones/{zone_id}/page_shield/scripts`).
 */
export const PAGE_SECURITY_SEGMENT: Readonly<Record<Dialect, string>> = {
  spec: 'page_security',
  vendor: 'page_shield',
};

/**
 * The `<vendor>` token of wire field names when none is configured, per dialect: the contract's
 * neutral `edgeguard` in `spec`; the vendor's own name in `vendor` (`use_cloudflare_reporting_endpoint`,
 * `ssl.cloudflare_branding`).
 */
export const DIALECT_DEFAULT_VENDOR: Readonly<Record<Dialect, string>> = {
  spec: 'edgeguard',
  vendor: 'cloudflare',
};

/** The bounds of `per_page` of one kind of list: the smallest and largest page a request may ask for. */
export interface PageBounds {
  min: number;
  max: number;
}

/**
 * The page sizes each dialect accepts. In `vendor`, the schema's: page security lists (scripts,
 * connections, cookies) `per_page` 1..100; custom hostnames 5..50. In `spec`, the contract leaves
 * page security's bound to the emulator's choice (1..1000) and custom hostnames the same.
 */
export const LIST_PAGE_BOUNDS: Readonly<Record<Dialect, { pageSecurity: PageBounds; customHostnames: PageBounds }>> = {
  spec: { pageSecurity: { min: 1, max: 1000 }, customHostnames: { min: 1, max: 1000 } },
  vendor: { pageSecurity: { min: 1, max: 100 }, customHostnames: { min: 5, max: 50 } },
};

/**
 * The page size a list of `kind` asks for in `dialect`: `wanted` as it is in `spec` (as always);
 * within the dialect's {@link LIST_PAGE_BOUNDS} otherwise, so no request passes the vendor's bound.
 */
export function listPageSize(dialect: Dialect, kind: 'pageSecurity' | 'customHostnames', wanted: number): number {
  if (dialect === 'spec') return wanted;
  const { min, max } = LIST_PAGE_BOUNDS[dialect][kind];
  return Math.min(max, Math.max(min, wanted));
}
