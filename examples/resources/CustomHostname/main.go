package main

import (
	"github.com/edgeguard/pulumi-edgeguard/sdk/go/edgeguard"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// A customer's own hostname served by the zone; it stays `pending` until its ownership is proven.
		hostname, err := edgeguard.NewCustomHostname(ctx, "customer-one", &edgeguard.CustomHostnameArgs{
			ZoneId:   pulumi.String("d2b694e372a24c7496bc0106d77a1c05"),
			Hostname: pulumi.String("shop.customer-one.example"),
			Ssl: &edgeguard.CustomHostnameSslArgs{
				Method: pulumi.String("txt"),
				Type:   pulumi.String("dv"),
			},
		})
		if err != nil {
			return err
		}
		// The TXT record that proves ownership, for the customer's DNS.
		ctx.Export("ownershipRecord", pulumi.StringMap{
			"name":  hostname.OwnershipRecordName,
			"value": hostname.OwnershipRecordValue,
		})
		ctx.Export("status", hostname.Status)
		return nil
	})
}
