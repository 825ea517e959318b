/**
 * Whether the CSP policies that enforce a script inventory allow what it authorizes, and nothing
 * more (issue 25, item 3): for each host of the inventory's pages, each enforcing policy of that
 * host compared with the inventory's `cspSources`, and the hosts no policy enforces it on.
 *
 * Pure. The comparison is of parsed sources in their canonical form (`./csp.ts`), then by what
 * they allow, so that a policy written `script-src js.example.com/a.js` is not "missing"
 * `https://js.example.com/a.js`: an inventory source is missing when the policy's governing
 * directive (`script-src`, else `default-src`: `./csp-match.ts`) does not allow its URL; a policy
 * source is extra when it allows a script the inventory does not authorize (a keyword other than
 * `'none'`, a hash, a scheme, a wildcard, a host or path wider than every entry). Both are judged
 * from an `https:` page of the host, in Chromium and Firefox: a payment page is served over https
 * (`./inventory.ts`).
 */

import { formatCspSource, parseCspValue, type CspDirective, type CspSource } from './csp';
import { cspAllowsUrl, governingDirective } from './csp-match';
import { cspSources, type ScriptInventory } from './inventory';

/** An enabled `allow` CSP policy of the inventory's zone: its name, the host it covers, and its value. */
export interface EnforcingPolicy {
  name: string;
  hostname: string;
  value: string;
}

/** One enforcing policy compared with the inventory. */
export interface PolicyComparison {
  name: string;
  /** The directive that governs scripts in the policy; `null` when none does (it restricts no script). */
  governedBy: 'script-src' | 'default-src' | null;
  /** The inventory's sources the policy does not allow, canonical. */
  missing: string[];
  /** The policy's sources that allow a script the inventory does not authorize, canonical. */
  extra: string[];
  /** Why the policy's value cannot be read; nothing else is said of it then. */
  unreadable?: string;
}

/** A host of the inventory's pages and the policies that enforce the inventory there (none: nothing does). */
export interface HostComparison {
  host: string;
  policies: PolicyComparison[];
}

/** Whether a compared policy allows other than exactly what the inventory authorizes. */
export function differs(comparison: PolicyComparison): boolean {
  return (
    comparison.unreadable !== undefined ||
    comparison.governedBy === null ||
    comparison.missing.length > 0 ||
    comparison.extra.length > 0
  );
}

/**
 * The URL whose admission by the inventory tells whether `source` allows nothing more: a host
 * source of one host and port, over https (or no scheme, which is https from an https page), at
 * its path (no path: the whole host, as `/`); `'self'` as the page's own origin. Other sources
 * (schemes, wildcards, hashes, `'unsafe-*'`, http) allow what no entry authorizes.
 */
function urlOfSource(source: CspSource, host: string): URL | undefined {
  if (source.kind === 'keyword') return source.keyword === 'self' ? new URL(`https://${host}/`) : undefined;
  if (source.kind !== 'host') return undefined;
  if (source.host.startsWith('*') || source.port === '*') return undefined;
  if (source.scheme !== undefined && source.scheme !== 'https') return undefined;
  try {
    return new URL(`https://${source.host}${source.port !== undefined ? `:${source.port}` : ''}${source.path ?? '/'}`);
  } catch {
    return undefined;
  }
}

function comparePolicy(
  policy: EnforcingPolicy,
  host: string,
  inventorySources: readonly string[],
  inventoryDirectives: readonly CspDirective[],
): PolicyComparison {
  const parsed = parseCspValue(policy.value);
  if (!parsed.ok)
    return { name: policy.name, governedBy: null, missing: [], extra: [], unreadable: parsed.error.message };
  const governing = governingDirective(parsed.value, 'script');
  if (governing === undefined) return { name: policy.name, governedBy: null, missing: [], extra: [] };
  const page = new URL(`https://${host}/`);
  const written = new Map(governing.sources.map((source) => [formatCspSource(source), source]));
  const wanted = new Set(inventorySources);
  // A hash source (an inline entry's) is allowed by that hash alone; a URL source by what allows its URL.
  const missing = inventorySources.filter(
    (source) =>
      source !== "'none'" &&
      !written.has(source) &&
      (source.startsWith("'") || !cspAllowsUrl([governing], 'script', new URL(source), page)),
  );
  const extra = [...written]
    .filter(([text, source]) => {
      if (wanted.has(text) || (source.kind === 'keyword' && source.keyword === 'none')) return false;
      const url = urlOfSource(source, host);
      return url === undefined || !cspAllowsUrl(inventoryDirectives, 'script', url, page);
    })
    .map(([text]) => text)
    .sort();
  return { name: policy.name, governedBy: governing.name as 'script-src' | 'default-src', missing, extra };
}

/**
 * For each host of `inventory`'s pages (in the order written), the `policies` that cover it,
 * compared with what the inventory authorizes. `policies` are the enabled `allow` policies of the
 * inventory's zone; a host none of them covers has an empty list.
 */
export function compareInventoryCsp(
  inventory: ScriptInventory,
  policies: readonly EnforcingPolicy[],
): HostComparison[] {
  const sources = cspSources(inventory).split(' ');
  const directives = parseCspValue(`script-src ${sources.join(' ')}`);
  // The inventory's sources are made by cspSources, which checks them against this parser.
  if (!directives.ok) throw new Error(`the inventory's sources cannot be read: ${directives.error.message}`);
  const hosts = [...new Set(inventory.pages.map((page) => page.host))];
  return hosts.map((host) => ({
    host,
    policies: policies
      .filter((policy) => policy.hostname === host)
      .map((policy) => comparePolicy(policy, host, sources, directives.value)),
  }));
}
