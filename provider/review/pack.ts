import { PolicyPack } from '@pulumi/policy';
import { PACK_POLICIES } from './pack-policies';

/**
 * EdgeGuard's policy pack: loading this module serves it to the engine. The engine runs it through
 * `policy-pack/edgeguard-policy-pack` (`pulumi preview --policy-pack <that file>`), which starts
 * `@pulumi/pulumi`'s `run-policy-pack` on this module from the `policy-pack/` folder, whose
 * package.json gives the pack's version.
 */
new PolicyPack('edgeguard', {
  description: 'What CSP changes do to the scripts page security detected, and pools left without alerts.',
  policies: PACK_POLICIES,
});
