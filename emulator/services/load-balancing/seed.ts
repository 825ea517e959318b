import { z } from 'zod';
import type { SeedSection } from '../../core/seeding';
import { idSchema } from '../../core/validation';

/** Placeholder seed section until the service lands. */
export const poolsSeed: SeedSection = { item: z.object({ account_id: idSchema }).loose(), reference: 'account_id', apply: () => undefined };
