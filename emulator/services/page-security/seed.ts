import { z } from 'zod';
import type { SeedSection } from '../../core/seeding';
import { idSchema } from '../../core/validation';

/** Placeholder seed sections until the service lands. */
const placeholder: SeedSection = { item: z.object({ zone_id: idSchema }).loose(), reference: 'zone_id', apply: () => undefined };
export const scriptsSeed = placeholder;
export const connectionsSeed = placeholder;
export const cookiesSeed = placeholder;
