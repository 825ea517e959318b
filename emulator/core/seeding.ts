import type { z } from 'zod';
import type { Transaction } from './store';
import type { EmulatorContext } from './tenancy';

/**
 * One key of a seed document (contract: "A seed document ... every key is optional"), owned by
 * the service whose records it makes. Items use the API's own field names; a field left out gets
 * a plausible generated value, a field given is kept as given. References (`zone_id`,
 * `account_id`) are checked by the seed loader before `apply` runs; `apply` writes into the one
 * transaction of the whole document, so a seed lands whole or not at all.
 */
export interface SeedSection<S extends z.ZodType = z.ZodType> {
  /** Schema of one item. */
  item: S;
  /** Which reference each item carries, checked against existing and seeded zones/accounts. */
  reference: 'zone_id' | 'account_id';
  apply(tx: Transaction, ctx: EmulatorContext, items: z.output<S>[]): void;
}
