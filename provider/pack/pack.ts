import './start';
import * as os from 'node:os';
import { PolicyPack } from '@pulumi/policy';
import { declaredResource, warmReview, type Declared } from '../review/pack-analysis';
import { hearingPolicy, PACK_POLICIES } from './policies';

/**
 * EdgeGuard's policy pack: loading this module serves it to the engine (it prints the port the
 * engine connects to). The engine runs it through `policy-pack/edgeguard-policy-pack`
 * (`pulumi preview --policy-pack <that file>`), which runs this module with node from the
 * `policy-pack/` folder, whose package.json gives the pack's version and names this module.
 */

/**
 * The read ahead's start: on this thread, at the lowest priority (this thread alone, on Linux), so
 * that the program, in its own process, keeps the cores it needs (bench review: 50,000 + 50,000 at
 * 1.44 a plain preview at the usual priority, 1.16 at this one), and the judging after the program
 * has them to itself.
 */
function startReadAhead(): void {
  try {
    os.setPriority(19);
  } catch {
    // A system that refuses: the read ahead runs at the usual priority.
  }
  warmReview();
}

let started = false;

/**
 * Hears the resources the program declares (`hearingPolicy`, through `@pulumi/policy`'s own
 * `validateResource`), and starts the read ahead at the first: the engine has answered its
 * `Configure` call by then (it configures the pack before it runs the program), and the program
 * has started, so the review's modules load while the program runs, not while it starts (work
 * started before the program held its start up by 60 to 200 ms, bench/RESULTS.md issue 20). The
 * start waits for the check phase, after the `Analyze` answer has been sent: the engine's step of
 * that resource does not wait for the modules.
 */
const declared: Declared = (urn, type, inputs) => {
  if (!started) {
    started = true;
    setImmediate(startReadAhead);
  }
  declaredResource(urn, type, inputs);
};

new PolicyPack('edgeguard', {
  description:
    "What CSP changes do to the scripts page security detected, pools left without alerts, and the payment pages' scripts against their inventory.",
  policies: [...PACK_POLICIES, hearingPolicy(declared)],
});
