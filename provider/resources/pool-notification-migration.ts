import * as pulumi from '@pulumi/pulumi';
import { EdgeGuardResource } from './registration';

/** The inputs of a {@link PoolNotificationMigration}. */
export interface PoolNotificationMigrationArgs {
  /** The account whose pools to migrate (32 hexadecimal characters). Changing it replaces the resource (migrates the other account). */
  accountId: pulumi.Input<string>;
  /** Pools per bulk edit, 1..1000. Default 1000 (the fewest requests). A change runs the migration again. */
  perPage?: pulumi.Input<number>;
  /**
   * Rounds of list-and-edit before failing on pools that keep getting an e-mail (or keep appearing)
   * while the migration runs, 1..10. Default 3. A change runs the migration again.
   */
  maxRounds?: pulumi.Input<number>;
}

/**
 * Removes the legacy `notification_email` from every load-balancing pool of an account (spec 4,
 * 6.2: deprecation e-mails keep coming while any pool has one), and verifies with a full list that
 * none is left. Make it depend on the `HealthNotification` that takes over the alerts
 * (`dependsOn`), so that alerts are never lost in between.
 *
 * Requests: one list, one bulk edit per page of `perPage` pools that holds an e-mail, one list to
 * verify. `pulumi refresh` counts the pools that carry an e-mail again (`poolsWithEmail`), and the
 * next `pulumi up` clears them. Deleting the resource changes nothing in the account: removed
 * e-mails are not put back (they are recorded in `removedEmails`).
 */
export class PoolNotificationMigration extends EdgeGuardResource {
  declare public readonly accountId: pulumi.Output<string>;
  declare public readonly perPage: pulumi.Output<number>;
  declare public readonly maxRounds: pulumi.Output<number>;
  /** Pools of the account seen by the last run. */
  declare public readonly poolsSeen: pulumi.Output<number>;
  /** Pools whose e-mail the last run removed. */
  declare public readonly poolsCleared: pulumi.Output<number>;
  /** Pool name → the last e-mail removed from it: every pool this resource ever cleared, with the address a later run removed replacing an earlier one. */
  declare public readonly removedEmails: pulumi.Output<Record<string, string>>;
  /** Pools that carry an e-mail: 0 after a run, counted again by `pulumi refresh`. */
  declare public readonly poolsWithEmail: pulumi.Output<number>;

  constructor(name: string, args: PoolNotificationMigrationArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      'PoolNotificationMigration',
      'pool-notification-migration',
      name,
      {
        // Optional inputs are listed first so that they are outputs even when left out.
        perPage: undefined,
        maxRounds: undefined,
        ...args,
        poolsSeen: undefined,
        poolsCleared: undefined,
        removedEmails: undefined,
        poolsWithEmail: undefined,
      },
      opts,
    );
  }
}
