import './compile-cache';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import {
  createAlertPolicy,
  deleteAlertPolicy,
  getAlertPolicy,
  LOAD_BALANCING_HEALTH_ALERT,
  updateAlertPolicy,
  type AlertPolicy,
  type AlertPolicyBody,
} from '../client/notifications';
import { expecting, shown } from '../../rules/zod';
import { adopt, adoptIdField } from './adopt';
import { accountIdSchema, hasUnknown, hexIdSchema, hexOrUuidIdSchema } from './check';
import { ownerOf, type Runtime, type RuntimeContext } from './contract';
import { changedInputs } from './wire';

/**
 * The runtime of `HealthNotification`: an account-level notification policy of alert type
 * `load_balancing_health_alert` (spec 2.8, 6), the replacement of the pools' legacy e-mails.
 * The lists (pools, health states, sources, e-mails, webhooks) are sets: `check` stores them
 * sorted and without repeats, and `diff` compares them as sets, so their order never shows as a
 * change. Only `accountId` replaces; everything else is a full update in place. With `adoptId`,
 * create takes over that policy of the account instead of making one (`adopt.ts`).
 */

/** Spec 2.8: the health states a notification can fire on. */
export const HEALTH_STATES = ['Unhealthy', 'Healthy'] as const;
/** Spec 2.8: the objects whose health a notification watches. */
export const EVENT_SOURCES = ['pool', 'origin'] as const;

/** A list that means a set: stored sorted and without repeats, so its order never makes a diff. */
function setOf<T extends z.ZodType<string>>(item: T, what: string) {
  return z.array(item, expecting(`a list of ${what}`)).transform((values) => [...new Set(values)].sort());
}

/** {@link setOf} that must hold at least one value. */
function nonEmptySet<T extends z.ZodType<string>>(item: T, what: string, whenEmpty: string) {
  return z
    .array(item, expecting(`a list of ${what}`))
    .min(1, whenEmpty)
    .transform((values) => [...new Set(values)].sort());
}

/** The inputs, as `check` accepts them. */
export const inputsSchema = z.object({
  accountId: accountIdSchema.meta({
    description: 'The account that owns the pools (32 hexadecimal characters).',
    // A policy cannot move between accounts.
    replaces: true,
  }),
  name: z
    .string(expecting('a name for the notification'))
    .max(256, 'must be at most 256 characters')
    .refine((name) => name.trim() !== '', 'must not be empty: give the notification a name')
    .meta({ description: "The notification's name, at most 256 characters." }),
  description: z
    .string(expecting('a string'))
    .default('')
    .meta({ description: 'Free text shown with the notification.' }),
  enabled: z.boolean(expecting('true or false')).default(true).meta({ description: 'Whether the notification fires.' }),
  poolIds: nonEmptySet(
    hexIdSchema('a pool id'),
    'pool ids',
    'must name at least one pool: the notification fires for the pools listed here',
  ).meta({ description: 'The pools whose health changes fire it: at least one pool id of the account.' }),
  newHealth: nonEmptySet(
    z.enum(HEALTH_STATES, expecting('"Unhealthy" or "Healthy"')),
    '"Unhealthy" and/or "Healthy"',
    'must not be empty: leave newHealth out to alert on both "Unhealthy" and "Healthy"',
  )
    .default([...HEALTH_STATES].sort())
    .meta({ description: 'The health states that fire it: `Unhealthy` and/or `Healthy`.' }),
  eventSource: nonEmptySet(
    z.enum(EVENT_SOURCES, expecting('"pool" or "origin"')),
    '"pool" and/or "origin"',
    'must not be empty: leave eventSource out to watch both pools and origins',
  )
    .default([...EVENT_SOURCES].sort())
    .meta({ description: 'What is watched: `pool` and/or `origin`.' }),
  emails: setOf(
    z.email({ error: (issue) => `must be an e-mail address like ops@example.com (got ${shown(issue.input)})` }),
    'e-mail addresses',
  )
    .default([])
    .meta({ description: 'E-mail addresses that receive it.' }),
  webhookIds: setOf(hexOrUuidIdSchema('a webhook id'), 'webhook ids').default([]).meta({
    description: "Ids of the account's webhooks that receive it (32 hexadecimal characters, or the vendor's UUIDs).",
  }),
  // The vendor's alert policies have UUID ids.
  adoptId: adoptIdField('notification policy', hexOrUuidIdSchema).meta({
    description: `The id of an existing \`load_balancing_health_alert\` policy of the account to adopt: create
      then takes it over instead of making one, with one PUT if a declared property differs (none if it is as
      declared), and \`pulumi up\` prints that it was adopted. A policy of another account or alert type, or
      none, fails the create and writes nothing.`,
  }),
});

