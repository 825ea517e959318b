import { z } from 'zod';
import { APIResponseError } from './errors';
import { deletedSchema, type HttpClient } from './http';
import { reported } from './reading';

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Account-level notification policies (spec 2.8, 6; contract "Account-level notifications"). Create
 * and update answer `{id}` only, so callers read the policy back with {@link getAlertPolicy}.
 */

/** Spec 2.8: the alert type of load-balancing health notifications. */
export const LOAD_BALANCING_HEALTH_ALERT = 'load_balancing_health_alert';

/** Mechanisms of one kind, as read: the vendor declares each `id` optional; one without an id names nothing and is left out. */
const mechanismList = reported(z.array(z.looseObject({ id: reported(z.string()) }))).transform((list) =>
  list?.flatMap((mechanism) => (mechanism.id !== undefined ? [{ id: mechanism.id }] : [])),
);

const mechanismsSchema = z.looseObject({
  /** An e-mail's `id` is the address. */
  email: mechanismList,
  /** A webhook's `id` is the webhook's id. */
  webhooks: mechanismList,
});

/**
 * A notification policy as the API returns it. `filters` is kept generic (each filter a list of
 * strings, as the vendor's filters are) because the alert type decides which filters exist, and an
 * account may hold policies of other types; an absent filter means "all".
 */
export const alertPolicySchema = z.object({
  id: z.string(),
  name: reported(z.string()).transform((name) => name ?? ''),
  description: reported(z.string()).transform((description) => description ?? ''),
  /** The vendor declares it optional; absent reads as enabled, the vendor's default. */
  enabled: reported(z.boolean()).transform((enabled) => enabled ?? true),
  /** Any type is kept (the vendor has about 70); `""` when absent. */
  alert_type: reported(z.string()).transform((type) => type ?? ''),
  mechanisms: reported(mechanismsSchema).transform((mechanisms) => ({
    ...(mechanisms?.email !== undefined ? { email: mechanisms.email } : {}),
    ...(mechanisms?.webhooks !== undefined ? { webhooks: mechanisms.webhooks } : {}),
  })),
  filters: reported(z.record(z.string(), z.array(z.string()))).transform((filters) => filters ?? {}),
  created: reported(z.string()),
  modified: reported(z.string()),
});

/** A notification policy. */
export type AlertPolicy = z.output<typeof alertPolicySchema>;

/**
 * A listed policy: the vendor declares `id` optional, and a policy without one can be neither
 * named nor managed, so it is left out of the list (the rest of the list still reads).
 */
const listedAlertPolicySchema = alertPolicySchema.extend({ id: reported(z.string()) });

/** The body of a create or a full update (contract). */
export interface AlertPolicyBody {
  name: string;
  description: string;
  enabled: boolean;
  alert_type: string;
  mechanisms: { email?: Array<{ id: string }>; webhooks?: Array<{ id: string }> };
  filters: Record<string, string[]>;
}

/** Which account's policies to list. */
export interface AlertPolicyListParams {
  accountId: string;
}

/** One policy of an account. */
export interface AlertPolicyGetParams {
  accountId: string;
  policyId: string;
}

/** A policy to create in an account. */
export interface AlertPolicyCreateParams {
  accountId: string;
  policy: AlertPolicyBody;
}

/** A full replacement of a policy's fields. */
export interface AlertPolicyUpdateParams {
  accountId: string;
  policyId: string;
  policy: AlertPolicyBody;
}

/** A policy to delete. */
export interface AlertPolicyDeleteParams {
  accountId: string;
  policyId: string;
}

/**
 * What a create or an update answers: `{id}`. The vendor declares the id optional; a create must
 * have it (nothing else names the new policy), an update need not.
 */
const idOnly = z.looseObject({ id: reported(z.string()) }).nullish();
const policiesPath = (accountId: string) => `accounts/${accountId}/alerting/v3/policies`;
const policyPath = (accountId: string, policyId: string) => `${policiesPath(accountId)}/${policyId}`;

/** Every notification policy of the account (contract: one page). */
export async function listAlertPolicies(http: HttpClient, params: AlertPolicyListParams): Promise<AlertPolicy[]> {
  const answer = await http.send({
    operation: 'list notification policies',
    method: 'GET',
    path: policiesPath(params.accountId),
    result: z.array(listedAlertPolicySchema),
  });
  return answer.result.flatMap((policy) => (policy.id !== undefined ? [{ ...policy, id: policy.id }] : []));
}

/** One policy; a `NotFoundError` when it does not exist. */
export async function getAlertPolicy(http: HttpClient, params: AlertPolicyGetParams): Promise<AlertPolicy> {
  const answer = await http.send({
    operation: 'get notification policy',
    method: 'GET',
    path: policyPath(params.accountId, params.policyId),
    result: alertPolicySchema,
  });
  return answer.result;
}

/** A filter list as a set, for comparisons where order and repeats mean nothing. */
function setKey(values: readonly string[] | undefined): string {
  return JSON.stringify([...new Set(values ?? [])].sort());
}

/** Whether two policies watch the same things: the same filters, each compared as a set. */
export function sameFilters(
  a: Readonly<Record<string, readonly string[]>>,
  b: Readonly<Record<string, readonly string[]>>,
): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => setKey(a[key]) === setKey(b[key]));
}

/**
 * Creates a policy and returns its id. When the answer is lost (no response, a 5xx), the retry
 * policy first lists the account's policies and adopts one with the same name, alert type and
 * filters instead of creating a second one; of several, the newest, which is the lost attempt's.
 */
export async function createAlertPolicy(http: HttpClient, params: AlertPolicyCreateParams): Promise<string> {
  const { accountId, policy } = params;
  const answer = await http.send({
    operation: 'create notification policy',
    method: 'POST',
    path: policiesPath(accountId),
    body: policy,
    result: idOnly,
    recover: async () => {
      const matches = (await listAlertPolicies(http, { accountId }))
        .filter(
          (found) =>
            found.name === policy.name &&
            found.alert_type === policy.alert_type &&
            sameFilters(found.filters, policy.filters),
        )
        .sort((a, b) => byText(a.created ?? '', b.created ?? ''));
      const newest = matches.at(-1);
      return newest === undefined ? undefined : { id: newest.id };
    },
  });
  const id = answer.result?.id;
  if (id === undefined)
    throw new APIResponseError(
      `create notification policy (POST ${policiesPath(accountId)}): the service answered without the new policy's id, so it cannot be read back; list the account's policies to find it`,
    );
  return id;
}

/** Replaces every field of a policy (PUT of the full body). */
export async function updateAlertPolicy(http: HttpClient, params: AlertPolicyUpdateParams): Promise<void> {
  await http.send({
    operation: 'update notification policy',
    method: 'PUT',
    path: policyPath(params.accountId, params.policyId),
    body: params.policy,
    result: idOnly,
  });
}

/** Deletes a policy; a `NotFoundError` when it does not exist. The vendor's answer is an envelope without `result`. */
export async function deleteAlertPolicy(http: HttpClient, params: AlertPolicyDeleteParams): Promise<void> {
  await http.send({
    operation: 'delete notification policy',
    method: 'DELETE',
    path: policyPath(params.accountId, params.policyId),
    result: deletedSchema,
    acknowledgement: true,
  });
}
