import * as edgeguard from 'pulumi-edgeguard';

const accountId = 'd1e8787dabb2917b86210399bcd65e39';

// The alerts that take over from the pools' legacy e-mails...
const poolHealth = new edgeguard.HealthNotification('pool-health', {
  accountId,
  name: 'Load balancer pool health',
  poolIds: ['6c1e2f0b8a7d4e3f9b2a1c0d5e6f7a8b', '0f9e8d7c6b5a49382716a5b4c3d2e1f0'],
  emails: ['noc@example.com'],
});

// ...and only once they exist, every pool of the account comes off `notification_email`.
const migration = new edgeguard.PoolNotificationMigration(
  'retire-legacy-pool-emails',
  { accountId },
  { dependsOn: [poolHealth] },
);

export const poolsCleared = migration.poolsCleared;