/** The inputs after `check`: defaults applied, ids in lower case, lists sorted without repeats. */
export type HealthNotificationInputs = z.output<typeof inputsSchema>;

/** The outputs that are not inputs: the policy's id and timestamps. */
const outputsSchema = z.object({
  notificationId: z.string().meta({ description: "The notification policy's id (also the resource's id)." }),
  created: z.string().meta({ description: 'When the policy was created (ISO 8601).' }),
  modified: z.string().meta({ description: 'When the policy was last written (ISO 8601).' }),
});

/** The outputs: the inputs as read back from the API, and the policy's id and timestamps. */
export type HealthNotificationOutputs = Omit<HealthNotificationInputs, 'adoptId'> & z.output<typeof outputsSchema>;

/** The inputs that describe the policy: all but `adoptId`, which matters only at create. */
const INPUT_KEYS = Object.keys(inputsSchema.shape).filter((key) => key !== 'adoptId') as Array<
  keyof Omit<HealthNotificationInputs, 'adoptId'>
>;
/** Spec 2.8: the filters of a load-balancing health alert, which the inputs declare. */
const FILTER_KEYS: ReadonlySet<string> = new Set(['pool_id', 'new_health', 'event_source']);
const SET_KEYS: ReadonlySet<string> = new Set(['poolIds', 'newHealth', 'eventSource', 'emails', 'webhookIds']);

/** The API body for `inputs` (contract). */
function policyBody(inputs: Omit<HealthNotificationInputs, 'adoptId'>): AlertPolicyBody {
  const mechanisms: AlertPolicyBody['mechanisms'] = {};
  if (inputs.emails.length > 0) mechanisms.email = inputs.emails.map((id) => ({ id }));
  if (inputs.webhookIds.length > 0) mechanisms.webhooks = inputs.webhookIds.map((id) => ({ id }));
  return {
    name: inputs.name,
    description: inputs.description,
    enabled: inputs.enabled,
    alert_type: LOAD_BALANCING_HEALTH_ALERT,
    mechanisms,
    filters: { pool_id: inputs.poolIds, new_health: inputs.newHealth, event_source: inputs.eventSource },
  };
}

const sortedSet = (values: readonly string[]) => [...new Set(values)].sort();

/**
 * The outputs for a policy read from the API. An absent `new_health` or `event_source` filter
 * means "all" (spec 2.8), the same as listing every value, so it reads back as every value.
 */
function outputsOf(accountId: string, policy: AlertPolicy): HealthNotificationOutputs {
  return {
    accountId,
    name: policy.name,
    description: policy.description,
    enabled: policy.enabled,
    poolIds: sortedSet(policy.filters.pool_id ?? []),
    newHealth: sortedSet(policy.filters.new_health ?? HEALTH_STATES) as HealthNotificationInputs['newHealth'],
    eventSource: sortedSet(policy.filters.event_source ?? EVENT_SOURCES) as HealthNotificationInputs['eventSource'],
    emails: sortedSet((policy.mechanisms.email ?? []).map((mechanism) => mechanism.id)),
    webhookIds: sortedSet((policy.mechanisms.webhooks ?? []).map((mechanism) => mechanism.id)),
    notificationId: policy.id,
    // The vendor may leave them out: `""` then.
    created: policy.created ?? '',
    modified: policy.modified ?? '',
  };
}

/** The input part of the outputs, for `read` to report drift against. */
function inputsOf(outputs: HealthNotificationOutputs): HealthNotificationInputs {
  return Object.fromEntries(INPUT_KEYS.map((key) => [key, outputs[key]])) as HealthNotificationInputs;
}

/** A policy read from the API as inputs, as `edgeguard-import` declares it. */
export function liveInputs(accountId: string, policy: AlertPolicy): HealthNotificationInputs {
  return inputsOf(outputsOf(accountId, policy));
}

/**
 * Why `policy` can never be a `HealthNotification` as read (another alert type, or filters the
 * inputs do not declare, which a full update would remove); empty when it can be.
 */
