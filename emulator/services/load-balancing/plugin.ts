import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { isoTime } from '../../core/clock';
import { ErrorCode, notFound } from '../../core/errors';
import { wholeListInfo } from '../../core/pagination';
import { routes } from '../../core/routing';
import { requireAccount, type EmulatorContext } from '../../core/tenancy';
import { parseBody, pathId } from '../../core/validation';
import { parseBulkWindow, wholeWindow, windowInfo } from './paging';
import { accountPools, notificationEmailSchema, pools, poolView, type StoredPool } from './records';

/**
 * Load-balancing pools at account level (spec 2.7, 4 "Load balancing pool operations", 8): the
 * list, the bulk PATCH that migrates legacy `notification_email` recipients one page at a time
 * (every pool at once in the vendor's dialect, whose PATCH has no paging), and GET/PATCH of one pool.
 */

type AccountParams = { account_id: string };
type PoolParams = AccountParams & { pool_id: string };

const emailBody = z.object({ notification_email: notificationEmailSchema });

/** The pool with `email`, with `modified_on` moved only when the address really changes. */
function withEmail(pool: StoredPool, email: string, now: string): StoredPool | undefined {
  if (pool.notification_email === email) return undefined;
  return { ...pool, notification_email: email, modified_on: now };
}

/** Registers the pool routes under the API prefix. */
export function registerLoadBalancing(app: FastifyInstance, ctx: EmulatorContext): void {
  const vendorDialect = ctx.dialect === 'vendor';
  const findPool = (accountId: string, rawPoolId: unknown): StoredPool => {
    const poolId = pathId(rawPoolId, 'pool_id');
    const pool = ctx.store.get(pools, poolId);
    if (!pool || pool.account_id !== accountId) throw notFound('pool', poolId, ErrorCode.poolNotFound);
    return pool;
  };

  routes(app, '/accounts/:account_id/load_balancers/pools', {
    GET: (request) => {
      const account = requireAccount(ctx, request, (request.params as AccountParams).account_id);
      const list = accountPools(ctx.store, account.id).map(poolView);
      return { result: list, resultInfo: wholeListInfo(list.length) };
    },
    PATCH: (request) => {
      const account = requireAccount(ctx, request, (request.params as AccountParams).account_id);
      const all = accountPools(ctx.store, account.id);
      // The vendor's bulk PATCH declares no paging: it acts on every pool of the account at once.
      const window = vendorDialect ? wholeWindow(all.length) : parseBulkWindow(request.query);
      const { notification_email: email } = parseBody(emailBody, request.body);
      const now = isoTime(ctx.clock.nowMs());
      const after = all
        .slice(window.start, window.start + window.size)
        .map((pool) => ({ pool, changed: withEmail(pool, email, now) }));
      const changed = after.flatMap((entry) => (entry.changed ? [entry.changed] : []));
      // One transaction for the whole page (none when nothing changed): a page migrates whole or not at all.
      ctx.store.write((tx) => {
        for (const pool of changed) tx.put(pools, pool.id, pool);
      });
      const page = after.map((entry) => poolView(entry.changed ?? entry.pool));
      return { result: page, resultInfo: windowInfo(window, page.length, all.length) };
    },
  });

  routes(app, '/accounts/:account_id/load_balancers/pools/:pool_id', {
    GET: (request) => {
      const params = request.params as PoolParams;
      const account = requireAccount(ctx, request, params.account_id);
      return { result: poolView(findPool(account.id, params.pool_id)) };
    },
    PATCH: (request) => {
      const params = request.params as PoolParams;
      const account = requireAccount(ctx, request, params.account_id);
      const pool = findPool(account.id, params.pool_id);
      const { notification_email: email } = parseBody(emailBody, request.body);
      const changed = withEmail(pool, email, isoTime(ctx.clock.nowMs()));
      if (changed) ctx.store.write((tx) => tx.put(pools, changed.id, changed));
      return { result: poolView(changed ?? pool) };
    },
  });
}
