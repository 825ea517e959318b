import type { Collection, RecordChange, Store } from '../../core/store';
import type { DetectedRecord, DetectedStatus } from './records';

/**
 * The order of the detected lists (spec 3 and 4: oldest `first_seen_at` first, then id), kept
 * for each zone and status, and for each host within those, so that a page costs what it returns
 * instead of a filter and sort of every zone's objects per request (about 50 ms a page at 50,000
 * scripts).
 *
 * A commit that changes few objects moves them in place in the sorted lists it touches; one that
 * changes many (a seed) leaves those lists to be sorted once, at the next request that reads them.
 */

/** Above this many changes in one commit, re-sorting a list once beats moving each object. */
const IN_PLACE_LIMIT = 64;
/** Merged or refined lists kept at once (a client pages through one or two at a time). */
const MERGES_KEPT = 8;

interface Bucket<T> {
  members: Map<string, T>;
  /** `members` in list order; absent until a request needs it after a bulk change. */
  sorted: T[] | undefined;
}

/** What a list keeps of the objects and the order it asks first (the filters of `./list-filters.ts`). */
export interface Refinement<T> {
  keep: ((record: T) => boolean) | undefined;
  compare: ((a: T, b: T) => number) | undefined;
  /** Two refinements of the same key keep the same objects in the same order. */
  key: string;
}

/** One page of a detected list and how many objects the whole list holds. */
export interface DetectedPage<T> {
  items: T[];
  total: number;
}

/** Spec 3 and 4: `first_seen_at`, then id, both by code unit. */
function compare(a: DetectedRecord, b: DetectedRecord): number {
  if (a.first_seen_at !== b.first_seen_at) return a.first_seen_at < b.first_seen_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Where `record` is, or belongs, in `sorted`. */
function position<T extends DetectedRecord>(sorted: readonly T[], record: T): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(sorted[middle]!, record) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The sorted lists of one collection of detected objects (scripts, connections or cookies). */
export class DetectedOrder<T extends DetectedRecord> {
  private readonly buckets = new Map<string, Bucket<T>>();
  /**
   * The merge of several hosts' lists, or a refined list, by zone, status, host set and
   * refinement, as of `version`: paging through such a list merges (and filters) it once instead of up to each page's end at every page (which
   * grew with the square of the pages: about 20 ms a page at 45,000 scripts on 20 hosts).
   */
  private readonly merges = new Map<string, { version: number; items: T[] }>();
  /** Moves on every change, so that a merge or a page made before it is not used after it. */
  private changes = 0;

  constructor(store: Store, collection: Collection<T>) {
    store.watch(collection, (changes) => this.update(changes));
  }

  /** The lists' version: it moves whenever one of the collection's objects changes. */
  get version(): number {
    return this.changes;
  }

  /**
   * Page `page` (1-based, `perPage` long) of the zone's objects with `status`, limited to `hosts`
   * (lowercase) unless that is empty, and to those `refinement` keeps, in its order before the
   * usual one. With several hosts or a refinement, the list is made whole at the first page read
   * after a change, and later pages are slices of it.
   */
  page(
    zoneId: string,
    status: DetectedStatus | readonly string[],
    hosts: ReadonlySet<string>,
    page: number,
    perPage: number,
    refinement?: Refinement<T>,
  ): DetectedPage<T> {
    // Several statuses (the vendor's comma-separated `status`) are merged as several hosts are; a
    // status no object has (its `inactive`) has no list.
    const statuses = typeof status === 'string' ? [status] : [...new Set(status)].sort();
    const lists = statuses.flatMap((one) =>
      hosts.size === 0
        ? [this.sorted(`${zoneId}\u0000${one}`)]
        : [...hosts].map((host) => this.sorted(`${zoneId}\u0000${one}\u0000${host}`)),
    );
    const start = (page - 1) * perPage;
    if (lists.length === 1 && refinement?.keep === undefined && refinement?.compare === undefined) {
      return { items: lists[0]!.slice(start, start + perPage), total: lists[0]!.length };
    }
    const key = `${zoneId}\u0000${statuses.join(',')}\u0000${[...hosts].sort().join(',')}\u0000${refinement?.key ?? ''}`;
    let merge = this.merges.get(key);
    if (merge?.version !== this.changes) {
      if (this.merges.size >= MERGES_KEPT) this.merges.clear();
      let items = lists.length === 1 ? [...lists[0]!] : lists.flat().sort(compare);
      if (refinement?.keep) items = items.filter(refinement.keep);
      // Array.prototype.sort is stable: items the refinement's order ties keep the usual order.
      if (refinement?.compare) items.sort(refinement.compare);
      merge = { version: this.changes, items };
      this.merges.set(key, merge);
    }
    return { items: merge.items.slice(start, start + perPage), total: merge.items.length };
  }

  private sorted(key: string): readonly T[] {
    const bucket = this.buckets.get(key);
    if (!bucket) return [];
    bucket.sorted ??= [...bucket.members.values()].sort(compare);
    return bucket.sorted;
  }

  private update(changes: ReadonlyArray<RecordChange<T>>): void {
    this.changes += 1;
    const inPlace = changes.length <= IN_PLACE_LIMIT;
    for (const { id, before, after } of changes) {
      if (before) for (const key of keysOf(before)) this.remove(key, id, before, inPlace);
      if (after) for (const key of keysOf(after)) this.insert(key, after, inPlace);
    }
  }

  private remove(key: string, id: string, record: T, inPlace: boolean): void {
    const bucket = this.buckets.get(key);
    if (!bucket?.members.delete(id)) return;
    if (bucket.members.size === 0) {
      this.buckets.delete(key);
    } else if (bucket.sorted && inPlace) {
      bucket.sorted.splice(position(bucket.sorted, record), 1);
    } else {
      bucket.sorted = undefined;
    }
  }

  private insert(key: string, record: T, inPlace: boolean): void {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { members: new Map(), sorted: [] };
      this.buckets.set(key, bucket);
    }
    bucket.members.set(record.id, record);
    if (bucket.sorted && inPlace) bucket.sorted.splice(position(bucket.sorted, record), 0, record);
    else bucket.sorted = undefined;
  }
}

/** The lists an object appears in: its zone and status, and that with its host. */
function keysOf(record: DetectedRecord): [string, string] {
  const list = `${record.zone_id}\u0000${record.status}`;
  return [list, `${list}\u0000${record.host.toLowerCase()}`];
}
