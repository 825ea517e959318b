import '../../runtime/compile-cache';
import { runtimeNamed } from '../../runtime/table';
import { defineRuntime } from '../provider';

/** The dynamic provider of `CustomHostname`: what `pulumi-edgeguard/runtime/custom-hostname` gives the stored provider module. */
export const provider = defineRuntime(runtimeNamed('custom-hostname'));
