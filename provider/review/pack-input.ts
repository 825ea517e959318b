import * as fs from 'node:fs';
import { UnknownValueError, type PolicyResource } from '@pulumi/policy';
import { parseScriptInventory, type ScriptEntryInput } from '../../rules/inventory';
import { previousEntries } from '../../rules/inventory-changes';
import { resourceOf } from '../stack/export';
import type { InventoryUnderReview } from '../payment/review';
import { stackInventoryScripts, stackPolicies, stackPolicyIds } from '../stack/export';
import type { MigrationUnderReview, NotificationUnderReview, ReviewInput } from './plan';
import type { PolicyUnderReview } from '../impact/model';

/**
 * What the policy pack reviews: the stack's resources as the engine gives them to a stack policy,
 * read into the review's input (`ReviewInput` of `./plan.ts`), with the live policy each CSP policy
 * replaces and the entries each script inventory had taken from the stack's state before the
 * change ({@link REVIEW_BASELINE_ENV}), and the resources it cannot judge at preview.
 */

import { REVIEW_BASELINE_ENV } from './pack-env';
export { REVIEW_BASELINE_ENV };

/** A resource the review could not judge, and why. */
export interface Unjudged {
  urn: string;
  name: string;
  /** Its kind. */
  resource: 'CspPolicy' | 'PoolNotificationMigration' | 'HealthNotification' | 'ScriptInventory';
  reason: string;
}

/** `read(props)`, or why it cannot be known yet (a value computed during the update). */
function known<T>(read: () => T): T | { unknown: string } {
  try {
    return read();
  } catch (error) {
    // @pulumi/policy declares no type for UnknownValueError, so the check does not narrow.
    if (error instanceof UnknownValueError) return { unknown: (error as Error).message };
    throw error;
  }
}

function isUnknown(value: unknown): value is { unknown: string } {
  return typeof value === 'object' && value !== null && 'unknown' in value;
}

/** The last previous state read, by its file: the read ahead and the analysis both need it. */
let previousRead: { file: string; state: { exported: unknown } | { reason: string } } | undefined;

/** The `pulumi stack export` of {@link REVIEW_BASELINE_ENV} (read once per file), or why it could not be read. */
export function previousState(): { exported: unknown } | { reason: string } {
  const file = process.env[REVIEW_BASELINE_ENV];
  if (file === undefined || file === '')
    return {
      reason: `the previous state is not known (the engine gives a policy pack only the new inputs of a changed resource); set ${REVIEW_BASELINE_ENV} to a file of \`pulumi stack export\` to compare with the live policy, as edgeguard-review does`,
    };
  if (previousRead?.file !== file) {
    let state: { exported: unknown } | { reason: string };
    try {
      state = { exported: JSON.parse(fs.readFileSync(file, 'utf8')) as unknown };
    } catch (error) {
      state = { reason: `${REVIEW_BASELINE_ENV} (${file}) could not be read: ${(error as Error).message}` };
    }
    previousRead = { file, state };
  }
  return previousRead.state;
}

/** The policy ids by URN of the previous state, or why it could not be read. */
function baselineIds(): Map<string, string> | string {
  const state = previousState();
  return 'reason' in state ? state.reason : stackPolicyIds(state.exported);
}

/** The inventories' entries by URN of the previous state, or why it could not be read. */
function baselineInventories(): Map<string, ScriptEntryInput[]> | string {
  const state = previousState();
  return 'reason' in state ? state.reason : stackInventoryScripts(state.exported);
}

/**
 * The CSP policies the previous state manages, as it declares them, or why it could not be read:
 * what the live headers of the inventories' hosts are compared with (`payment-headers-changed`).
 */
function baselinePolicies(): NonNullable<ReviewInput['previousPolicies']> {
  const state = previousState();
  return 'reason' in state ? { unknown: state.reason } : stackPolicies(state.exported);
}

/** An entry of a `ScriptInventory`'s `scripts` as the engine gives it: its text fields, any other value left out. */
function entryInputOf(entry: Record<string, unknown>): ScriptEntryInput {
  const input: ScriptEntryInput = {};
  for (const field of ['url', 'prefix', 'inline', 'justification', 'owner', 'hash'] as const) {
    const text = entry[field];
    if (typeof text === 'string') input[field] = text;
  }
  return input;
}

