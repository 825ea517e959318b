import { parsePolicyExpression } from '../../rules/expression';
import { authorizingEntry, cspSources, type ScriptEntry, type ScriptInventory } from '../../rules/inventory';
import { compareInventoryCsp, type EnforcingPolicy, type HostComparison } from '../../rules/inventory-csp';
import { entryChanges, entryTextOf, type EntryChanges, type EntryText } from '../../rules/inventory-changes';
import type { HttpClient } from '../client/http';
import {
  INTEGRITIES,
  judgePaymentScripts,
  listScriptsOnPages,
  newTally,
  PER_PAGE,
  readChangedScripts,
  tallyBound,
  type Integrity,
  type PaymentScript,
} from './scripts';
import type { Acceptance } from '../impact/evaluate';
import type { InventoryReadAhead } from './read-ahead';
import type { PolicyUnderReview } from '../impact/model';
import type { HeaderChange } from './header-change-schema';

/**
 * The review of a stack's script inventories (issue 25, item 3; PCI DSS 4.0 requirements 6.4.3 and
 * 11.6.1): what page security detects on each inventory's payment pages, judged against the
 * inventory as the change leaves it, through the one reading (`../payment/scripts.ts`); what the
 * change does to its entries, compared with the stack's state before it; the scripts it newly
 * authorizes; and whether the stack's CSP policies enforce it (`../../rules/inventory-csp.ts`).
 * The pack's payment policies and the report's section are said from it (`./statements.ts`).
 */

/** A `ScriptInventory` of the stack. */
export interface InventoryUnderReview {
  /** Its URN. */
  key: string;
  /** Its name in the program. */
  name: string;
  zoneId: string;
  /** The inventory as the change leaves it. */
  inventory: ScriptInventory;
  /**
   * Its entries before the change: those of the stack's state, `none` for an inventory the change
   * creates, or `unknown` with the reason (no state given).
   */
  previous: readonly ScriptEntry[] | 'none' | { unknown: string };
}

/** The review of one inventory. */
export interface InventoryReview {
  key: string;
  name: string;
  zoneId: string;
  /** Its pages, as `host` or `host/path`. */
  pages: string[];
  /** Its entries as the change leaves them. */
  entries: EntryText[];
  /** The `script-src` sources that allow what it authorizes. */
  cspSources: string;
  /** Every script page security detects on its pages, judged against its entries, sorted by URL. */
  scripts: PaymentScript[];
  /** The scripts by integrity, every integrity counted (zero included), from the best to the worst. */
  integrity: Record<Integrity, number>;
  /** What the change does to its entries, or why that is not known. */
  changes: EntryChanges | { unknown: string };
  /**
   * The ids of the detected scripts it authorizes that it did not authorize before the change
   * (for a new inventory, every one it authorizes); empty when the entries before are not known.
   */
  newlyAuthorized: string[];
  /** The stack's enforcing CSP policies of each host of its pages, compared with it. */
  csp: HostComparison[];
  /**
   * The CSP headers of its pages' hosts not as the stack managed them before the change
   * (`./headers.ts`), or why they are not compared; set once the zones' policies are listed, and
   * absent when the review was given no previous policies to compare with.
   */
  headerChanges?: HeaderChange[] | { unknown: string };
}

/** What {@link reviewInventory} read, for the review's request count. */
export interface InventoryReading {
  review: InventoryReview;
  /** The requests it made. */
  made: number;
  /** The most it could have made ({@link requestBound} of what it listed and read). */
  bound: number;
  /** Its term of the review's bound, as a sum: `inventory NAME: ...`. */
  term: string;
}

/** The enabled `allow` policies among `policies` of `zoneId`, with the host each covers: those that enforce an inventory there. */
export function enforcingPolicies(policies: readonly PolicyUnderReview[], zoneId: string): EnforcingPolicy[] {
  return policies.flatMap((policy) => {
    if (policy.zoneId !== zoneId || policy.policy.action !== 'allow' || !policy.policy.enabled) return [];
    const expression = parsePolicyExpression(policy.policy.expression);
    return expression.ok
      ? [{ name: policy.name, hostname: expression.value.hostname, value: policy.policy.value }]
      : [];
  });
}

