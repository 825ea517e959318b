import '../../runtime/compile-cache';
import { runtimeNamed } from '../../runtime/table';
import { defineRuntime } from '../provider';

/** The dynamic provider of `HealthNotification`: what `pulumi-edgeguard/runtime/health-notification` gives the stored provider module. */
export const provider = defineRuntime(runtimeNamed('health-notification'));
