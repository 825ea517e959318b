import './compile-cache';
import { z } from 'zod';
import { EdgeGuardError } from '../client/errors';
import type { HttpClient } from '../client/http';
import { bulkEditPools, listPools, type Pool } from '../client/load-balancing';
import { dialectOf } from '../settings';
import { expecting } from '../../rules/zod';
import { accountIdSchema, hasUnknown } from './check';
import type { Runtime, RuntimeContext } from './contract';
import { PartialFailure } from './partial';

/**
 * The runtime of `PoolNotificationMigration`: removes the legacy `notification_email` of every
 * load-balancing pool of an account (spec 4, 6.2, 9.2) and proves it with a full list afterwards.
 *
 * The plan, for N pools and P pools per page: one list (every pool, its e-mail and its place in the
 * name order), one bulk edit per page that holds an e-mail (the bulk edit pages the same order, so
 * the list says which pages need one), then one list to verify: at most ceil(N/P) + 2 requests, and
 * one request on an account already migrated. Pools can appear or get an e-mail back meanwhile, and
 * new pools shift the pages, so the verifying list starts another round when it finds any; after
 * `maxRounds` rounds that still leave some, the operation fails naming them.
 */

/** Contract: the bulk edit's `per_page` range. */
export const MAX_PER_PAGE = 1000;
/** Rounds of edits when `maxRounds` is not given. */
export const DEFAULT_MAX_ROUNDS = 3;
/** How many names of pools left a failure message lists before summarising the rest. */
const NAMES_IN_MESSAGE = 50;

function integerFrom(min: number, max: number, why: string) {
  const what = `an integer from ${min} to ${max}${why}`;
  return z.number(expecting(what)).int(expecting(what)).min(min, expecting(what)).max(max, expecting(what));
}

/** The inputs, as `check` accepts them. */
export const inputsSchema = z.object({
  accountId: accountIdSchema.meta({
    description:
      'The account whose pools to migrate (32 hexadecimal characters); another account is another migration.',
    replaces: true,
  }),
  perPage: integerFrom(1, MAX_PER_PAGE, ' (pools per bulk edit; the API takes at most 1000)')
    .default(MAX_PER_PAGE)
    .meta({
      description: 'Pools per bulk edit, 1 to 1000 (the default makes the fewest requests).',
    }),
  maxRounds: integerFrom(1, 10, ' (rounds of edits before giving up on pools that keep getting an e-mail)')
    .default(DEFAULT_MAX_ROUNDS)
    .meta({
      description: `Rounds of list-and-edit before failing on pools that keep getting an e-mail (or keep appearing)
        while the migration runs, 1 to 10.`,
    }),
});

/** The inputs after `check`, defaults applied. */
export type PoolNotificationMigrationInputs = z.output<typeof inputsSchema>;

/** The outputs that are not inputs: what the last run found and did, and what a refresh counts. */
const outputsSchema = z.object({
  poolsSeen: z.number().int().meta({ description: 'Pools of the account seen by the lists of the last run.' }),
  poolsCleared: z.number().int().meta({ description: "Pools whose e-mail the last run's bulk edits removed." }),
  removedEmails: z.record(z.string(), z.string()).meta({
    description: `Pool name → the last e-mail removed from it, as the list showed it before the edit: every pool
      this resource ever cleared, with the address a later run removed replacing an earlier one (pools sharing a
      name share an entry). A pool created with an e-mail between a list and the edit of its page is cleared
      without its address being known, so it is missing here: the bulk edit does not say what it overwrote.`,
  }),
  poolsWithEmail: z.number().int().meta({
    description: 'Pools that carry an e-mail: 0 after a run, counted again by `pulumi refresh`.',
  }),
});

/** The outputs of the resource. */
export type PoolNotificationMigrationOutputs = PoolNotificationMigrationInputs & z.output<typeof outputsSchema>;

/** What one run of the migration found and did: the outputs it sets, its `removedEmails` only what it removed. */
export type MigrationRun = Omit<z.output<typeof outputsSchema>, 'poolsWithEmail'>;

const INPUT_KEYS = Object.keys(inputsSchema.shape) as Array<keyof PoolNotificationMigrationInputs>;

/** The pages (1-based, of `perPage` pools, in list order) that hold a pool with an e-mail. */
export function pagesWithEmail(pools: readonly Pool[], perPage: number): number[] {
  const pages = new Set<number>();
  pools.forEach((pool, index) => {
    if (pool.notification_email !== '') pages.add(Math.floor(index / perPage) + 1);
  });
  return [...pages].sort((a, b) => a - b);
}

