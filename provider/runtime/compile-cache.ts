import * as nodeModule from 'node:module';

/**
 * Turns on Node's compile cache (`module.enableCompileCache`, Node 22.1 and later) in the process
 * that runs a runtime: the engine's dynamic-provider host, started afresh by every `preview`,
 * `refresh`, `up` and `destroy`. The runtime then loads undici, zod and its own modules from V8
 * code cached on disk instead of compiling them again: 88 ms down to 62 for `CspPolicy`'s at each start
 * (bench/RESULTS.md, issue 12). Every runtime imports this module first, so that nothing it
 * loads is compiled before.
 *
 * The cache is Node's own: in `NODE_COMPILE_CACHE` when that is set, else in the system's
 * temporary folder; Node checks each entry against the source and quietly does without the cache
 * where it cannot write one. The host serves dynamic resources alone, so no one else's start-up
 * changes, beyond others' providers there loading faster too.
 */
(nodeModule as Partial<Pick<typeof nodeModule, 'enableCompileCache'>>).enableCompileCache?.();
