import { z } from 'zod';
import { isoTime } from '../../core/clock';
import { newId, stableId } from '../../core/ids';
import type { SeedSection } from '../../core/seeding';
import { idSchema, timestampSchema } from '../../core/validation';
import { notificationEmailSchema, pools } from './records';

const poolSeedItem = z
  .object({
    account_id: idSchema,
    name: z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters').optional(),
    notification_email: notificationEmailSchema.optional(),
    id: idSchema.optional(),
    created_on: timestampSchema.optional(),
    modified_on: timestampSchema.optional(),
  })
  .strict();

/**
 * The `pools` key of a seed document; only `account_id` is required. The default id is derived
 * from account and name, so seeding the same pools again replaces them instead of adding copies; a
 * pool without a name is named after its id when given, else something new. Timestamps left out are
 * filled so that `created_on <= modified_on` still holds for a pool given only one of them.
 */
export const poolsSeed: SeedSection<typeof poolSeedItem> = {
  item: poolSeedItem,
  reference: 'account_id',
  apply(tx, ctx, items) {
    const now = isoTime(ctx.clock.nowMs());
    for (const item of items) {
      const name = item.name ?? `pool-${(item.id ?? newId()).slice(0, 8)}`;
      const id = item.id ?? stableId(item.account_id, name);
      const createdOn = item.created_on ?? item.modified_on ?? now;
      tx.put(pools, id, {
        account_id: item.account_id,
        id,
        name,
        notification_email: item.notification_email ?? '',
        created_on: createdOn,
        modified_on: item.modified_on ?? createdOn,
      });
    }
  },
};
