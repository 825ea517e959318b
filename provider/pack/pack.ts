import './start';
import { PolicyPack } from '@pulumi/policy';
import { lowerPriority } from '../helpers/priority';
import { declaredResource, warmReview } from '../review/pack-analysis';
import { hearingPolicy, PACK_POLICIES } from './policies';

/**
 * EdgeGuard's policy pack: loading this module serves it to the engine (it prints the port the
 * engine connects to). The engine runs it through `policy-pack/edgeguard-policy-pack`
 * (`pulumi preview --policy-pack <that file>`), which runs this module with node from the
 * `policy-pack/` folder, whose package.json gives the pack's version and names this module.
 */

/**
 * The read ahead starts before the pack serves: the settings and the state before the change are
 * in its environment from the start (`edgeguard-review` sets them), so the listings need nothing
 * the engine gives later. Measured (bench/RESULTS.md, issue 43): started at the first resource the
 * program declares, the only later signal `@pulumi/policy`'s interface gives, the review of a
 * re-pin at 200,000 scripts took 1.46 a plain preview, against 1.24 started at the engine's
 * `Configure`; loading the review's modules here (about 0.15 s) delays the engine's start of the
 * program by as much, and the listing overlaps all of the program's run.
 *
 * Reading, the pack runs at the lowest priority, every thread of it (`../helpers/priority.ts`), so
 * that the program, in its own process, keeps the cores it needs (bench review: 50,000 + 50,000 at
 * 1.44 a plain preview at the usual priority, 1.16 at this one), and the judging after the program
 * has them to itself; but only from the first resource the program declares. Lowered before it
 * served, on a machine whose cores were busy, the pack answered the engine's handshake too late:
 * "did not come alive: failed to handshake ... context deadline exceeded", and the review could not
 * be done (a busy `npm test`, issue 43).
 */
const reading = warmReview();
let lowered = false;
function declaredAtLowPriority(...args: Parameters<typeof declaredResource>): void {
  if (reading && !lowered) {
    lowered = true;
    lowerPriority();
  }
  declaredResource(...args);
}

new PolicyPack('edgeguard', {
  description:
    "What CSP changes do to the scripts page security detected, pools left without alerts, and the payment pages' scripts against their inventory.",
  policies: [...PACK_POLICIES, hearingPolicy(declaredAtLowPriority)],
});
