import * as edgeguard from 'pulumi-edgeguard';

// Account-level health alerts over two pools, replacing their legacy per-pool e-mails.
const poolHealth = new edgeguard.HealthNotification('pool-health', {
  accountId: 'd1e8787dabb2917b86210399bcd65e39',
  name: 'Load balancer pool health',
  description: 'Pools and origins turning unhealthy or healthy again',
  poolIds: ['6c1e2f0b8a7d4e3f9b2a1c0d5e6f7a8b', '0f9e8d7c6b5a49382716a5b4c3d2e1f0'],
  newHealth: ['Unhealthy'],
  emails: ['noc@example.com'],
});

export const notificationId = poolHealth.notificationId;
