package main

import (
	"github.com/edgeguard/pulumi-edgeguard/sdk/go/edgeguard"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		accountID := pulumi.String("d1e8787dabb2917b86210399bcd65e39")
		// The alerts that take over from the pools' legacy e-mails...
		poolHealth, err := edgeguard.NewHealthNotification(ctx, "pool-health", &edgeguard.HealthNotificationArgs{
			AccountId: accountID,
			Name:      pulumi.String("Load balancer pool health"),
			PoolIds:   pulumi.ToStringArray([]string{"6c1e2f0b8a7d4e3f9b2a1c0d5e6f7a8b", "0f9e8d7c6b5a49382716a5b4c3d2e1f0"}),
			Emails:    pulumi.ToStringArray([]string{"noc@example.com"}),
		})
		if err != nil {
			return err
		}
		// ...and only once they exist, every pool of the account comes off `notification_email`.
		migration, err := edgeguard.NewPoolNotificationMigration(ctx, "retire-legacy-pool-emails", &edgeguard.PoolNotificationMigrationArgs{
			AccountId: accountID,
		}, pulumi.DependsOn([]pulumi.Resource{poolHealth}))
		if err != nil {
			return err
		}
		ctx.Export("poolsCleared", migration.PoolsCleared)
		return nil
	})
}
