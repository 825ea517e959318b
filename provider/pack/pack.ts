import './start';
import { PolicyPack } from '@pulumi/policy';
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
 * the engine gives later. It lists in a child process at the lowest priority
 * (`../impact/read-ahead-child.ts`), so that the program, in its own process, keeps the cores it
 * needs; the pack keeps the usual priority, answers the engine at once and judges ahead what the
 * child has read. Measured against the pack that listed itself and lowered its own threads at the
 * program's first resource (bench/RESULTS.md, issue 43): the re-pin at 200,000 scripts at 1.26 a
 * plain preview, against 1.31 (medians of nine runs each); the CSP change at 50,000 + 50,000
 * items at 1.14 and 1.21, against 1.27 and 1.25.
 */
warmReview();

new PolicyPack('edgeguard', {
  description:
    "What CSP changes do to the scripts page security detected, pools left without alerts, and the payment pages' scripts against their inventory.",
  policies: [...PACK_POLICIES, hearingPolicy(declaredResource)],
});
