import { z } from 'zod';
import { expecting } from '../../../rules/zod';
import { Collection, type Store } from '../../core/store';
import { emailSchema } from '../../core/validation';

/**
 * Load-balancing pools (spec 2.7, contract "Load balancing pools"). Only the fields the migration
 * of legacy health e-mails needs are modelled; the spec shows no others.
 */

/** A pool as stored: the wire record plus the account it belongs to. */
export interface StoredPool {
  account_id: string;
  id: string;
  name: string;
  /** Spec 2.7: legacy recipient of health alerts; `""` means none. */
  notification_email: string;
  created_on: string;
  modified_on: string;
}

/** A pool as the API returns it (contract: `id`, `name`, `notification_email`, `created_on`, `modified_on`). */
export interface Pool {
  id: string;
  name: string;
  notification_email: string;
  created_on: string;
  modified_on: string;
}

export const pools = new Collection<StoredPool>('pools');

/** The wire form: the owning account is implied by the path, and the vendor does not echo it. */
export function poolView(pool: StoredPool): Pool {
  return {
    id: pool.id,
    name: pool.name,
    notification_email: pool.notification_email,
    created_on: pool.created_on,
    modified_on: pool.modified_on,
  };
}

/**
 * Code-unit order of names, ties broken by id, so the order (and therefore which pools a bulk
 * PATCH page touches) is the same on every call and every machine, whatever the locale.
 */
function byNameThenId(a: StoredPool, b: StoredPool): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

/** Every pool of the account, in the list order of the contract (name ascending). One sort per call. */
export function accountPools(store: Store, accountId: string): StoredPool[] {
  return store
    .list(pools)
    .filter((pool) => pool.account_id === accountId)
    .sort(byNameThenId);
}

/** Spec 4: `""` removes the legacy recipient; anything else must be an address. */
export const notificationEmailSchema = z
  .string(expecting('an e-mail address, or "" to remove the legacy recipient'))
  .refine(
    (value) => value === '' || emailSchema.safeParse(value).success,
    expecting('an e-mail address, or "" to remove the legacy recipient'),
  );
