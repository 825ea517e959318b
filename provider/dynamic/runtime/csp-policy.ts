import '../../runtime/compile-cache';
import { runtimeNamed } from '../../runtime/table';
import { defineRuntime } from '../provider';

/** The dynamic provider of `CspPolicy`: what `pulumi-edgeguard/runtime/csp-policy` gives the stored provider module. */
export const provider = defineRuntime(runtimeNamed('csp-policy'));
