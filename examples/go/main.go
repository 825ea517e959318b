// Command edgeguard-go deploys the flagship's page security, CSP policies and health notification
// through the generated Go SDK (sdk/go) and the EdgeGuard provider plugin, with the Automation
// API and an inline program: no `runtime: go` project, so no Go language host is needed.
//
// Usage: edgeguard-go [flags] up|preview|destroy. The state backend is the engine's usual
// environment (PULUMI_BACKEND_URL, PULUMI_CONFIG_PASSPHRASE, PULUMI_HOME); the service address and
// credentials are the provider's (EDGEGUARD_BASE_URL, EDGEGUARD_API_TOKEN). What the operation
// changed, and the stack's outputs after up, are printed as one JSON line on standard output; the
// engine's progress goes to standard error.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/edgeguard/pulumi-edgeguard/sdk/go/edgeguard"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// program is what a `runtime: go` project's main would run.
func program(ctx *pulumi.Context) error {
	conf := config.New(ctx, "")
	zoneID := conf.Require("zoneId")

	// Page security on: the zone reports the scripts, connections and cookies of its pages.
	pageSecurity, err := edgeguard.NewPageSecuritySetting(ctx, "page-security", &edgeguard.PageSecuritySettingArgs{
		ZoneId:  pulumi.String(zoneID),
		Enabled: pulumi.Bool(true),
	})
	if err != nil {
		return err
	}
	afterPageSecurity := pulumi.DependsOn([]pulumi.Resource{pageSecurity})

	// The storefront: report (do not block) scripts outside the list, while it is being tuned.
	storefront, err := edgeguard.NewCspPolicy(ctx, "storefront-scripts-report", &edgeguard.CspPolicyArgs{
		ZoneId:      pulumi.String(zoneID),
		Description: pulumi.String("Storefront: report scripts outside the reviewed list"),
		Action:      pulumi.String("log"),
		Expression:  pulumi.String(`http.host eq "www.example.com"`),
		Value:       pulumi.String("script-src 'self' www.googletagmanager.com cdn.jsdelivr.net static.hotjar.com"),
	}, afterPageSecurity)
	if err != nil {
		return err
	}

	// Checkout handles card data: only the reviewed scripts may run there.
	checkout, err := edgeguard.NewCspPolicy(ctx, "checkout-scripts-allowlist", &edgeguard.CspPolicyArgs{
		ZoneId:      pulumi.String(zoneID),
		Description: pulumi.String("Checkout: block every script outside the allow list (PCI DSS 6.4.3)"),
		Action:      pulumi.String("allow"),
		Expression:  pulumi.String(`http.host eq "checkout.example.com"`),
		Value:       pulumi.String("script-src 'self' js.stripe.com https://www.google.com/recaptcha/api.js"),
	}, afterPageSecurity)
	if err != nil {
		return err
	}

	// Account-level health alerts over the pools.
	var poolIDs []string
	conf.RequireObject("poolIds", &poolIDs)
	poolHealth, err := edgeguard.NewHealthNotification(ctx, "pool-health", &edgeguard.HealthNotificationArgs{
		AccountId:   pulumi.String(conf.Require("accountId")),
		Name:        pulumi.String("Load balancer pool health"),
		Description: pulumi.String("Pools and origins turning unhealthy or healthy again"),
		PoolIds:     pulumi.ToStringArray(poolIDs),
		Emails:      pulumi.StringArray{pulumi.String(conf.Require("alertEmail"))},
	})
	if err != nil {
		return err
	}

	ctx.Export("pageSecurityEnabled", pageSecurity.Enabled)
	ctx.Export("cspPolicyIds", pulumi.StringMap{"storefront": storefront.PolicyId, "checkout": checkout.PolicyId})
	ctx.Export("healthNotificationId", poolHealth.NotificationId)
	return nil
}

func run(ctx context.Context, operation string, settings map[string]string, stackName, workDir string) (any, error) {
	options := []auto.LocalWorkspaceOption{auto.WorkDir(workDir)}
	if home := os.Getenv("PULUMI_HOME"); home != "" {
		options = append(options, auto.PulumiHome(home))
	}
	stack, err := auto.UpsertStackInlineSource(ctx, stackName, "edgeguard-go", program, options...)
	if err != nil {
		return nil, err
	}
	for key, value := range settings {
		if err := stack.SetConfig(ctx, key, auto.ConfigValue{Value: value}); err != nil {
			return nil, err
		}
	}
	switch operation {
	case "up":
		result, err := stack.Up(ctx, optup.ProgressStreams(os.Stderr))
		if err != nil {
			return nil, err
		}
		outputs := map[string]any{}
		for key, output := range result.Outputs {
			outputs[key] = output.Value
		}
		return map[string]any{"changes": result.Summary.ResourceChanges, "outputs": outputs}, nil
	case "preview":
		result, err := stack.Preview(ctx, optpreview.ProgressStreams(os.Stderr))
		if err != nil {
			return nil, err
		}
		return map[string]any{"changes": result.ChangeSummary}, nil
	case "destroy":
		result, err := stack.Destroy(ctx, optdestroy.ProgressStreams(os.Stderr))
		if err != nil {
			return nil, err
		}
		return map[string]any{"changes": result.Summary.ResourceChanges}, nil
	}
	return nil, fmt.Errorf("unknown operation %q: up, preview or destroy", operation)
}

func main() {
	zoneID := flag.String("zone", "", "the zone whose page security and CSP policies the stack manages (required)")
	accountID := flag.String("account", "", "the account whose pools the health notification watches (required)")
	pools := flag.String("pools", "", "the pool ids the health notification watches, comma-separated (required)")
	alertEmail := flag.String("alert-email", "noc@example.com", "who receives the pool health alerts")
	stackName := flag.String("stack", "dev", "the stack")
	workDir := flag.String("work-dir", ".", "where the project's settings (Pulumi.yaml, Pulumi.<stack>.yaml) are kept")
	flag.Parse()
	if flag.NArg() != 1 || *zoneID == "" || *accountID == "" || *pools == "" {
		fmt.Fprintln(os.Stderr, "usage: edgeguard-go -zone ID -account ID -pools ID,ID [flags] up|preview|destroy")
		flag.PrintDefaults()
		os.Exit(2)
	}
	poolIDs, err := json.Marshal(strings.Split(*pools, ","))
	if err != nil {
		panic(err)
	}
	settings := map[string]string{
		"zoneId":     *zoneID,
		"accountId":  *accountID,
		"poolIds":    string(poolIDs),
		"alertEmail": *alertEmail,
	}
	result, err := run(context.Background(), flag.Arg(0), settings, *stackName, *workDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "edgeguard-go:", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(result); err != nil {
		panic(err)
	}
}
