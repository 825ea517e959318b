import { z } from 'zod';
import { NotFoundError } from '../client/errors';
import type { HttpClient } from '../client/http';
import { mapLimited } from '../client/map-limited';
import { listPools } from '../client/load-balancing';
import { dialectOf } from '../settings';
import { DETECTED_STATUSES, getScript, listPolicies, type PageSecurityPolicy } from '../client/page-security';
import {
  completePages,
  ZoneImpactEvaluator,
  type Acceptance,
  type Detected,
  type HostKindEvaluator,
  type PolicyText,
  type ZonePolicies,
} from '../impact/evaluate';
import { inJudgingOrder, zoneOptions, zonePoliciesOf } from '../impact/zone';
import { detectedPages, listedJudge, type DetectedKind, type DetectedStatus, type ListedItem } from '../impact/listed';
import { headerChanges } from '../payment/headers';
import { leftToInventories, reviewInventory, type InventoryReview, type InventoryUnderReview } from '../payment/review';
import type { ManagedPolicy } from '../stack/export';
import type { InventoryReadAhead } from '../payment/read-ahead';
import { ReadAhead } from '../impact/read-ahead';
import {
  MAX_PAGE_LOOKUPS,
  PAGES_SHOWN_PER_POLICY,
  reviewPerPage,
  type PolicyReview,
  type PolicyUnderReview,
  type PoolCoverage,
  type ReviewRequests,
  type ReviewScope,
} from '../impact/model';

/**
 * What the review reads from the service, and the one request plan it reads it with. Every
 * request goes through the client (`../client/`), so it gets the client's retries and errors.
 *
 * The plan, for the CSP policies of zone z (P = {@link reviewPerPage}, the largest page of the dialect):
 * - 1 request: the zone's live policies (answered whole; listed by the read ahead when it read the
 *   zone): the baselines the proposals are compared with, the hosts' headers before the change,
 *   and, those the stack does not manage, headers that stay beside the proposed ones after it
 *   (`../impact/evaluate.ts`);
 * - the zone's scripts detected on the hosts those policies cover, listed once per status
 *   (`active`, `infrequent`) with the `hosts` filter and `exclude_cdn_cgi=false` (a policy that
 *   blocks a `/cdn-cgi/` script still breaks the page, though the service hides them by default):
 *   max(1, ⌈A_z/P⌉) + max(1, ⌈I_z/P⌉) requests, A_z and I_z being the active and infrequent scripts
 *   on those hosts;
 * - the zone's connections on those hosts, listed the same way: max(1, ⌈C_z/P⌉) + max(1,
 *   ⌈D_z/P⌉) requests, C_z and D_z being the active and infrequent connections (a connection has
 *   no list of pages to read: spec 2.4 gives only its first page);
 * - single-script GETs (`page_urls`) only for scripts whose verdict depends on their pages
 *   ({@link HostKindEvaluator.dependsOnPages}), at most {@link MAX_PAGE_LOOKUPS} in all; a
 *   script past that limit is judged on its first page, and counted as such;
 * - single-script GETs for the violations each policy lists first (scripts it would block that
 *   are neither malicious nor accepted, then malicious ones it allows) when the list gave only their
 *   first page, so the report names every page they run on: at most
 *   {@link PAGES_SHOWN_PER_POLICY} per policy, S_z in all;
 * and 1 request per account with a `PoolNotificationMigration`: its pools (answered whole); and for
 * each `ScriptInventory`, the one reading of its pages' scripts (`../payment/scripts.ts`): its
 * pages listed with the `page_url` filter, and the scripts read whose pinned hash is not the listed
 * one (or whose first page is none of its pages): V_i = `requestBound` = 2 × max(1, ⌈k_i/100⌉) +
 * c_i, k_i the scripts on its pages and c_i those read, whatever the size of the zone
 * ({@link reviewInventory}); and 1
 * request per zone of the inventories that has no CSP policy under review, H, when the stack's
 * policies before the change are known: its live policies, whose headers on the pages' hosts are
 * compared with the stack's (`../payment/headers.ts`).
 *
 * So requests ≤ Σ_z (1 + max(1, ⌈A_z/P⌉) + max(1, ⌈I_z/P⌉) + max(1, ⌈C_z/P⌉) + max(1, ⌈D_z/P⌉) + S_z)
 * + MAX_PAGE_LOOKUPS + accounts + Σ_i V_i + H + R, with S_z ≤ 10 × the zone's policies ({@link ReviewRequests.bound}),
 * retries not counted. With a read ahead (`../impact/read-ahead.ts`, {@link ReviewOptions.readAhead}), a
 * zone's four listings are those it made, on the hosts of the previous state, when they cover the
 * zone's hosts (A_z ... D_z then count the items of those hosts), and its judgement of them made ahead
 * when the zone's policies are the previous state's (no script then read for its pages: none
 * depended on them); with an inventories' read ahead
 * ({@link ReviewOptions.inventoryReadAhead}), an inventory's V_i is that of the listing made on
 * the previous state's same zone and pages, with the reads its entries then ask; R is the requests of the listings, live
 * policies' lists and inventory readings read ahead that nothing used (0 without a read ahead, or when every one was used).
 * In the scope `change` ({@link ReviewOptions.scope}), a zone whose CSP headers the change leaves as
 * they are live ({@link zoneUnchanged}) costs its 1 request alone: its four listings, its page reads
 * and its violations' reads are not made (A_z ... D_z, S_z = 0), nor is its read ahead used (its
 * requests count in R), and its policies' reviews say so ({@link PolicyReview.notRead}).
 * Memory holds a page or two of each list and the bounded samples of `../impact/evaluate.ts`, whatever the
 * number of scripts and connections.
 */

