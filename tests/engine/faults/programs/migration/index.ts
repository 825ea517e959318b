import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

/** One migration, paged finely so that an interruption can land between two bulk edits. */

const config = new pulumi.Config();
const migration = new edgeguard.PoolNotificationMigration('retire-legacy-pool-emails', {
  accountId: config.require('accountId'),
  perPage: config.requireNumber('perPage'),
});

export const poolsSeen = migration.poolsSeen;
export const poolsCleared = migration.poolsCleared;
export const poolsWithEmail = migration.poolsWithEmail;
export const removedEmails = migration.removedEmails;
