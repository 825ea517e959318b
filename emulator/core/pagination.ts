import { z } from 'zod';
import type { PageBounds } from '../../rules/dialect';
import type { ResultInfo } from './envelope';
import { queryInteger } from './validation';

/** Largest `per_page` (and `limit`): the contract fixes 1..1000 for pools; we use it everywhere. */
export const MAX_PER_PAGE = 1000;

/**
 * `page` and `per_page` of list endpoints; out of range is a 400 naming the parameter. `bounds` are
 * those of `per_page` (default 1..{@link MAX_PER_PAGE}; the vendor's dialect has its own,
 * `LIST_PAGE_BOUNDS` of `rules/dialect.ts`).
 */
export function pageQuery(defaultPerPage: number, bounds: PageBounds = { min: 1, max: MAX_PER_PAGE }) {
  return z.object({
    page: queryInteger('page', 1, 1_000_000_000).optional().default(1),
    per_page: queryInteger('per_page', bounds.min, bounds.max).optional().default(defaultPerPage),
  });
}

/** One page of `items` (1-based), with the spec's `result_info`. A page past the end is empty. */
export function paginate<T>(
  items: readonly T[],
  page: number,
  perPage: number,
): { items: T[]; resultInfo: ResultInfo } {
  const start = (page - 1) * perPage;
  const slice = items.slice(start, start + perPage);
  return { items: slice, resultInfo: pageInfo(page, perPage, slice.length, items.length) };
}

/** The spec's `result_info` of page `page` holding `count` of `totalCount` items. */
export function pageInfo(page: number, perPage: number, count: number, totalCount: number): ResultInfo {
  return { page, per_page: perPage, count, total_count: totalCount, total_pages: Math.ceil(totalCount / perPage) };
}

/** `result_info` for a list answered whole, on one page. */
export function wholeListInfo(count: number): ResultInfo {
  return { page: 1, per_page: Math.max(count, 1), count, total_count: count, total_pages: count === 0 ? 0 : 1 };
}