/** The environment variable of the review's scope ({@link ReviewOptions.scope}): `full` (the default) or `change`. */
export const REVIEW_SCOPE_ENV = 'EDGEGUARD_REVIEW_SCOPE';

/** The scopes of a review, the default first. */
export const REVIEW_SCOPES = ['full', 'change'] as const satisfies readonly ReviewScope[];

const scopeSchema = z.enum(REVIEW_SCOPES);

/**
 * The review's scope as {@link REVIEW_SCOPE_ENV} of `env` sets it: `full` when unset or empty; a
 * value that is no scope is refused, naming the variable and the values it takes.
 */
export function reviewScopeFrom(env: NodeJS.ProcessEnv = process.env): ReviewScope {
  const text = env[REVIEW_SCOPE_ENV]?.trim();
  if (text === undefined || text === '') return 'full';
  const parsed = scopeSchema.safeParse(text);
  if (!parsed.success) throw new Error(`${REVIEW_SCOPE_ENV} "${text}" must be one of ${REVIEW_SCOPES.join(', ')}`);
  return parsed.data;
}

/** Whether two policies' texts are the same (the same header, or none). */
function sameText(a: PolicyText, b: PolicyText): boolean {
  return a.action === b.action && a.enabled === b.enabled && a.expression === b.expression && a.value === b.value;
}

/**
 * Whether the change leaves a zone's CSP headers as they are live, so that no verdict on its
 * detected items can change: the live policies the stack manages are known, each of them is
 * replaced by a policy of the same text, and every policy of the stack in the zone replaces a live
 * one of the same text (none is created, recreated or of an unknown baseline). A managed policy the
 * change deletes, or any difference of action, enabled, expression or value, is a change.
 */
export function zoneUnchanged(zone: ZonePolicies): boolean {
  if ('unknown' in zone.managed) return false;
  const kept = new Map<string, PolicyText>();
  for (const proposed of zone.proposed) {
    if (proposed.baseline.kind !== 'live' || !sameText(proposed.baseline.policy, proposed.policy)) return false;
    kept.set(proposed.baseline.id, proposed.policy);
  }
  return zone.live.every((live) => !(zone.managed as ReadonlySet<string>).has(live.id) || kept.has(live.id));
}

