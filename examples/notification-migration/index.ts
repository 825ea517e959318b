import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

/**
 * The migration the service asks for (its legacy per-pool `notification_email` is deprecated): an
 * account-level health notification over every pool takes over the alerts first, and only then
 * are the pools' e-mails removed, so no alert is lost in between.
 */

const config = new pulumi.Config();
const accountId = config.require('accountId');

// The read helpers run in this program, so they take the provider's settings: the `edgeguard:*`
// stack configuration, else the environment.
const readSettings = edgeguard.stackReadSettings();

// Every pool of the account, read at each deployment: a pool added later joins the notification
// on the next `pulumi up`.
const poolIds = readSettings.apply(async (settings) =>
  (await edgeguard.listPools(accountId, settings)).map((pool) => pool.id),
);

const health = new edgeguard.HealthNotification('pool-health', {
  accountId,
  name: 'Load balancer pool health',
  description: "Pools and origins turning unhealthy or healthy again (replaces the pools' notification_email)",
  // The ids are not secret; only the settings they were read with carry the token.
  poolIds: pulumi.unsecret(poolIds),
  newHealth: ['Unhealthy', 'Healthy'],
  eventSource: ['pool', 'origin'],
  emails: [config.require('alertEmail')],
});

// dependsOn: the e-mails come off only once the notification exists.
const migration = new edgeguard.PoolNotificationMigration(
  'retire-legacy-pool-emails',
  { accountId },
  { dependsOn: [health] },
);

export const healthNotification = {
  id: health.notificationId,
  name: health.name,
  pools: health.poolIds.apply((ids) => ids.length),
  newHealth: health.newHealth,
  eventSource: health.eventSource,
  emails: health.emails,
};
export const legacyEmailMigration = {
  poolsSeen: migration.poolsSeen,
  poolsCleared: migration.poolsCleared,
  poolsWithEmail: migration.poolsWithEmail,
  removedEmails: migration.removedEmails,
};
