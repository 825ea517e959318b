import './start';
import * as os from 'node:os';
import { PolicyPack } from '@pulumi/policy';
import { keepStackConfig } from '../review/pack-config';
import { declaredResource, warmReview } from '../review/pack-analysis';
import { hearingPolicy, PACK_POLICIES } from './policies';

/**
 * EdgeGuard's policy pack: loading this module serves it to the engine (it prints the port the
 * engine connects to). The engine runs it through `policy-pack/edgeguard-policy-pack`
 * (`pulumi preview --policy-pack <that file>`), which runs this module with node from the
 * `policy-pack/` folder, whose package.json gives the pack's version and names this module.
 */
keepStackConfig(() => {
  // Once configured, the pack reads ahead on this thread while the program runs in its own
  // process: at the lowest priority (this thread alone, on Linux), the program keeps the cores it
  // needs (bench review: 50,000 + 50,000 at 1.44 a plain preview at the usual priority, 1.16 at
  // this one), and the judging after the program has them to itself.
  try {
    os.setPriority(19);
  } catch {
    // A system that refuses: the read ahead runs at the usual priority.
  }
  warmReview();
});
new PolicyPack('edgeguard', {
  description:
    "What CSP changes do to the scripts page security detected, pools left without alerts, and the payment pages' scripts against their inventory.",
  policies: [...PACK_POLICIES, hearingPolicy(declaredResource)],
});