/** Thrown when pools still carry an e-mail after the last round; names them. */
export class MigrationIncompleteError extends EdgeGuardError {
  override name = 'MigrationIncompleteError';
  constructor(
    readonly accountId: string,
    readonly poolsLeft: readonly string[],
    rounds: number,
  ) {
    const names = poolsLeft.slice(0, NAMES_IN_MESSAGE).map((name) => JSON.stringify(name));
    const more = poolsLeft.length > NAMES_IN_MESSAGE ? ` and ${poolsLeft.length - NAMES_IN_MESSAGE} more` : '';
    super(
      `the pools of account ${accountId} still have a notification_email after ${rounds} round(s) of bulk edits, so something keeps adding pools or e-mails meanwhile: ${names.join(', ')}${more}. Stop whatever sets them (a script, another stack, someone in the dashboard), then run pulumi up again; raise maxRounds if pools are being created in large numbers`,
    );
  }
}

/**
 * What a run has done so far, kept outside the run so that an interrupted one can still report
 * it: the pools seen, those cleared (seen with an e-mail, then empty in the edited page), those
 * with an e-mail when last listed, and the page whose edit is in flight (its answer may be lost
 * after the service applied it).
 */
export interface MigrationProgress {
  seen: Set<string>;
  cleared: Map<string, Pool>;
  withEmail: number;
  inFlight: Pool[];
}

export function newProgress(): MigrationProgress {
  return { seen: new Set(), cleared: new Map(), withEmail: 0, inFlight: [] };
}

/** The run's outputs from its progress; `removedEmails` includes the page in flight, if any. */
function runOf(progress: MigrationProgress): MigrationRun {
  const removed = [...progress.cleared.values(), ...progress.inFlight];
  return {
    poolsSeen: progress.seen.size,
    poolsCleared: progress.cleared.size,
    removedEmails: Object.fromEntries(removed.map((pool) => [pool.name, pool.notification_email])),
  };
}

/** Runs the migration of `inputs.accountId` (see the module's comment for the plan). */
export async function migrate(
  client: HttpClient,
  inputs: PoolNotificationMigrationInputs,
  progress: MigrationProgress = newProgress(),
): Promise<MigrationRun> {
  const { accountId, perPage, maxRounds } = inputs;
  for (let round = 1; ; round++) {
    const pools = await listPools(client, { accountId });
    for (const pool of pools) progress.seen.add(pool.id);
    const withEmail = new Map(pools.filter((pool) => pool.notification_email !== '').map((pool) => [pool.id, pool]));
    progress.withEmail = withEmail.size;
    if (withEmail.size === 0) return runOf(progress);
    if (round > maxRounds)
      throw new MigrationIncompleteError(
        accountId,
        [...withEmail.values()].map((pool) => pool.name),
        maxRounds,
      );
    // Pages run one after another: the API edits a whole page in one request already, and a
    // page holding no e-mail is never sent, so little would be gained by running them at once.
    // The vendor's bulk edit has no pages: one request edits every pool.
    const vendor = dialectOf(client.settings) === 'vendor';
    for (const page of vendor ? [undefined] : pagesWithEmail(pools, perPage)) {
      progress.inFlight = (page === undefined ? pools : pools.slice((page - 1) * perPage, page * perPage)).filter(
        (pool) => pool.notification_email !== '',
      );
      const after = await bulkEditPools(client, {
        accountId,
        notificationEmail: '',
        ...(page !== undefined ? { page, perPage } : {}),
      });
      progress.inFlight = [];
      for (const pool of after) {
        const before = withEmail.get(pool.id);
        // Pools that arrived since the list shift the pages: only a pool seen with an e-mail and
        // seen empty in the edited page counts as cleared here; the next list catches the others.
        if (before !== undefined && pool.notification_email === '') progress.cleared.set(pool.id, before);
      }
    }
  }
}

/**
 * A run that stopped part-way (a failure it could not retry past, or pools that kept getting an
 * e-mail): the account is recorded with what the run removed so far, so no removed address is
 * forgotten, and the next `pulumi up` runs the migration again. A run that changed nothing fails
 * plainly.
 */