export function adoptionConflicts(policy: AlertPolicy): string[] {
  if (policy.alert_type !== LOAD_BALANCING_HEALTH_ALERT) {
    return [
      `it is a policy of alert type ${policy.alert_type}, and a HealthNotification is one of ${LOAD_BALANCING_HEALTH_ALERT}`,
    ];
  }
  const others = Object.keys(policy.filters).filter((key) => !FILTER_KEYS.has(key));
  return others.length > 0
    ? [
        `it has filters a HealthNotification does not declare (${others.join(', ')}), which adopting would remove; ` +
          `change the policy elsewhere, or leave adoptId out to create a new one`,
      ]
    : [];
}

/** Sets compare as sets; an input not known yet (a preview) always differs. */
function sameSet(old: unknown, now: unknown): boolean {
  if (hasUnknown(now)) return false;
  if (Array.isArray(old) && Array.isArray(now)) {
    return isDeepStrictEqual(sortedSet(old.map(String)), sortedSet(now.map(String)));
  }
  return isDeepStrictEqual(old, now);
}

async function readBack(ctx: RuntimeContext, accountId: string, policyId: string): Promise<HealthNotificationOutputs> {
  return outputsOf(accountId, await getAlertPolicy(ctx.client, { accountId, policyId }));
}

/** Takes over the account's policy `adoptId`, with one PUT if any declared property differs. */
function adoptPolicy(ctx: RuntimeContext, inputs: HealthNotificationInputs, adoptId: string): Promise<AlertPolicy> {
  const client = ctx.client;
  const params = { accountId: inputs.accountId, policyId: adoptId };
  return adopt(ctx, {
    resource: 'HealthNotification',
    noun: 'notification policy',
    owner: { kind: 'account', id: inputs.accountId },
    id: adoptId,
    read: () => getAlertPolicy(client, params),
    describe: (policy) => JSON.stringify(policy.name),
    conflicts: adoptionConflicts,
    differences: (policy) => changedInputs(runtime, outputsOf(inputs.accountId, policy), inputs),
    write: async () => {
      await updateAlertPolicy(client, { ...params, policy: policyBody(inputs) });
      return getAlertPolicy(client, params);
    },
  });
}

/** The runtime of `HealthNotification`. */
export const runtime: Runtime<HealthNotificationInputs, HealthNotificationOutputs> = {
  resource: 'HealthNotification',
  description: `An account-level load-balancing health notification (alert type
    \`load_balancing_health_alert\`, spec 2.8 and 6): the replacement of the pools' legacy
    \`notification_email\`. Put a \`PoolNotificationMigration\` after it (\`dependsOn\`) to remove the legacy
    e-mails once it exists. Its lists are sets: their order and repeats never make a change. Outputs are the
    fields as the API reads them back, lists sorted.`,
  inputs: inputsSchema,
  outputs: outputsSchema,
  same: Object.fromEntries([...SET_KEYS].map((key) => [key, sameSet])),

  /**
   * POST the policy, then GET it: the create answers `{id}` only. A lost answer is recovered, not
   * repeated. With `adoptId`: GET that policy, and PUT then GET only if it differs.
   */
  async create(ctx, inputs) {
    if (inputs.adoptId !== undefined) {
      const policy = await adoptPolicy(ctx, inputs, inputs.adoptId);
      return { id: policy.id, outs: outputsOf(inputs.accountId, policy) };
    }
    const policyId = await createAlertPolicy(ctx.client, { accountId: inputs.accountId, policy: policyBody(inputs) });
    return { id: policyId, outs: await readBack(ctx, inputs.accountId, policyId) };
  },

  /** The live policy, as outputs and as inputs, so `pulumi refresh` shows changes made elsewhere. */
  async read(ctx, id, props) {
    const outs = await readBack(ctx, ownerOf('HealthNotification', id, props, 'accountId'), id);
    return { props: outs, inputs: inputsOf(outs) };
  },

  /** PUT the full body, then GET it (the update answers `{id}` only). */
  async update(ctx, id, _olds, news) {
    await updateAlertPolicy(ctx.client, { accountId: news.accountId, policyId: id, policy: policyBody(news) });
    return readBack(ctx, news.accountId, id);
  },

  async delete(ctx, id, props) {
    await deleteAlertPolicy(ctx.client, { accountId: props.accountId, policyId: id });
  },
};
