import { inventoryPageOf, type ScriptEntry, type ScriptInventory } from '../../rules/inventory';
import { parsePolicyExpression } from '../../rules/expression';
import type { HttpClient } from '../client/http';
import { listPolicies, type PageSecurityPolicy } from '../client/page-security';
import { readPaymentScripts, scoresOf, type Integrity, type PaymentScript } from './scripts';
import { isMaliciousPaymentScript, type MaliciousFacts } from './statements';
import {
  AUDIT_FORMAT,
  AUDIT_FORMAT_VERSION,
  type AuditCounts,
  type AuditEntry,
  type AuditEvidence,
  type AuditHeader,
  type AuditInventory,
  type AuditScript,
} from './evidence-schema';
import type { ManagedPolicy, StackInventory } from '../stack/inventories';
import { headerChanges } from './headers';

/**
 * The evidence of `edgeguard-audit` (PCI DSS 4.0 requirements 6.4.3 and 11.6.1, issue 25),
 * gathered into one model ({@link AuditEvidence}) that the Markdown, the HTML and the JSON show:
 * for each inventory of the stack and each of its payment pages, the CSP headers in force on the
 * page's host and every script page security saw there, judged by the one reading of
 * `../payment/scripts.ts`. It reads the service and writes nothing.
 */

/** What {@link gatherEvidence} audits. */
export interface EvidenceSource {
  project: string;
  stack: string;
  /** The version of `edgeguard-audit` (the package's). */
  toolVersion: string;
  inventories: readonly StackInventory[];
  /** The stack's CSP policies, to name the resource that manages each live header. */
  policies: readonly ManagedPolicy[];
  /** The clock; default the system's. */
  now?: () => Date;
}

/** The integrities that fail the audit: a script no entry authorizes, or one whose pinned content changed. */
export const FAILING_INTEGRITIES: readonly Integrity[] = ['changed', 'unauthorized'];

/** What the audit judges of a script: the reading's (`PaymentScript`) or the evidence's (`AuditScript`). */
export type JudgedScript = MaliciousFacts & { integrity: Integrity };

/**
 * Whether a script fails the audit: its integrity does, or it is malicious (its score, or its domain
 * or URL reported malicious: the review's one reading), whatever its integrity, since a malicious
 * script authorized on a payment page is still a skimmer there.
 */
export function fails(script: JudgedScript): boolean {
  return FAILING_INTEGRITIES.includes(script.integrity) || isMaliciousPaymentScript(script);
}

/** Whether scripts counted so pass: none unauthorized, changed or malicious (unpinned ones pass). */
export function passes(counts: AuditCounts): boolean {
  return counts.malicious === 0 && FAILING_INTEGRITIES.every((integrity) => counts[integrity] === 0);
}

/**
 * The exit status of `edgeguard-audit` for gathered evidence: 0 when every script is authorized,
 * none changed and none malicious (unpinned scripts are allowed) and no CSP header of a payment
 * host changed outside the stack, 1 otherwise. (2, the audit could
 * not be done, is the command's, which has no evidence then.)
 */
export function exitStatusOf(evidence: AuditEvidence): 0 | 1 {
  return evidence.passed ? 0 : 1;
}

/** A script that fails the audit, with the inventory and payment pages it was seen on. */
export interface Finding {
  inventory: string;
  pages: string[];
  script: AuditScript;
}

/** The scripts that fail the audit, each once per inventory, in the evidence's order. */
export function findingsOf(evidence: AuditEvidence): Finding[] {
  const findings: Finding[] = [];
  for (const inventory of evidence.inventories) {
    const byId = new Map<string, Finding>();
    for (const page of inventory.pages)
      for (const script of page.scripts) {
        if (!fails(script)) continue;
        const known = byId.get(script.id);
        if (known !== undefined) known.pages.push(page.page);
        else byId.set(script.id, { inventory: inventory.name, pages: [page.page], script });
      }
    findings.push(...byId.values());
  }
  return findings;
}

/** Scripts counted by integrity, and the malicious ones among them. */
export function countsOf(scripts: Iterable<JudgedScript>): AuditCounts {
  const counts: AuditCounts = { scripts: 0, unchanged: 0, unpinned: 0, changed: 0, unauthorized: 0, malicious: 0 };
  for (const script of scripts) {
    counts.scripts += 1;
    counts[script.integrity] += 1;
    if (isMaliciousPaymentScript(script)) counts.malicious += 1;
  }
  return counts;
}

function sumOf(all: readonly AuditCounts[]): AuditCounts {
  const total = countsOf([]);
  for (const counts of all) for (const key of Object.keys(total) as Array<keyof AuditCounts>) total[key] += counts[key];
  return total;
}

/** An entry as the evidence shows it: as the inventory holds it, with its index. */
function entryOf(entry: ScriptEntry): AuditEntry {
  return {
    index: entry.index,
    ...(entry.kind === 'url' ? { url: entry.url } : { prefix: entry.prefix }),
    justification: entry.justification,
    ...(entry.owner !== undefined ? { owner: entry.owner } : {}),
    ...(entry.kind === 'url' && entry.hash !== undefined ? { hash: entry.hash } : {}),
  };
}

