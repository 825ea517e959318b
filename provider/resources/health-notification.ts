import * as pulumi from '@pulumi/pulumi';
import { EdgeGuardResource } from './registration';

/** The inputs of a {@link HealthNotification}. Lists are sets: their order and repeats never make a change. */
export interface HealthNotificationArgs {
  /** The account that owns the pools (32 hexadecimal characters). Changing it replaces the notification. */
  accountId: pulumi.Input<string>;
  /** The notification's name, at most 256 characters. Changes in place. */
  name: pulumi.Input<string>;
  /** Free text shown with the notification. Default `""`. Changes in place. */
  description?: pulumi.Input<string>;
  /** Whether the notification fires. Default `true`. Changes in place. */
  enabled?: pulumi.Input<boolean>;
  /** The pools whose health changes fire it: at least one pool id of the account. Changes in place. */
  poolIds: pulumi.Input<pulumi.Input<string>[]>;
  /** The health states that fire it: `Unhealthy` and/or `Healthy`. Default both. Changes in place. */
  newHealth?: pulumi.Input<pulumi.Input<'Unhealthy' | 'Healthy'>[]>;
  /** What is watched: `pool` and/or `origin`. Default both. Changes in place. */
  eventSource?: pulumi.Input<pulumi.Input<'pool' | 'origin'>[]>;
  /** E-mail addresses that receive it. Default none. Changes in place. */
  emails?: pulumi.Input<pulumi.Input<string>[]>;
  /** Ids of the account's webhooks (32 hexadecimal characters) that receive it. Default none. Changes in place. */
  webhookIds?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * The id of an existing `load_balancing_health_alert` policy of the account to adopt: create
   * then takes it over instead of making one, with one PUT if a declared property differs (none if
   * it is as declared), and `pulumi up` prints that it was adopted. A policy of another account or
   * alert type, or none, fails the create and writes nothing. Optional; it matters only at create,
   * so changing or removing it later is no change.
   */
  adoptId?: pulumi.Input<string>;
}

/**
 * An account-level load-balancing health notification (alert type `load_balancing_health_alert`,
 * spec 2.8 and 6): the replacement of the pools' legacy `notification_email`. Put a
 * `PoolNotificationMigration` after it (`dependsOn`) to remove the legacy e-mails once it exists.
 * Outputs are the fields as the API reads them back, lists sorted.
 */
export class HealthNotification extends EdgeGuardResource {
  /** The notification policy's id (also the resource's id). */
  declare public readonly notificationId: pulumi.Output<string>;
  declare public readonly accountId: pulumi.Output<string>;
  declare public readonly name: pulumi.Output<string>;
  declare public readonly description: pulumi.Output<string>;
  declare public readonly enabled: pulumi.Output<boolean>;
  declare public readonly poolIds: pulumi.Output<string[]>;
  declare public readonly newHealth: pulumi.Output<Array<'Unhealthy' | 'Healthy'>>;
  declare public readonly eventSource: pulumi.Output<Array<'pool' | 'origin'>>;
  declare public readonly emails: pulumi.Output<string[]>;
  declare public readonly webhookIds: pulumi.Output<string[]>;
  /** When the policy was created (ISO 8601). */
  declare public readonly created: pulumi.Output<string>;
  /** When the policy was last written (ISO 8601). */
  declare public readonly modified: pulumi.Output<string>;

  constructor(name: string, args: HealthNotificationArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      'HealthNotification',
      'health-notification',
      name,
      {
        // Optional inputs are listed first so that they are outputs even when left out.
        description: undefined,
        enabled: undefined,
        newHealth: undefined,
        eventSource: undefined,
        emails: undefined,
        webhookIds: undefined,
        ...args,
        notificationId: undefined,
        created: undefined,
        modified: undefined,
      },
      opts,
    );
  }
}
