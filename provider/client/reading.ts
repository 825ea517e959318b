import { z } from 'zod';

/**
 * How the client reads what the service answers (issue 42): every answer the vendor's schema
 * allows is read, not refused. Its schema (and its SDK's types) declare most fields optional, many
 * nullable, and enums that grow with each release; EdgeGuard's own requests stay strict.
 */

/**
 * A field of an answer that may be absent or null: the vendor's schema declares the scores, the
 * hash, `fetched_at` and `versions` nullable, and most fields optional. Both read as absent (not
 * reported), so callers test one thing.
 */
export function reported<S extends z.ZodType>(schema: S) {
  return z.preprocess((value) => (value === null ? undefined : value), schema.optional());
}

/**
 * An enum field of an answer: the values EdgeGuard knows, or any other string kept as it came, so
 * that a value the vendor adds (a policy's `add_reporting_directives`, a certificate status) is
 * shown, never failing the answer or the list that holds it.
 */
export type Known<T extends string> = T | (string & {});