/** A script as the evidence shows it on one payment page. */
function scriptOf(inventory: ScriptInventory, page: string, script: PaymentScript): AuditScript {
  const pinned = script.entry?.kind === 'url' ? script.entry.hash : undefined;
  const versionsSince = script.changes.map((version) => ({
    ...(version.hash !== undefined ? { hash: version.hash.toLowerCase() } : {}),
    ...(version.fetched_at !== undefined ? { fetchedAt: version.fetched_at } : {}),
    scores: scoresOf(version),
    pinned: pinned !== undefined && version.hash?.toLowerCase() === pinned,
  }));
  // When the pinned version is still listed, the change is the version after it: the one before it
  // in this newest-first list.
  const changedAt = versionsSince.at(-1)?.pinned === true ? versionsSince.at(-2)?.fetchedAt : undefined;
  return {
    id: script.id,
    url: script.url,
    status: script.status,
    firstSeenAt: script.firstSeenAt,
    lastSeenAt: script.lastSeenAt,
    seenOn: script.pages.filter((seen) => inventoryPageOf(inventory, seen)?.text === page),
    ...(script.entry !== undefined ? { entry: entryOf(script.entry) } : {}),
    integrity: script.integrity,
    ...(script.hash !== undefined ? { hash: script.hash } : {}),
    ...(script.fetchedAt !== undefined ? { fetchedAt: script.fetchedAt } : {}),
    ...(changedAt !== undefined ? { changedAt } : {}),
    versionsSince,
    scores: script.scores,
    malicious: script.malicious,
    reported: script.reported,
  };
}

/** The headers in force on `host`: the zone's enabled policies whose expression is that host, enforced ones first. */
function headersOf(
  policies: readonly PageSecurityPolicy[],
  host: string,
  managers: ReadonlyMap<string, ManagedPolicy>,
): AuditHeader[] {
  return policies
    .filter((policy) => {
      if (policy.enabled !== 'true') return false;
      const expression = parsePolicyExpression(policy.expression);
      return expression.ok && expression.value.hostname === host;
    })
    .map((policy): AuditHeader => {
      const manager = managers.get(policy.id);
      return {
        policyId: policy.id,
        description: policy.description,
        action: policy.action,
        mode: policy.action === 'allow' ? 'enforced' : policy.action === 'log' ? 'report-only' : 'unknown',
        value: policy.value,
        ...(manager !== undefined ? { managedBy: { name: manager.name, urn: manager.urn } } : {}),
      };
    })
    .sort((a, b) => (a.mode === b.mode ? (a.policyId < b.policyId ? -1 : 1) : a.mode === 'enforced' ? -1 : 1));
}

/**
 * Reads the service for each inventory of `source` and gathers the evidence: the zone's policies
 * once per zone, and the inventory's scripts once (`readPaymentScripts`).
 */
export async function gatherEvidence(client: HttpClient, source: EvidenceSource): Promise<AuditEvidence> {
  const evaluatedAt = (source.now ?? (() => new Date()))().toISOString();
  const zonePolicies = new Map<string, Promise<PageSecurityPolicy[]>>();
  const inventories: AuditInventory[] = [];
  for (const stackInventory of source.inventories) {
    const { inventory, zoneId } = stackInventory;
    let policies = zonePolicies.get(zoneId);
    if (policies === undefined) {
      policies = listPolicies(client, zoneId);
      zonePolicies.set(zoneId, policies);
    }
    const [live, scripts] = await Promise.all([policies, readPaymentScripts(client, zoneId, inventory)]);
    const managed = source.policies.filter((policy) => policy.zoneId === zoneId);
    const managers = new Map(managed.map((policy) => [policy.policyId, policy]));
    const matched = new Set(scripts.flatMap((script) => (script.entry !== undefined ? [script.entry.index] : [])));
    inventories.push({
      name: stackInventory.name,
      urn: stackInventory.urn,
      zoneId,
      pages: inventory.pages.map((page) => {
        const onPage = scripts
          .filter((script) => script.inventoryPages.includes(page.text))
          .map((script) => scriptOf(inventory, page.text, script));
        return {
          page: page.text,
          host: page.host,
          headers: headersOf(live, page.host, managers),
          scripts: onPage,
          counts: countsOf(onPage),
        };
      }),
      counts: countsOf(scripts),
      staleEntries: inventory.scripts.filter((entry) => !matched.has(entry.index)).map(entryOf),
      headerChanges: headerChanges(live, managed, new Set(inventory.pages.map((page) => page.host))),
    });
  }
  const counts = sumOf(inventories.map((inventory) => inventory.counts));
  return {
    format: AUDIT_FORMAT,
    formatVersion: AUDIT_FORMAT_VERSION,
    evaluatedAt,
    tool: { name: 'edgeguard-audit', version: source.toolVersion },
    project: source.project,
    stack: source.stack,
    passed: passes(counts) && inventories.every((inventory) => inventory.headerChanges?.length === 0),
    counts,
    inventories,
  };
}
