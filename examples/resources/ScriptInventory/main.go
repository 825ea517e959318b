package main

import (
	"github.com/edgeguard/pulumi-edgeguard/sdk/go/edgeguard"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		zoneId := pulumi.String("d2b694e372a24c7496bc0106d77a1c05")
		// The payment pages' scripts, each with why it is there (PCI DSS 6.4.3); the card form's script is
		// pinned to the version that was reviewed.
		inventory, err := edgeguard.NewScriptInventory(ctx, "checkout-scripts", &edgeguard.ScriptInventoryArgs{
			ZoneId: zoneId,
			Pages:  pulumi.StringArray{pulumi.String("checkout.example.com"), pulumi.String("shop.example.com/checkout")},
			Scripts: edgeguard.ScriptInventoryScriptArray{
				edgeguard.ScriptInventoryScriptArgs{
					Url:           pulumi.String("https://js.stripe.com/v3/fingerprinted/card.js"),
					Justification: pulumi.String("Card form: the payment processor collects the card number in its own frame"),
					Owner:         pulumi.String("payments team"),
					Hash:          pulumi.String("6b1f5a3c9d2e4f708192a3b4c5d6e7f8"),
				},
				edgeguard.ScriptInventoryScriptArgs{
					Prefix:        pulumi.String("https://checkout.example.com/static/js/"),
					Justification: pulumi.String("Our own checkout code, built and reviewed in this repository"),
					Owner:         pulumi.String("web team"),
				},
			},
		})
		if err != nil {
			return err
		}
		// The browser enforces the inventory: no other script runs on the checkout.
		_, err = edgeguard.NewCspPolicy(ctx, "checkout-enforce", &edgeguard.CspPolicyArgs{
			ZoneId:      zoneId,
			Description: pulumi.String("Checkout: only the scripts of the inventory"),
			Action:      pulumi.String("allow"),
			Expression:  pulumi.String(`http.host eq "checkout.example.com"`),
			Value:       pulumi.Sprintf("script-src %s", inventory.CspSources),
		})
		if err != nil {
			return err
		}
		ctx.Export("detected", inventory.Detected)
		return nil
	})
}
