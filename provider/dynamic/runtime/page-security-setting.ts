import '../../runtime/compile-cache';
import { runtimeNamed } from '../../runtime/table';
import { defineRuntime } from '../provider';

/** The dynamic provider of `PageSecuritySetting`: what `pulumi-edgeguard/runtime/page-security-setting` gives the stored provider module. */
export const provider = defineRuntime(runtimeNamed('page-security-setting'));
