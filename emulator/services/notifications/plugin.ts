import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { isoTime } from '../../core/clock';
import { ErrorCode, notFound } from '../../core/errors';
import { newId } from '../../core/ids';
import { wholeListInfo } from '../../core/pagination';
import { routes } from '../../core/routing';
import { requireAccount, type EmulatorContext } from '../../core/tenancy';
import { bodyObject, pathId, pathIdOrUuid } from '../../core/validation';
import { parsePolicyBody } from './policy-body';
import { alertPolicies, alertPolicyView, type StoredAlertPolicy } from './records';

/**
 * Account-level notification policies (spec 6; contract "Account-level notifications"): list,
 * create, get, full update and delete. Create and update answer `{id}` only, as the vendor does,
 * so a client reads the policy back. In the vendor's dialect, new ids are UUIDs (as the vendor's
 * are; a seeded 32-hex id stays reachable), an update takes any of the fields over the policy's,
 * and a delete answers the envelope without `result`.
 */

type AccountParams = { account_id: string };
type PolicyParams = AccountParams & { policy_id: string };

/** Name order, ties broken by id: stable across calls and restarts. */
function byNameThenId(a: StoredAlertPolicy, b: StoredAlertPolicy): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

/** The fields of a stored policy that a body sets: what the vendor's partial update starts from. */
function alertPolicyFields(policy: StoredAlertPolicy): Record<string, unknown> {
  const { name, description, enabled, alert_type: alertType, mechanisms, filters } = policy;
  return { name, description, enabled, alert_type: alertType, mechanisms, filters };
}

/** Registers the policy routes under the API prefix. */
export function registerNotifications(app: FastifyInstance, ctx: EmulatorContext): void {
  const vendorDialect = ctx.dialect === 'vendor';
  const findPolicy = (accountId: string, rawPolicyId: unknown): StoredAlertPolicy => {
    const policyId = vendorDialect ? pathIdOrUuid(rawPolicyId, 'policy_id') : pathId(rawPolicyId, 'policy_id');
    const policy = ctx.store.get(alertPolicies, policyId);
    if (!policy || policy.account_id !== accountId)
      throw notFound('alert policy', policyId, ErrorCode.alertPolicyNotFound);
    return policy;
  };

  routes(app, '/accounts/:account_id/alerting/v3/policies', {
    GET: (request) => {
      const account = requireAccount(ctx, request, (request.params as AccountParams).account_id);
      const list = ctx.store
        .list(alertPolicies)
        .filter((policy) => policy.account_id === account.id)
        .sort(byNameThenId)
        .map(alertPolicyView);
      return { result: list, resultInfo: wholeListInfo(list.length) };
    },
    POST: (request) => {
      const account = requireAccount(ctx, request, (request.params as AccountParams).account_id);
      const input = parsePolicyBody(ctx.store, account.id, request.body, ctx.dialect);
      const now = isoTime(ctx.clock.nowMs());
      const id = vendorDialect ? randomUUID() : newId();
      ctx.store.write((tx) =>
        tx.put(alertPolicies, id, { id, ...input, created: now, modified: now, account_id: account.id }),
      );
      return { result: { id } };
    },
  });

  routes(app, '/accounts/:account_id/alerting/v3/policies/:policy_id', {
    GET: (request) => {
      const params = request.params as PolicyParams;
      const account = requireAccount(ctx, request, params.account_id);
      return { result: alertPolicyView(findPolicy(account.id, params.policy_id)) };
    },
    PUT: (request) => {
      const params = request.params as PolicyParams;
      const account = requireAccount(ctx, request, params.account_id);
      const existing = findPolicy(account.id, params.policy_id);
      const given = vendorDialect ? { ...alertPolicyFields(existing), ...bodyObject(request.body) } : request.body;
      const input = parsePolicyBody(ctx.store, account.id, given, ctx.dialect);
      const updated: StoredAlertPolicy = {
        id: existing.id,
        ...input,
        created: existing.created,
        modified: isoTime(ctx.clock.nowMs()),
        account_id: account.id,
      };
      ctx.store.write((tx) => tx.put(alertPolicies, updated.id, updated));
      return { result: { id: updated.id } };
    },
    DELETE: (request) => {
      const params = request.params as PolicyParams;
      const account = requireAccount(ctx, request, params.account_id);
      const existing = findPolicy(account.id, params.policy_id);
      ctx.store.write((tx) => tx.delete(alertPolicies, existing.id));
      return vendorDialect ? { noResult: true } : { result: { id: existing.id } };
    },
  });
}
