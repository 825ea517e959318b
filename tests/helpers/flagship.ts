/**
 * What the flagship program (flagship.ts at the repository's root) declares, as the engine tests that
 * deploy it (tests/engine/examples/flagship.test.ts, tests/engine/faults/engine-faults.test.ts)
 * check it in the emulator.
 */

/** The custom hostname of the demo stack's configuration (Pulumi.demo.yaml). */
export const FLAGSHIP_HOSTNAME = 'shop.customer-one.example';

/** The storefront's report-only policy. */
export const STOREFRONT_VALUE = "script-src 'self' www.googletagmanager.com cdn.jsdelivr.net static.hotjar.com";

/** The checkout's allow policy: the sources of its payment-script inventory, and nothing else runs. */
export const CHECKOUT_VALUE =
  "script-src https://checkout.example.com/js/payment.js https://js.stripe.com/v3/fingerprinted/js/elements.js https://www.google.com/recaptcha/api.js; object-src 'none'; base-uri 'self'";

/** The resources the flagship declares against the emulator (the DNS record's command included). */
export const FLAGSHIP_RESOURCES = 10;
