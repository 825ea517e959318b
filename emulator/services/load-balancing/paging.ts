import { z } from 'zod';
import type { ResultInfo } from '../../core/envelope';
import { invalidField } from '../../core/errors';
import { MAX_PER_PAGE } from '../../core/pagination';
import { parseQuery, queryInteger } from '../../core/validation';

/**
 * Which pools one bulk PATCH acts on (spec 4, 8): one page of the list order, chosen with either
 * `per_page` + `page` or `limit` + `offset`; without either, the first 25.
 */

/** Spec 8: pools updated by one bulk PATCH that names no page. */
export const DEFAULT_BULK_PAGE_SIZE = 25;

const MAX_PAGE_OR_OFFSET = 999_999_999;

const bulkQuery = z.object({
  per_page: queryInteger('per_page', 1, MAX_PER_PAGE).optional(),
  page: queryInteger('page', 1, MAX_PAGE_OR_OFFSET).optional(),
  limit: queryInteger('limit', 1, MAX_PER_PAGE).optional(),
  offset: queryInteger('offset', 0, MAX_PAGE_OR_OFFSET).optional(),
});

/** A window of the ordered list: `start` is 0-based, and `resultInfo` describes it. */
export interface PageWindow {
  start: number;
  size: number;
  /** `page` and `per_page` as the caller would see them; `page` for limit/offset is `floor(offset/limit)+1`. */
  page: number;
  perPage: number;
}

/** Parses the bulk PATCH query: a 400 naming the parameter, or one saying to use one style. */
export function parseBulkWindow(query: unknown): PageWindow {
  const given = (query ?? {}) as Record<string, unknown>;
  const pageStyle = ['per_page', 'page'].filter((name) => given[name] !== undefined);
  const offsetStyle = ['limit', 'offset'].filter((name) => given[name] !== undefined);
  if (pageStyle.length > 0 && offsetStyle.length > 0) {
    throw invalidField(
      'query',
      `use one pagination style, either per_page and page or limit and offset, not both (got ${[...pageStyle, ...offsetStyle].join(', ')})`,
    );
  }
  const parsed = parseQuery(bulkQuery, query);
  if (offsetStyle.length > 0) {
    const limit = parsed.limit ?? DEFAULT_BULK_PAGE_SIZE;
    const offset = parsed.offset ?? 0;
    return { start: offset, size: limit, page: Math.floor(offset / limit) + 1, perPage: limit };
  }
  const perPage = parsed.per_page ?? DEFAULT_BULK_PAGE_SIZE;
  const page = parsed.page ?? 1;
  return { start: (page - 1) * perPage, size: perPage, page, perPage };
}

/** The window of a whole list of `count` pools, on one page (the vendor's bulk PATCH, which has no paging). */
export function wholeWindow(count: number): PageWindow {
  return { start: 0, size: count, page: 1, perPage: Math.max(count, 1) };
}

/** `result_info` of a page of `count` items out of `totalCount`. */
export function windowInfo(window: PageWindow, count: number, totalCount: number): ResultInfo {
  return {
    page: window.page,
    per_page: window.perPage,
    count,
    total_count: totalCount,
    total_pages: Math.ceil(totalCount / window.perPage),
  };
}
