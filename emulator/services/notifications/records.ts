import { Collection } from '../../core/store';

/**
 * Account-level notification policies (spec 2.8, 6; contract "Account-level notifications"):
 * the replacement of the legacy per-pool `notification_email`.
 */

/** Alert types this emulator knows, with the only one the spec names. */
export const ALERT_TYPES = ['load_balancing_health_alert'] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

/** Spec 2.8: the filters of a `load_balancing_health_alert`; an absent array means "all". */
export interface HealthAlertFilters {
  pool_id: string[];
  new_health?: Array<'Unhealthy' | 'Healthy'>;
  event_source?: Array<'pool' | 'origin'>;
}

/** Contract: delivery mechanisms; an e-mail's `id` is the address, a webhook's the webhook id. */
export interface Mechanisms {
  email?: Array<{ id: string }>;
  webhooks?: Array<{ id: string }>;
}

/** The fields a create or update body sets (contract: the body of POST and PUT). */
export interface PolicyInput {
  name: string;
  description: string;
  enabled: boolean;
  alert_type: AlertType;
  mechanisms: Mechanisms;
  filters: HealthAlertFilters;
}

/** A policy as the API returns it. */
export interface AlertPolicy extends PolicyInput {
  id: string;
  created: string;
  modified: string;
}

/** A policy as stored: the wire record plus the account it belongs to. */
export interface StoredAlertPolicy extends AlertPolicy {
  account_id: string;
}

export const alertPolicies = new Collection<StoredAlertPolicy>('alert_policies');

/** The wire form: the owning account is implied by the path. */
export function alertPolicyView(policy: StoredAlertPolicy): AlertPolicy {
  const { account_id: _account, ...view } = policy;
  return view;
}
