import '../../runtime/compile-cache';
import { runtimeNamed } from '../../runtime/table';
import { defineRuntime } from '../provider';

/** The dynamic provider of `ScriptInventory`: what `pulumi-edgeguard/runtime/script-inventory` gives the stored provider module. */
export const provider = defineRuntime(runtimeNamed('script-inventory'));
