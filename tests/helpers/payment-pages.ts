import * as path from 'node:path';
import { engineStack, type EngineStack } from './engine';
import { ZONE_ID, type TestEmulator } from './emulator';
import { REPO } from './repo';

/**
 * tests/engine/projects/payment-pages, a checkout's payment-page scripts as code, which the engine
 * tests of the payment review and of `edgeguard-audit` deploy: what its program declares, said
 * here once for the tests that seed the service and read the outcome, and a stack of it.
 */

/** What the project's program declares. */
export const PAYMENT_PAGES = {
  /** The project's name (Pulumi.yaml). */
  project: 'edgeguard-e2e-payment-pages',
  /** The host of the payment page; the enforcing CspPolicy covers all of it. */
  host: 'checkout.example.com',
  /** The inventory's one payment page, as a browser loads it. */
  page: 'https://checkout.example.com/pay',
  /** The card script, which a url entry authorizes and pins. */
  card: 'https://js.pay.example/v3/card.js',
  /** The hash of the card script's version the program pins (the one reviewed). */
  cardHash: 'a1'.repeat(32),
  /** The checkout's own code, which a prefix entry authorizes without a hash. */
  ownCode: 'https://checkout.example.com/static/js/',
} as const;

/**
 * A new stack of the project against `emu` (not yet deployed), its program's zone `program.zoneId`
 * (the fixture's by default), the card script pinned to `program.cardHash` and the headers of
 * `program.headers` when given, with the service's settings in the stack's configuration alone (the
 * token a secret), as a CI job has them: no EDGEGUARD_* variable for the engine either.
 */
export function paymentPagesStack(
  emu: TestEmulator,
  token: string,
  program: { zoneId?: string; cardHash?: string; headers?: Record<string, string> } = {},
): Promise<EngineStack> {
  return engineStack({
    projectDir: path.join(REPO, 'tests', 'engine', 'projects', 'payment-pages'),
    emu,
    token,
    providerEnv: false,
    config: {
      [`${PAYMENT_PAGES.project}:zoneId`]: { value: program.zoneId ?? ZONE_ID },
      'edgeguard:baseUrl': { value: emu.baseUrl },
      'edgeguard:apiToken': { value: token, secret: true },
      ...(program.cardHash !== undefined ? { [`${PAYMENT_PAGES.project}:cardHash`]: { value: program.cardHash } } : {}),
      ...(program.headers !== undefined
        ? { [`${PAYMENT_PAGES.project}:headers`]: { value: JSON.stringify(program.headers) } }
        : {}),
    },
  });
}