/** Why a zone's lists were not read in the scope `change` ({@link PolicyReview.notRead}). */
export const NOT_READ_UNCHANGED = `the review's scope is change (${REVIEW_SCOPE_ENV}) and the change leaves the zone's CSP policies as they are live, so no verdict on its detected scripts and connections can change; a review of scope full (a nightly run) reads them`;

/** Single-script reads in flight at once. */
const LOOKUP_CONCURRENCY = 16;
/** Uncovered pool names listed per account. */
const POOL_NAMES_LISTED = 20;

/** A `PoolNotificationMigration` of the stack. */
export interface MigrationUnderReview {
  key: string;
  name: string;
  accountId: string;
}

/** A `HealthNotification` of the stack: the pools it covers. */
export interface NotificationUnderReview {
  accountId: string;
  poolIds: readonly string[];
  enabled: boolean;
}

/** What to review. */
export interface ReviewInput {
  policies: readonly PolicyUnderReview[];
  /**
   * The ids of the live CSP policies the stack manages before the change (its state's), whether
   * the change keeps, changes or deletes them; the zone's other live policies stay, headers beside
   * the stack's. Default: the ids the policies under review replace (a policy the change deletes
   * is then taken to stay).
   */
  managedPolicyIds?: readonly string[];
  migrations: readonly MigrationUnderReview[];
  notifications: readonly NotificationUnderReview[];
  /** The stack's script inventories. Default none. */
  inventories?: readonly InventoryUnderReview[];
  /**
   * The CSP policies the stack manages before the change, as its state declares them, to compare
   * the live headers of the inventories' hosts with (`../payment/headers.ts`); or why the state
   * could not be read. Default: none compared.
   */
  previousPolicies?: readonly ManagedPolicy[] | { unknown: string };
}

/** The review of a stack's CSP policies, pool migrations and script inventories. */
export interface ReviewResult {
  policies: PolicyReview[];
  pools: PoolCoverage[];
  inventories: InventoryReview[];
  requests: ReviewRequests;
}

/** Options of {@link reviewService}; the defaults are the plan's. */
export interface ReviewOptions {
  perPage?: number;
  maxPageLookups?: number;
  /** Items kept per list of the report. Default that of `../impact/evaluate.ts`. */
  sampleSize?: number;
  /** Blocked scripts the team accepts (no violation). Default none. */
  acceptBlocked?: Acceptance;
  /**
   * The listings read while the program ran (`../impact/read-ahead.ts`): a zone's are judged from them
   * when they cover its hosts; those no zone used count as requests made, and in the bound.
   */
  readAhead?: ReadAhead;
  /**
   * The scripts of the previous state's inventories' pages listed while the program ran
   * (`../payment/read-ahead.ts`): an inventory of the same zone and pages is judged from them;
   * those no inventory used count as requests made, and in the bound.
   */
  inventoryReadAhead?: InventoryReadAhead;
  /**
   * `full` reads every zone's detected lists; `change` leaves out the zones whose CSP headers the
   * change leaves as they are ({@link zoneUnchanged}), whose policies' reviews then say so
   * ({@link PolicyReview.notRead}) and claim no verdict on them. Default {@link reviewScopeFrom}
   * the environment (`full` when unset).
   */
  scope?: ReviewScope;
}

/** An inventory's hosts' CSP headers against the stack's policies before the change, or why they are not compared. */
function headerChangesOf(
  review: InventoryReview,
  live: ReadonlyMap<string, PageSecurityPolicy[]>,
  previous: NonNullable<ReviewInput['previousPolicies']>,
): NonNullable<InventoryReview['headerChanges']> {
  if ('unknown' in previous) return { unknown: previous.unknown };
  const hosts = new Set(review.pages.map((page) => page.split('/')[0]!));
  return headerChanges(
    live.get(review.zoneId) ?? [],
    previous.filter((policy) => policy.zoneId === review.zoneId),
    hosts,
  );
}

