package main

import (
	"github.com/edgeguard/pulumi-edgeguard/sdk/go/edgeguard"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// Page security on: the zone reports the scripts, connections and cookies of its pages.
		pageSecurity, err := edgeguard.NewPageSecuritySetting(ctx, "page-security", &edgeguard.PageSecuritySettingArgs{
			ZoneId:  pulumi.String("d2b694e372a24c7496bc0106d77a1c05"),
			Enabled: pulumi.Bool(true),
		})
		if err != nil {
			return err
		}
		ctx.Export("enabledBefore", pageSecurity.EnabledBeforeCreate)
		return nil
	})
}
