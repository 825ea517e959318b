import { z } from 'zod';
import { fieldPath } from '../../rules/zod';
import { isoTime } from '../core/clock';
import { ApiError, ErrorCode } from '../core/errors';
import { newId, sha256Hex } from '../core/ids';
import type { SeedSection } from '../core/seeding';
import { accounts, tokens, zones, type EmulatorContext } from '../core/tenancy';
import { idSchema, timestampSchema } from '../core/validation';
import { poolsSeed } from '../services/load-balancing/seed';
import { connectionsSeed, cookiesSeed, scriptsSeed } from '../services/page-security/seed';

/**
 * Seed documents (contract: "A seed document ... also what `--seed FILE` reads"): validated whole,
 * references checked, then written in one transaction. An item with an `id` that exists already
 * replaces it, so a seed with fixed ids can be applied again without making copies. Only what
 * places a record is required (a zone's `account_id`, the `zone_id` or `account_id` of service
 * records, a token's `value`); every other field left out gets a plausible value.
 */

const accountItem = z
  .object({
    id: idSchema.optional(),
    name: z.string().min(1).max(200).optional(),
    created_on: timestampSchema.optional(),
  })
  .strict();

const zoneItem = z
  .object({
    id: idSchema.optional(),
    name: z
      .string()
      .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a lowercase domain name like example.com')
      .optional(),
    account_id: idSchema,
    created_on: timestampSchema.optional(),
  })
  .strict();

// A token's value is its identity (it is stored under its hash) and the only way to use it: a
// generated one would make a token that nobody can present, so it stays required.
const tokenItem = z
  .object({
    value: z.string().min(8, 'must be at least 8 characters').max(512).regex(/^\S+$/, 'must not contain whitespace'),
    zones: z.array(idSchema).optional(),
    accounts: z.array(idSchema).optional(),
  })
  .strict();

const serviceSections = {
  scripts: scriptsSeed,
  connections: connectionsSeed,
  cookies: cookiesSeed,
  pools: poolsSeed,
} satisfies Record<string, SeedSection>;

/** The whole seed document; every key is optional, unknown keys are refused (likely typos). */
export const seedDocumentSchema = z
  .object({
    accounts: z.array(accountItem).optional(),
    zones: z.array(zoneItem).optional(),
    tokens: z.array(tokenItem).optional(),
    ...Object.fromEntries(
      Object.entries(serviceSections).map(([key, section]) => [key, z.array(section.item).optional()]),
    ),
  })
  .strict();

/** A seed document as written (fields left out are generated). */
export type SeedDocument = {
  accounts?: z.input<typeof accountItem>[];
  zones?: z.input<typeof zoneItem>[];
  tokens?: z.input<typeof tokenItem>[];
} & { [K in keyof typeof serviceSections]?: Array<Record<string, unknown>> };

/** How many objects of each kind a seed added or replaced. */
export type SeedSummary = Record<string, number>;

function seedError(pathParts: ReadonlyArray<PropertyKey>, message: string): ApiError {
  return new ApiError(400, [{ code: ErrorCode.invalidInput, message: `${fieldPath(pathParts, 'seed')}: ${message}` }]);
}

/** Validates `document` whole and applies it in one transaction; throws a 400 naming the field. */
export function applySeed(ctx: EmulatorContext, document: unknown): SeedSummary {
  const parsed = seedDocumentSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw seedError(issue.path, issue.message);
  }
  const seed = parsed.data as Record<string, unknown[] | undefined>;
  const now = isoTime(ctx.clock.nowMs());
  const seededAccounts = (seed.accounts ?? []) as z.output<typeof accountItem>[];
  const seededZones = (seed.zones ?? []) as z.output<typeof zoneItem>[];

  const accountIds = new Set([
    ...ctx.store.list(accounts).map((a) => a.id),
    ...seededAccounts.flatMap((a) => (a.id ? [a.id] : [])),
  ]);
  seededZones.forEach((zone, index) => {
    if (!accountIds.has(zone.account_id))
      throw seedError(['zones', index, 'account_id'], `no account ${zone.account_id} exists or is seeded`);
  });
  const zoneIds = new Set([
    ...ctx.store.list(zones).map((z) => z.id),
    ...seededZones.flatMap((z) => (z.id ? [z.id] : [])),
  ]);
  for (const [key, section] of Object.entries(serviceSections)) {
    const known = section.reference === 'zone_id' ? zoneIds : accountIds;
    (seed[key] ?? []).forEach((item, index) => {
      const reference = (item as Record<string, string>)[section.reference]!;
      if (!known.has(reference)) {
        throw seedError(
          [key, index, section.reference],
          `no ${section.reference === 'zone_id' ? 'zone' : 'account'} ${reference} exists or is seeded`,
        );
      }
    });
  }

  const summary: SeedSummary = {};
  ctx.store.write((tx) => {
    for (const account of seededAccounts) {
      const id = account.id ?? newId();
      tx.put(accounts, id, {
        id,
        name: account.name ?? `Account ${id.slice(0, 8)}`,
        created_on: account.created_on ?? now,
      });
    }
    for (const zone of seededZones) {
      const id = zone.id ?? newId();
      tx.put(zones, id, {
        id,
        name: zone.name ?? `zone-${id.slice(0, 8)}.example.com`,
        account_id: zone.account_id,
        created_on: zone.created_on ?? now,
      });
    }
    for (const token of (seed.tokens ?? []) as z.output<typeof tokenItem>[]) {
      const hash = sha256Hex(token.value);
      tx.put(tokens, hash, {
        hash,
        ...(token.zones ? { zones: token.zones } : {}),
        ...(token.accounts ? { accounts: token.accounts } : {}),
      });
    }
    for (const [key, section] of Object.entries(serviceSections)) {
      const items = seed[key];
      if (items?.length) section.apply(tx, ctx, items as never[]);
    }
  });
  for (const [key, items] of Object.entries(seed)) summary[key] = items?.length ?? 0;
  return summary;
}
