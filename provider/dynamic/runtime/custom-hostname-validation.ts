import '../../runtime/compile-cache';
import { runtimeNamed } from '../../runtime/table';
import { defineRuntime } from '../provider';

/** The dynamic provider of `CustomHostnameValidation`: what `pulumi-edgeguard/runtime/custom-hostname-validation` gives the stored provider module. */
export const provider = defineRuntime(runtimeNamed('custom-hostname-validation'));
