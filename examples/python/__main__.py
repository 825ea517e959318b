"""EdgeGuard's flagship in Python: page security on, CSP policies in log and allow mode, and a
health notification over the account's pools, through the provider plugin and its generated SDK."""

import pulumi
import pulumi_edgeguard as edgeguard

config = pulumi.Config()
zone_id = config.require("zoneId")
account_id = config.require("accountId")

# Page security on: the zone reports the scripts, connections and cookies of its pages.
page_security = edgeguard.PageSecuritySetting("page-security", zone_id=zone_id, enabled=True)
after_page_security = pulumi.ResourceOptions(depends_on=[page_security])

# The storefront: report (do not block) scripts outside the list, while it is being tuned.
storefront = edgeguard.CspPolicy(
    "storefront-scripts-report",
    zone_id=zone_id,
    description="Storefront: report scripts outside the reviewed list",
    action="log",
    expression='http.host eq "www.example.com"',
    value="script-src 'self' www.googletagmanager.com cdn.jsdelivr.net static.hotjar.com",
    opts=after_page_security,
)

# Checkout handles card data: only the reviewed scripts may run there.
checkout = edgeguard.CspPolicy(
    "checkout-scripts-allowlist",
    zone_id=zone_id,
    description="Checkout: block every script outside the allow list (PCI DSS 6.4.3)",
    action="allow",
    expression='http.host eq "checkout.example.com"',
    value="script-src 'self' js.stripe.com https://www.google.com/recaptcha/api.js",
    opts=after_page_security,
)

# Account-level health alerts over the pools.
pool_health = edgeguard.HealthNotification(
    "pool-health",
    account_id=account_id,
    name="Load balancer pool health",
    description="Pools and origins turning unhealthy or healthy again",
    pool_ids=config.require_object("poolIds"),
    emails=[config.require("alertEmail")],
)

pulumi.export("pageSecurityEnabled", page_security.enabled)
pulumi.export("cspPolicyIds", {"storefront": storefront.policy_id, "checkout": checkout.policy_id})
pulumi.export("healthNotificationId", pool_health.notification_id)
