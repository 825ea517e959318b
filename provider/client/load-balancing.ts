import { z } from 'zod';
import { dialectOf } from '../settings';
import { EdgeGuardError } from './errors';
import type { HttpClient } from './http';
import { reported } from './reading';

/**
 * Load-balancing pools at account level (spec 2.7, 4; contract "Load balancing pools"): the list,
 * and the bulk edit that removes the legacy `notification_email` recipients one page at a time.
 * Only the fields the migration needs are modelled, as in the spec.
 */

/** A text field the vendor declares optional: absent (or null) reads as `""`. */
const optionalText = reported(z.string()).transform((value) => value ?? '');

/**
 * A pool as the API returns it (contract: `id`, `name`, `notification_email`, `created_on`,
 * `modified_on`). The vendor's schema declares every field of a pool optional: an absent text
 * reads as `""` (for `notification_email`, spec 2.7's "none"), absent times stay absent.
 */
export const poolSchema = z.object({
  id: optionalText,
  name: optionalText,
  /** Spec 2.7: the legacy recipient of health alerts; `""` (or absent) means none. */
  notification_email: optionalText,
  created_on: reported(z.string()),
  modified_on: reported(z.string()),
});

/** A load-balancing pool. */
export type Pool = z.output<typeof poolSchema>;

/** Which account's pools to list. */
export interface PoolListParams {
  accountId: string;
}

/** One page of the bulk edit (spec 4): the pools on that page of the name order get `notificationEmail`. */
export interface PoolBulkEditParams {
  accountId: string;
  /** `""` removes the legacy recipient (spec 4); otherwise an e-mail address. */
  notificationEmail: string;
  /**
   * 1-based page of the list order (name ascending), with {@link perPage}: the spec dialect's
   * paging. The vendor's bulk edit declares no paging and edits every pool: leave both out there.
   */
  page?: number;
  /** Pools per page, 1..1000 (contract). Without paging the spec's API edits only the first 25 (spec 8). */
  perPage?: number;
}

const poolsPath = (accountId: string) => `accounts/${accountId}/load_balancers/pools`;

/** Every pool of the account, in the contract's order (name ascending, the order the bulk edit pages). */
export async function listPools(http: HttpClient, params: PoolListParams): Promise<Pool[]> {
  const answer = await http.send({
    operation: 'list load-balancing pools',
    method: 'GET',
    path: poolsPath(params.accountId),
    result: z.array(poolSchema),
  });
  return answer.result;
}

/**
 * Sets `notification_email` on one page of pools (in the vendor dialect, on every pool) and returns the pools of that page as they are
 * after the edit. Safe to repeat (the retry policy may): it sets a value rather than changing one.
 */
export async function bulkEditPools(http: HttpClient, params: PoolBulkEditParams): Promise<Pool[]> {
  if (dialectOf(http.settings) === 'vendor') {
    if (params.page !== undefined || params.perPage !== undefined)
      throw new EdgeGuardError(
        "the vendor's bulk edit of pools declares no paging: it edits every pool in one request",
      );
    // Its body declares `notification_email` as `""` only (SDK 7.1.0): the edit removes, never sets.
    if (params.notificationEmail !== '')
      throw new EdgeGuardError('the vendor\'s bulk edit of pools can only remove notification_email ("")');
  }
  const answer = await http.send({
    operation: 'bulk edit load-balancing pools',
    method: 'PATCH',
    path: poolsPath(params.accountId),
    query: { per_page: params.perPage, page: params.page },
    body: { notification_email: params.notificationEmail },
    result: z.array(poolSchema),
  });
  return answer.result;
}