/** What the review needs from the stack's resources, and those it cannot judge. */
export function reviewInputOf(resources: readonly PolicyResource[]): { input: ReviewInput; unjudged: Unjudged[] } {
  const policies: PolicyUnderReview[] = [];
  const migrations: MigrationUnderReview[] = [];
  const notifications: NotificationUnderReview[] = [];
  const inventories: InventoryUnderReview[] = [];
  const unjudged: Unjudged[] = [];
  const unknownUntilUpdate = (resource: PolicyResource, kind: Unjudged['resource'], what: string) =>
    unjudged.push({
      urn: resource.urn,
      name: resource.name,
      resource: kind,
      reason: `not known until the update: ${what}`,
    });
  let baseline: Map<string, string> | string | undefined;
  let inventoriesBefore: Map<string, ScriptEntryInput[]> | string | undefined;

  for (const resource of resources) {
    const props = resource.props;
    // By kind, not by a type token made with the resource classes' module: that loads all of
    // @pulumi/pulumi, which the pack's start spares (./pack-start.ts).
    const kind = resourceOf(resource.type);
    if (kind === 'CspPolicy') {
      const read = known(() => ({
        zoneId: String(props.zoneId).toLowerCase(),
        policy: {
          action: String(props.action),
          enabled: props.enabled !== false,
          expression: String(props.expression),
          value: String(props.value),
        },
        policyId: typeof props.policyId === 'string' && props.policyId !== '' ? props.policyId : undefined,
      }));
      if (isUnknown(read)) {
        unknownUntilUpdate(resource, 'CspPolicy', read.unknown);
        continue;
      }
      let replaces: PolicyUnderReview['replaces'];
      if (read.policyId !== undefined) replaces = { id: read.policyId };
      else {
        baseline ??= baselineIds();
        if (typeof baseline === 'string') replaces = { unknown: baseline };
        else {
          const id = baseline.get(resource.urn);
          replaces = id === undefined ? 'none' : { id };
        }
      }
      policies.push({ key: resource.urn, name: resource.name, zoneId: read.zoneId, policy: read.policy, replaces });
    } else if (kind === 'PoolNotificationMigration') {
      const accountId = known(() => String(props.accountId).toLowerCase());
      if (isUnknown(accountId)) {
        unknownUntilUpdate(resource, 'PoolNotificationMigration', accountId.unknown);
        continue;
      }
      migrations.push({ key: resource.urn, name: resource.name, accountId });
    } else if (kind === 'HealthNotification') {
      const read = known(() => ({
        accountId: String(props.accountId).toLowerCase(),
        poolIds: (props.poolIds as unknown[]).map((id) => String(id).toLowerCase()),
        enabled: props.enabled !== false,
      }));
      if (isUnknown(read)) {
        unknownUntilUpdate(resource, 'HealthNotification', read.unknown);
        continue;
      }
      notifications.push(read);
    } else if (kind === 'ScriptInventory') {
      const read = known(() => ({
        zoneId: String(props.zoneId).toLowerCase(),
        pages: (props.pages as unknown[]).map(String),
        scripts: (props.scripts as Array<Record<string, unknown>>).map(entryInputOf),
      }));
      if (isUnknown(read)) {
        unknownUntilUpdate(resource, 'ScriptInventory', read.unknown);
        continue;
      }
      // The engine checked the inputs already (the resource's check runs the same rules); a
      // state of older rules is said, not judged.
      const parsed = parseScriptInventory(read);
      if (!parsed.ok) {
        unjudged.push({
          urn: resource.urn,
          name: resource.name,
          resource: 'ScriptInventory',
          reason: `its inventory is invalid: ${parsed.error.message}`,
        });
        continue;
      }
      inventoriesBefore ??= baselineInventories();
      const before = typeof inventoriesBefore === 'string' ? undefined : inventoriesBefore.get(resource.urn);
      inventories.push({
        key: resource.urn,
        name: resource.name,
        zoneId: read.zoneId,
        inventory: parsed.value,
        previous:
          typeof inventoriesBefore === 'string'
            ? { unknown: inventoriesBefore }
            : before === undefined
              ? 'none'
              : previousEntries(before),
      });
    }
  }
  // Every CSP policy the stack manages before the change, the deleted ones too: the zone's other
  // live policies stay, headers beside the stack's (./impact.ts).
  if (policies.length > 0) baseline ??= baselineIds();
  const managed = typeof baseline === 'object' ? { managedPolicyIds: [...baseline.values()] } : {};
  const previousPolicies = inventories.length > 0 ? { previousPolicies: baselinePolicies() } : {};
  return {
    input: { policies, ...managed, migrations, notifications, inventories, ...previousPolicies },
    unjudged,
  };
}
