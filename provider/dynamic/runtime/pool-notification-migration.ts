import '../../runtime/compile-cache';
import { runtimeNamed } from '../../runtime/table';
import { defineRuntime } from '../provider';

/** The dynamic provider of `PoolNotificationMigration`: what `pulumi-edgeguard/runtime/pool-notification-migration` gives the stored provider module. */
export const provider = defineRuntime(runtimeNamed('pool-notification-migration'));
