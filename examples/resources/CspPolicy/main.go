package main

import (
	"github.com/edgeguard/pulumi-edgeguard/sdk/go/edgeguard"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// Checkout handles card data: only the reviewed scripts may run there; everything else is blocked.
		checkout, err := edgeguard.NewCspPolicy(ctx, "checkout-scripts", &edgeguard.CspPolicyArgs{
			ZoneId:      pulumi.String("d2b694e372a24c7496bc0106d77a1c05"),
			Description: pulumi.String("Checkout: block every script outside the allow list"),
			Action:      pulumi.String("allow"),
			Expression:  pulumi.String(`http.host eq "checkout.example.com"`),
			Value:       pulumi.String("script-src 'self' js.stripe.com https://www.google.com/recaptcha/api.js"),
		})
		if err != nil {
			return err
		}
		ctx.Export("policyId", checkout.PolicyId)
		return nil
	})
}
