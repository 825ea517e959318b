package main

import (
	"github.com/edgeguard/pulumi-edgeguard/sdk/go/edgeguard"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// Account-level health alerts over two pools, replacing their legacy per-pool e-mails.
		poolHealth, err := edgeguard.NewHealthNotification(ctx, "pool-health", &edgeguard.HealthNotificationArgs{
			AccountId:   pulumi.String("d1e8787dabb2917b86210399bcd65e39"),
			Name:        pulumi.String("Load balancer pool health"),
			Description: pulumi.String("Pools and origins turning unhealthy or healthy again"),
			PoolIds:     pulumi.ToStringArray([]string{"6c1e2f0b8a7d4e3f9b2a1c0d5e6f7a8b", "0f9e8d7c6b5a49382716a5b4c3d2e1f0"}),
			NewHealth:   pulumi.ToStringArray([]string{"Unhealthy"}),
			Emails:      pulumi.ToStringArray([]string{"noc@example.com"}),
		})
		if err != nil {
			return err
		}
		ctx.Export("notificationId", poolHealth.NotificationId)
		return nil
	})
}