function interrupted(
  error: unknown,
  inputs: PoolNotificationMigrationInputs,
  progress: MigrationProgress,
  earlier: Record<string, string>,
): unknown {
  if (progress.cleared.size === 0 && progress.inFlight.length === 0) return error;
  const run = runOf(progress);
  const outs: PoolNotificationMigrationOutputs = {
    ...inputs,
    ...run,
    removedEmails: { ...earlier, ...run.removedEmails },
    poolsWithEmail: Math.max(1, progress.withEmail - progress.cleared.size),
  };
  const message = `${(error as Error).message}. The migration stopped part-way: ${run.poolsCleared} pool(s) cleared so far, their addresses kept in removedEmails; run pulumi up again to finish it`;
  return new PartialFailure(message, inputs.accountId, outs, { cause: error });
}

/** `removedEmails` of earlier runs, kept so the record of removed addresses is never lost. */
function earlierRemovedEmails(olds: Partial<PoolNotificationMigrationOutputs>): Record<string, string> {
  const parsed = z.record(z.string(), z.string()).safeParse(olds.removedEmails);
  return parsed.success ? parsed.data : {};
}

/** Runs the migration, recording what it did if it stops part-way. */
async function run(
  ctx: RuntimeContext,
  inputs: PoolNotificationMigrationInputs,
  earlier: Record<string, string>,
): Promise<PoolNotificationMigrationOutputs> {
  const progress = newProgress();
  const done = await migrate(ctx.client, inputs, progress).catch((error: unknown) => {
    throw interrupted(error, inputs, progress, earlier);
  });
  return { ...inputs, ...done, removedEmails: { ...earlier, ...done.removedEmails }, poolsWithEmail: 0 };
}

/** The runtime of `PoolNotificationMigration`. Its id is the account id. */
export const runtime: Runtime<PoolNotificationMigrationInputs, PoolNotificationMigrationOutputs> = {
  resource: 'PoolNotificationMigration',
  description: `Removes the legacy \`notification_email\` from every load-balancing pool of an account (spec 4,
    6.2: deprecation e-mails keep coming while any pool has one), and verifies with a full list that none is
    left. Make it depend on the \`HealthNotification\` that takes over the alerts (\`dependsOn\`), so that alerts
    are never lost in between.

    Requests: one list, one bulk edit per page of \`perPage\` pools that holds an e-mail, one list to verify.
    An update (a change of \`perPage\` or \`maxRounds\`) runs the migration again. \`pulumi refresh\` counts the pools that carry an e-mail again (\`poolsWithEmail\`), and the next \`pulumi
    up\` clears them. Deleting the resource changes nothing in the account: removed e-mails are not put back
    (they are recorded in \`removedEmails\`).`,
  inputs: inputsSchema,
  outputs: outputsSchema,

  /**
   * A change of `perPage` or `maxRounds`, or pools that carry an e-mail again (`poolsWithEmail` >
   * 0 after a refresh, named on that output), is an update, which runs the migration again.
   */
  diff(olds, news) {
    const changed: string[] = INPUT_KEYS.filter((key) => hasUnknown(news[key]) || olds[key] !== news[key]);
    if (typeof olds.poolsWithEmail === 'number' && olds.poolsWithEmail > 0) changed.push('poolsWithEmail');
    return changed;
  },

  /** Runs the migration; fails naming the pools left if some keep getting an e-mail. */
  async create(ctx, inputs) {
    return { id: inputs.accountId, outs: await run(ctx, inputs, {}) };
  },

  /**
   * Counts the pools that carry an e-mail now (one list), so `pulumi refresh` shows them as drift
   * and the next `pulumi up` clears them. An account that no longer exists: gone.
   */
  async read(ctx, id, props) {
    const stored = { ...props, accountId: props.accountId ?? id };
    const pools = await listPools(ctx.client, { accountId: stored.accountId });
    const outs = {
      ...stored,
      poolsWithEmail: pools.filter((pool) => pool.notification_email !== '').length,
    } as PoolNotificationMigrationOutputs;
    const inputs = Object.fromEntries(
      INPUT_KEYS.filter((key) => stored[key] !== undefined).map((key) => [key, stored[key]]),
    ) as PoolNotificationMigrationInputs;
    return { props: outs, inputs };
  },

  /** Runs the migration again; `removedEmails` keeps the addresses earlier runs removed. */
  async update(ctx, _id, olds, news) {
    return run(ctx, news, earlierRemovedEmails(olds));
  },

  /**
   * Changes nothing: the migration cannot be undone (the removed addresses are in `removedEmails`
   * for whoever wants them back), and deleting the resource only forgets it.
   */
  async delete() {},
};
