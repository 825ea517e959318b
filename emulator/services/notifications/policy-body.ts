import { z } from 'zod';
import type { Dialect } from '../../../rules/dialect';
import { expecting, quotedList, shown } from '../../../rules/zod';
import { ApiError, ErrorCode } from '../../core/errors';
import type { Store } from '../../core/store';
import { emailSchema, isUuid, parseBody } from '../../core/validation';
import { pools } from '../load-balancing/records';
import { ALERT_TYPES, type HealthAlertFilters, type Mechanisms, type PolicyInput } from './records';

/**
 * The body of a create or full update (contract: `{name, description?, enabled, alert_type,
 * mechanisms, filters}`). The alert type is read first, because it decides which filters are
 * valid: a body of an unknown type is told so, not lectured about filters it may not need.
 */

/** An array with no value twice; the duplicate is named by its index. */
function distinct<T extends z.ZodType>(array: z.ZodArray<T>) {
  return array.superRefine((values, ctx) => {
    const firstIndex = new Map<unknown, number>();
    values.forEach((value, index) => {
      const first = firstIndex.get(value);
      if (first === undefined) firstIndex.set(value, index);
      else ctx.addIssue({ code: 'custom', path: [index], message: `duplicate of [${first}] (${shown(value)})` });
    });
  });
}

const address = z
  .string(expecting('an e-mail address'))
  .refine((value) => emailSchema.safeParse(value).success, expecting('an e-mail address'));

const hexId = z
  .string(expecting('32 lowercase hexadecimal characters'))
  .regex(/^[0-9a-f]{32}$/, 'must be 32 lowercase hexadecimal characters');

/** The vendor's webhook ids are UUIDs; its dialect accepts them beside the 32-hex form. */
const webhookIdOrUuid = z
  .string(expecting('32 lowercase hexadecimal characters or a UUID'))
  .refine((id) => /^[0-9a-f]{32}$/.test(id) || isUuid(id), 'must be 32 lowercase hexadecimal characters or a UUID');

/** Spec 2.8: the filters of `load_balancing_health_alert`, and no others. */
const HEALTH_ALERT_FILTER_KEYS: ReadonlySet<string> = new Set(['pool_id', 'new_health', 'event_source']);
const healthAlertFilters = z
  .object(
    {
      pool_id: distinct(z.array(hexId, expecting('an array of pool ids'))).refine(
        (ids) => ids.length > 0,
        'must name at least one pool',
      ),
      new_health: distinct(
        z.array(
          z.enum(['Unhealthy', 'Healthy'], expecting('"Unhealthy" or "Healthy"')),
          expecting('an array of "Unhealthy" and/or "Healthy"'),
        ),
      )
        .refine(
          (values) => values.length > 0,
          'must not be empty; leave new_health out to alert on every health change',
        )
        .optional(),
      event_source: distinct(
        z.array(
          z.enum(['pool', 'origin'], expecting('"pool" or "origin"')),
          expecting('an array of "pool" and/or "origin"'),
        ),
      )
        .refine((values) => values.length > 0, 'must not be empty; leave event_source out to watch pools and origins')
        .optional(),
    },
    expecting('an object of filters, like {"pool_id": ["<pool id>"]}'),
  )
  .loose()
  .superRefine(
    (filters, ctx) => {
      for (const key of Object.keys(filters)) {
        if (!HEALTH_ALERT_FILTER_KEYS.has(key)) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `not a filter of load_balancing_health_alert (its filters: ${[...HEALTH_ALERT_FILTER_KEYS].join(', ')})`,
          });
        }
      }
    },
    // Unknown keys are reported beside bad values of known ones, so one round trip shows them all.
    { when: ({ value }) => typeof value === 'object' && value !== null && !Array.isArray(value) },
  );

function mechanismsOf(dialect: Dialect) {
  return z.object(
    {
      email: z
        .array(
          z.object({ id: address }, expecting('an object like {"id": "ops@example.com"}')),
          expecting('an array of {"id": "<address>"}'),
        )
        .optional(),
      webhooks: z
        .array(
          z.object(
            { id: dialect === 'vendor' ? webhookIdOrUuid : hexId },
            expecting('an object like {"id": "<webhook id>"}'),
          ),
          expecting('an array of {"id": "<webhook id>"}'),
        )
        .optional(),
    },
    expecting('an object of delivery mechanisms, like {"email": [{"id": "ops@example.com"}]}'),
  );
}

const alertTypeOnly = z.object({
  alert_type: z.enum(
    ALERT_TYPES,
    expecting(`one of the alert types this emulator supports: ${quotedList(ALERT_TYPES)}`),
  ),
});

const healthAlertBodyOf = (dialect: Dialect) =>
  z.object({
    name: z
      .string(expecting('a string'))
      .max(256, 'must be at most 256 characters')
      .refine((name) => name.trim().length > 0, 'must not be empty'),
    description: z.string(expecting('a string')).optional().default(''),
    enabled: z.boolean(expecting('true or false')),
    mechanisms: mechanismsOf(dialect),
    filters: healthAlertFilters,
  });

const HEALTH_ALERT_BODIES = { spec: healthAlertBodyOf('spec'), vendor: healthAlertBodyOf('vendor') };

/**
 * Parses a create/update body for `accountId` (in the vendor's dialect a webhook id may be a UUID): a 400 naming the field path otherwise, including
 * `filters.pool_id[i]` for a pool that does not exist in the account (an alert on it could never
 * fire, so accepting it would hide a typo).
 */
export function parsePolicyBody(
  store: Store,
  accountId: string,
  body: unknown,
  dialect: Dialect = 'spec',
): PolicyInput {
  const { alert_type: alertType } = parseBody(alertTypeOnly, body);
  const parsed = parseBody(HEALTH_ALERT_BODIES[dialect], body);
  const unknownPools = parsed.filters.pool_id.flatMap((id, index) =>
    store.get(pools, id)?.account_id === accountId
      ? []
      : [{ code: ErrorCode.invalidInput, message: `filters.pool_id[${index}]: no pool ${id} in account ${accountId}` }],
  );
  if (unknownPools.length > 0) throw new ApiError(400, unknownPools);
  const filters: HealthAlertFilters = { pool_id: parsed.filters.pool_id };
  if (parsed.filters.new_health) filters.new_health = parsed.filters.new_health;
  if (parsed.filters.event_source) filters.event_source = parsed.filters.event_source;
  const delivery: Mechanisms = {};
  if (parsed.mechanisms.email) delivery.email = parsed.mechanisms.email.map(({ id }) => ({ id }));
  if (parsed.mechanisms.webhooks) delivery.webhooks = parsed.mechanisms.webhooks.map(({ id }) => ({ id }));
  return {
    name: parsed.name,
    description: parsed.description,
    enabled: parsed.enabled,
    alert_type: alertType,
    mechanisms: delivery,
    filters,
  };
}
