import { parseInventoryPage, type InventoryPage } from '../../rules/inventory';
import type { HttpClient } from '../client/http';
import { listScriptsOnPages, newTally, type ReadTally, type ScriptOnPages } from './scripts';
import { exportedResources } from '../stack/export';

/**
 * The script inventories' read ahead: the scripts page security detects on each inventory's pages,
 * listed while the engine runs the program, from the zone and pages the previous state gives, as
 * the CSP policies' listings are (`../impact/read-ahead.ts`). The listing does not depend on the
 * entries (`listScriptsOnPages` of `./scripts.ts`); the review reads the few scripts whose pinned
 * hash is not the listed one once it knows the entries the change proposes (`readChangedScripts`),
 * and judges. A change to the entries, the usual one (a re-pin, a new script), keeps the zone and
 * the pages. An inventory whose zone or pages changed reads anew; a reading no inventory used is
 * aborted, counted in the requests by what it asked, and stated in the bound.
 */

/** An inventory's zone and pages, as the previous state gives them. */
export interface InventoryTarget {
  zoneId: string;
  pages: readonly InventoryPage[];
}

/** What an inventory read ahead gives its review: the scripts listed on its pages, and what the listing listed, read and asked. */
export interface InventoryRead {
  scripts: ScriptOnPages[];
  tally: ReadTally;
}

/** The key of a zone and a set of pages: the same whatever the pages' order. */
function targetKey(zoneId: string, pages: readonly InventoryPage[]): string {
  return JSON.stringify([zoneId.toLowerCase(), [...new Set(pages.map((page) => page.text))].sort()]);
}

/**
 * The zone and pages of each `ScriptInventory` of a `pulumi stack export` (EdgeGuard's dynamic
 * resources and the provider plugin's), from its inputs (else its outputs); an inventory whose zone
 * is not a string, or whose pages are not all pages that parse, is left out, as is a second one of
 * the same zone and pages (one reading serves both alike).
 */
export function inventoryTargets(exported: unknown): InventoryTarget[] {
  const targets = new Map<string, InventoryTarget>();
  for (const { kind, inputs, outputs } of exportedResources(exported)) {
    if (kind !== 'ScriptInventory') continue;
    const zoneId = inputs.zoneId ?? outputs.zoneId;
    const written = inputs.pages ?? outputs.pages;
    if (typeof zoneId !== 'string' || !Array.isArray(written) || written.length === 0) continue;
    const pages: InventoryPage[] = [];
    for (const text of written) {
      const page = typeof text === 'string' ? parseInventoryPage(text) : undefined;
      if (page?.ok) pages.push(page.value);
    }
    if (pages.length !== written.length) continue;
    const key = targetKey(zoneId, pages);
    if (!targets.has(key)) targets.set(key, { zoneId: zoneId.toLowerCase(), pages });
  }
  return [...targets.values()];
}

/** One inventory's reading. */
interface Reading {
  tally: ReadTally;
  /** Settles with the scripts listed, or rejects with the reading's failure. */
  done: Promise<ScriptOnPages[]>;
  taken: boolean;
  /** Stops the reading at its next page or batch. */
  stop: AbortController;
}

/**
 * The readings of the inventories the previous state names, started by {@link start};
 * {@link take} gives one to the review of an inventory of the same zone and pages.
 */
export class InventoryReadAhead {
  private readonly readings = new Map<string, Reading>();
  private disposed = false;

  constructor(
    private readonly client: HttpClient,
    private readonly targets: readonly InventoryTarget[],
  ) {}

  /** Starts every inventory's reading, side by side. */
  start(): this {
    for (const { zoneId, pages } of this.targets) {
      const tally = newTally();
      const stop = new AbortController();
      const done = listScriptsOnPages(this.client, zoneId, pages, { tally, signal: stop.signal });
      // A failure is the review's to meet, where it is awaited; until then it is not unhandled.
      done.catch(() => undefined);
      this.readings.set(targetKey(zoneId, pages), { tally, done, taken: false, stop });
    }
    return this;
  }

  /**
   * The scripts listed ahead on `pages` of `zoneId`, once listed, with what the reading listed,
   * read and asked: `undefined` when no reading has that zone and that set of pages, or it failed, was
   * given already, or was disposed of (the review then reads for itself, and reports a failure
   * that lasts).
   */
  async take(zoneId: string, pages: readonly InventoryPage[]): Promise<InventoryRead | undefined> {
    const reading = this.readings.get(targetKey(zoneId, pages));
    if (this.disposed || reading === undefined || reading.taken) return undefined;
    reading.taken = true;
    try {
      return { scripts: await reading.done, tally: reading.tally };
    } catch {
      reading.taken = false;
      return undefined;
    }
  }

  /** Settles once every reading has ended, read to its end, failed or aborted. */
  async ended(): Promise<void> {
    await Promise.allSettled([...this.readings.values()].map((reading) => reading.done));
  }

  /**
   * The requests of the readings no review took: each aborted, not read to its end, and counted
   * once it has stopped by what it asked.
   */
  async unusedRequests(): Promise<number> {
    let requests = 0;
    for (const reading of this.readings.values()) {
      if (reading.taken) continue;
      reading.stop.abort();
      await reading.done.catch(() => undefined);
      requests += reading.tally.requests;
    }
    return requests;
  }

  /** Stops reading: each reading ends at its next page or batch. */
  dispose(): void {
    this.disposed = true;
    for (const reading of this.readings.values()) reading.stop.abort();
  }
}