/** Reads what `input` needs from the service with the plan above, and judges it. */
export async function reviewService(
  client: HttpClient,
  input: ReviewInput,
  options: ReviewOptions = {},
): Promise<ReviewResult> {
  const perPage = options.perPage ?? reviewPerPage(dialectOf(client.settings));
  const scope = options.scope ?? reviewScopeFrom();
  let lookupsLeft = options.maxPageLookups ?? MAX_PAGE_LOOKUPS;
  let made = 0;
  let listPages = 0;
  let shownReads = 0;
  const terms: string[] = [];
  const reviews: PolicyReview[] = [];

  // The inventories first: the scripts they leave unauthorized are theirs to report, not the
  // blocked-scripts policy's (leftToInventories).
  const inventories: InventoryReview[] = [];
  let inventoryBound = 0;
  const inventoryTerms: string[] = [];
  for (const inventory of input.inventories ?? []) {
    const reading = await reviewInventory(client, inventory, input.policies, options.inventoryReadAhead);
    inventories.push(reading.review);
    made += reading.made;
    inventoryBound += reading.bound;
    inventoryTerms.push(reading.term);
  }

  const zones = [...new Set(input.policies.map((policy) => policy.zoneId))];
  const livePolicies = new Map<string, PageSecurityPolicy[]>();
  for (const zoneId of zones) {
    const leftToInventory = leftToInventories(inventories, zoneId);
    const acceptBlocked: Acceptance | undefined =
      leftToInventory === undefined
        ? options.acceptBlocked
        : (url) => options.acceptBlocked?.(url) ?? leftToInventory(url);
    const policies = input.policies.filter((policy) => policy.zoneId === zoneId);
    // The zone's live policies, listed by the read ahead when it read the zone.
    const listedPolicies = (await options.readAhead?.livePolicies(zoneId)) ?? (await listPolicies(client, zoneId));
    livePolicies.set(zoneId, listedPolicies);
    made += 1;
    const zone = zonePoliciesOf(policies, listedPolicies, input.managedPolicyIds ?? []);
    let evaluator = new ZoneImpactEvaluator(zone, zoneOptions(options.sampleSize, acceptBlocked));
    const hosts = [...evaluator.hosts];
    const zoneTerms = ['1'];
    // Scope change: a zone the change leaves as it is is not listed (its read ahead, if any, not used).
    const notRead = scope === 'change' && hosts.length > 0 && zoneUnchanged(zone) ? NOT_READ_UNCHANGED : undefined;

    const readAhead =
      hosts.length > 0 && notRead === undefined ? await options.readAhead?.take(zoneId, hosts) : undefined;
    const judgedAhead =
      readAhead && (await options.readAhead!.judgedAhead(zoneId, zone, options.sampleSize, acceptBlocked));
    if (readAhead !== undefined && judgedAhead !== undefined) {
      // Judged once read, while the engine ran the program, against the same policies (../impact/read-ahead.ts).
      evaluator = judgedAhead;
      for (const kind of ['scripts', 'connections'] as const) {
        for (const status of DETECTED_STATUSES) {
          const kept = ReadAhead.listing(readAhead, kind, status);
          made += kept.requests;
          listPages += kept.requests;
          zoneTerms.push(`${kept.requests} (${kept.count} ${status} ${kind}, read ahead and judged ahead)`);
        }
      }
    } else if (notRead !== undefined) {
      zoneTerms.push(
        '0 (its scripts and connections not listed: the change leaves its CSP policies as they are; scope change)',
      );
    } else if (hosts.length > 0) {
      // Page reads run beside the listings, a few at a time; the four listings (two kinds, two
      // statuses) run side by side. The verdicts do not depend on the order items are judged in.
      const reads = new Set<Promise<void>>();
      let failure: { error: unknown } | undefined;
      const read = async (script: Detected, judge: HostKindEvaluator): Promise<void> => {
        let pageUrls: string[] | undefined;
        try {
          pageUrls = (await getScript(client, zoneId, script.id)).page_urls;
        } catch (error) {
          // Gone since it was listed: judged on the first page the list gave.
          if (!(error instanceof NotFoundError)) throw error;
        }
        made += 1;
        judge.add(pageUrls === undefined ? script : { ...script, pageUrls });
      };
      const listedTerm = (requests: number, count: number, what: string): string => {
        made += requests;
        listPages += requests;
        return `${requests} (${count} ${what})`;
      };
      /** Judges one listed item; a promise when the page reads in flight must be waited for first. */
      const judgeListed = (kind: DetectedKind, { host, item }: ListedItem): Promise<unknown> | undefined => {
        const judge = listedJudge(evaluator, kind, host);
        if (judge === undefined) return undefined;
        if (kind === 'scripts' && lookupsLeft > 0 && judge.dependsOnPages(item)) {
          lookupsLeft -= 1;
          const pending: Promise<void> = read(item, judge).then(
            () => void reads.delete(pending),
            (error: unknown) => {
              failure ??= { error };
              reads.delete(pending);
            },
          );
          reads.add(pending);
          if (reads.size >= LOOKUP_CONCURRENCY) return Promise.race(reads);
          return undefined;
        }
        judge.add(item);
        return undefined;
      };
      const what = (kind: DetectedKind, status: DetectedStatus) => `${status} ${kind}`;
      const listing = async (kind: DetectedKind, status: DetectedStatus): Promise<string> => {
        if (readAhead !== undefined) {
          // Read while the program ran (./read-ahead.ts), and on from there when its reading was left
          // unfinished: judged from its pages.
          const kept = ReadAhead.listing(readAhead, kind, status);
          pages: for await (const page of kept.pages()) {
            for (const listed of page) {
              if (failure !== undefined) break pages;
              const wait = judgeListed(kind, listed);
              if (wait !== undefined) await wait;
            }
          }
          const how = kept.complete ? 'read ahead' : 'read ahead in part, and on by the review';
          return listedTerm(kept.requests, kept.count, `${what(kind, status)}, ${how}`);
        }
        let count = 0;
        pages: for await (const page of detectedPages(client, zoneId, kind, status, hosts, perPage)) {
          count += page.length;
          for (const listed of page) {
            if (failure !== undefined) break pages;
            const wait = judgeListed(kind, listed);
            if (wait !== undefined) await wait;
          }
        }
        return listedTerm(Math.max(1, Math.ceil(count / perPage)), count, what(kind, status));
      };
      const listed = await Promise.all(
        (['scripts', 'connections'] as const).flatMap((kind) =>
          DETECTED_STATUSES.map((status) => listing(kind, status)),
        ),
      );
      await Promise.all(reads);
      if (failure !== undefined) throw failure.error;
      zoneTerms.push(...listed);
    }

    // The pages of the violations each policy lists first (scripts it would block that are
    // neither malicious nor accepted, malicious scripts it allows), where the list gave only their
    // first page: the reviewer reads where they run. Connections have no list of pages to read.
    const results = evaluator.results();
    const shown = new Set<string>();
    for (const result of results) {
      const blocked = result.effect === 'block' ? result.scripts.notAllowed.lines : [];
      [
        ...blocked.filter((line) => !line.malicious && line.accepted === undefined),
        ...result.scripts.maliciousAllowed.lines,
      ]
        .filter((line) => line.pagesBasis === 'any')
        .slice(0, PAGES_SHOWN_PER_POLICY)
        .forEach((line) => shown.add(line.id));
    }
    const pageUrls = new Map<string, string[]>();
    const ids = [...shown];
    await mapLimited(ids, LOOKUP_CONCURRENCY, async (id) => {
      try {
        pageUrls.set(id, (await getScript(client, zoneId, id)).page_urls);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
      made += 1;
    });
    shownReads += ids.length;
    if (ids.length > 0) zoneTerms.push(`${ids.length} (pages of the violations listed first)`);
    terms.push(`zone ${zoneId}: ${zoneTerms.join(' + ')}`);

    // The results come in the order the zone's policies are judged in.
    const judgingOrder = inJudgingOrder(policies);
    policies.forEach((policy) => {
      const result = results[judgingOrder.indexOf(policy)]!;
      completePages(result.scripts, result.hostname, pageUrls);
      reviews.push({
        key: policy.key,
        name: policy.name,
        zoneId,
        action: policy.policy.action,
        enabled: policy.policy.enabled,
        value: policy.policy.value,
        ...result,
        // Nothing read: no source is known to allow nothing.
        ...(notRead !== undefined
          ? {
              notRead,
              scripts: { ...result.scripts, unusedSources: [] },
              connections: { ...result.connections, unusedSources: [] },
            }
          : {}),
      });
    });
  }

  // The CSP headers of the inventories' hosts against the stack's policies before the change: the
  // zones the CSP review did not list are listed now, one request each.
  const compared = Array.isArray(input.previousPolicies);
  const headerZones = compared
    ? [...new Set(inventories.map((review) => review.zoneId))].filter((zoneId) => !livePolicies.has(zoneId))
    : [];
  for (const zoneId of headerZones) {
    livePolicies.set(zoneId, await listPolicies(client, zoneId));
    made += 1;
  }
  if (headerZones.length > 0) terms.push(`${headerZones.length} (the policies of the inventories' zones)`);
  const previous = input.previousPolicies;
  if (previous !== undefined)
    for (const review of inventories) review.headerChanges = headerChangesOf(review, livePolicies, previous);

  const pools: PoolCoverage[] = [];
  const accounts = [...new Set(input.migrations.map((migration) => migration.accountId))];
  for (const accountId of accounts) {
    const all = await listPools(client, { accountId });
    made += 1;
    const covered = new Set(
      input.notifications
        .filter((notification) => notification.accountId === accountId && notification.enabled)
        .flatMap((notification) => notification.poolIds),
    );
    const uncovered = all.filter((pool) => !covered.has(pool.id));
    for (const migration of input.migrations.filter((m) => m.accountId === accountId)) {
      pools.push({
        key: migration.key,
        name: migration.name,
        accountId,
        pools: all.length,
        uncovered: {
          count: uncovered.length,
          names: uncovered.slice(0, POOL_NAMES_LISTED).map((pool) => pool.name),
        },
      });
    }
  }

  terms.push(...inventoryTerms);
  const maxLookups = options.maxPageLookups ?? MAX_PAGE_LOOKUPS;
  const unused = (await options.readAhead?.unusedRequests()) ?? 0;
  const unusedInventories = (await options.inventoryReadAhead?.unusedRequests()) ?? 0;
  made += unused + unusedInventories;
  const bound =
    zones.length +
    headerZones.length +
    listPages +
    shownReads +
    maxLookups +
    accounts.length +
    inventoryBound +
    unused +
    unusedInventories;
  if (maxLookups > 0) terms.push(`at most ${maxLookups} script reads`);
  if (unused > 0) terms.push(`${unused} (listings read ahead on the previous state's hosts and not used)`);
  if (unusedInventories > 0)
    terms.push(`${unusedInventories} (inventory pages' scripts read ahead on the previous state's pages and not used)`);
  if (accounts.length > 0) terms.push(`${accounts.length} pool list${accounts.length === 1 ? '' : 's'}`);
  return { policies: reviews, pools, inventories, requests: { made, bound, plan: terms.join('; ') } };
}
