import type { DeclaredPolicy, ManagedPolicy } from '../../provider/stack/export';
import type { TestEmulator } from './emulator';

/**
 * The stack's enforcing CSP policy of a checkout, live in the emulator as the stack declared it:
 * what the tests of the payment hosts' headers (issue 33, item 1) change outside the stack, in the
 * audit's and the review's tests alike.
 */

/** The payment host. */
export const CHECKOUT_HOST = 'checkout.example.com';
/** The card script the policy allows. */
export const CHECKOUT_CARD = 'https://js.pay.example/v3/card.js';

/** The policy as the stack declares it. */
export const DECLARED: DeclaredPolicy = {
  description: 'Checkout: only the inventory',
  action: 'allow',
  expression: `http.host eq "${CHECKOUT_HOST}"`,
  value: `script-src ${CHECKOUT_CARD}`,
  enabled: true,
};

/** Creates the policy in `zone` as declared; its id, and the stack's `CspPolicy` that manages it. */
export async function managedPolicy(
  emu: TestEmulator,
  zone: string,
): Promise<{ policyId: string; managed: ManagedPolicy }> {
  const reply = await emu.api('POST', `zones/${zone}/${emu.pageSecurity}/policies`, { body: DECLARED });
  if (reply.status !== 200) throw new Error(`the policy was not created: ${JSON.stringify(reply.body)}`);
  const policyId = reply.body.result.id as string;
  return {
    policyId,
    managed: {
      name: 'checkout-enforce',
      urn: 'urn:pulumi:prod::shop::edgeguard:index:CspPolicy::checkout-enforce',
      zoneId: zone,
      policyId,
      declared: DECLARED,
    },
  };
}

/** Changes the live policy outside the stack: the declaration with `change` (`enabled` as the spec's string, sent in the emulator's dialect). */
export async function changePolicy(
  emu: TestEmulator,
  zone: string,
  policyId: string,
  change: Partial<Record<keyof DeclaredPolicy, string>>,
): Promise<void> {
  const { enabled = 'true', ...rest } = change;
  const reply = await emu.api('PUT', `zones/${zone}/${emu.pageSecurity}/policies/${policyId}`, {
    body: { ...DECLARED, ...rest, enabled: emu.wireEnabled(enabled === 'true') },
  });
  if (reply.status !== 200) throw new Error(`the policy was not changed: ${JSON.stringify(reply.body)}`);
}
