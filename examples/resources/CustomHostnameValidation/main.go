package main

import (
	"github.com/edgeguard/pulumi-edgeguard/sdk/go/edgeguard"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		zoneID := pulumi.String("d2b694e372a24c7496bc0106d77a1c05")
		hostname, err := edgeguard.NewCustomHostname(ctx, "customer-one", &edgeguard.CustomHostnameArgs{
			ZoneId:   zoneID,
			Hostname: pulumi.String("shop.customer-one.example"),
			Ssl:      &edgeguard.CustomHostnameSslArgs{Method: pulumi.String("txt"), Type: pulumi.String("dv")},
		})
		if err != nil {
			return err
		}
		// Waits until the hostname is active, certificate included. Publish the TXT record of
		// OwnershipRecordName / OwnershipRecordValue with your DNS provider's record resource, and make
		// the validation depend on it (pulumi.DependsOn), so that one `pulumi up` goes from pending to active.
		validation, err := edgeguard.NewCustomHostnameValidation(ctx, "customer-one-validation", &edgeguard.CustomHostnameValidationArgs{
			ZoneId: zoneID,
			// The bare id: in the provider plugin the hostname's ID is <zoneId>/<customHostnameId>.
			CustomHostnameId: hostname.CustomHostnameId,
			TimeoutSeconds:   pulumi.Int(900),
		})
		if err != nil {
			return err
		}
		ctx.Export("status", validation.Status)
		ctx.Export("certificateAuthority", validation.CertificateAuthorityInUse)
		return nil
	})
}