/**
 * What the change does to `under`, judged with `scripts` (read with its entries after the change):
 * the entries added, removed, re-pinned and rewritten, and the scripts it newly authorizes.
 */
export function comparedWithBefore(
  under: InventoryUnderReview,
  scripts: readonly PaymentScript[],
): Pick<InventoryReview, 'changes' | 'newlyAuthorized'> {
  const authorized = scripts.filter((script) => script.entry !== undefined);
  if (under.previous === 'none')
    return {
      changes: entryChanges([], under.inventory.scripts),
      newlyAuthorized: authorized.map((script) => script.id),
    };
  if ('unknown' in under.previous) return { changes: { unknown: under.previous.unknown }, newlyAuthorized: [] };
  const before: ScriptInventory = { pages: under.inventory.pages, scripts: under.previous };
  return {
    changes: entryChanges(under.previous, under.inventory.scripts),
    newlyAuthorized: authorized
      .filter((script) => authorizingEntry(before, script.url) === undefined)
      .map((script) => script.id),
  };
}

/**
 * Reads what page security detects on `under`'s pages and reviews it, with the stack's CSP
 * `policies` (those under review) for the comparison. Requests: those of the one reading, at most
 * {@link requestBound} of the scripts listed on the pages and those read. With `readAhead`, the
 * scripts listed while the program ran on the same zone and pages (`./read-ahead.ts`) are completed
 * and judged with `under`'s entries instead of listed again; the requests are that reading's, and
 * the reads of the scripts whose pinned hash is not the listed one.
 */
export async function reviewInventory(
  client: HttpClient,
  under: InventoryUnderReview,
  policies: readonly PolicyUnderReview[],
  readAhead?: InventoryReadAhead,
): Promise<InventoryReading> {
  const ahead = await readAhead?.take(under.zoneId, under.inventory.pages);
  const tally = ahead?.tally ?? newTally();
  const listed = ahead?.scripts ?? (await listScriptsOnPages(client, under.zoneId, under.inventory.pages, { tally }));
  const scripts = judgePaymentScripts(
    await readChangedScripts(client, under.zoneId, listed, under.inventory, { tally }),
    under.inventory,
  );
  const integrity = Object.fromEntries(INTEGRITIES.map((kind) => [kind, 0])) as Record<Integrity, number>;
  for (const script of scripts) integrity[script.integrity] += 1;
  const bound = tallyBound(tally);
  return {
    review: {
      key: under.key,
      name: under.name,
      zoneId: under.zoneId,
      pages: under.inventory.pages.map((page) => page.text),
      entries: under.inventory.scripts.map(entryTextOf),
      cspSources: cspSources(under.inventory),
      scripts,
      integrity,
      ...comparedWithBefore(under, scripts),
      csp: compareInventoryCsp(under.inventory, enforcingPolicies(policies, under.zoneId)),
    },
    made: tally.requests,
    bound,
    term: `inventory ${under.name}: ${bound} (${tally.listed} scripts listed on its pages, ${PER_PAGE} a page in each status${tally.pages ? `, then each of its ${tally.pages} pages apart for the scripts first seen elsewhere` : ''}, ${tally.read} read for their versions or pages${ahead !== undefined ? ', listed ahead' : ''})`,
  };
}

/**
 * The blocked scripts of `zoneId` that `payment-script-unauthorized` reports: those seen on the
 * payment pages of one of `inventories` that no entry authorizes. An allow policy fed by the
 * inventory blocks them, as it should, so `csp-blocks-detected-scripts` lists them with this
 * reason instead of a violation, whose fix ("allow it in the policy's value") would undo the
 * inventory. The judging takes acceptance by URL alone: the same URL blocked on another host of the
 * zone is listed with this reason too.
 */
export function leftToInventories(inventories: readonly InventoryReview[], zoneId: string): Acceptance | undefined {
  const reasons = new Map<string, string>();
  for (const review of inventories) {
    if (review.zoneId !== zoneId) continue;
    for (const script of review.scripts)
      if (script.integrity === 'unauthorized' && !reasons.has(script.url))
        reasons.set(
          script.url,
          `seen on the payment pages of ScriptInventory "${review.name}", which authorizes no such script: payment-script-unauthorized reports it`,
        );
  }
  return reasons.size === 0 ? undefined : (url) => reasons.get(url);
}
