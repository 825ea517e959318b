import type { Runtime } from './contract';

/* eslint-disable @typescript-eslint/no-require-imports -- each runtime is loaded at its first use, as said below */

/**
 * Every runtime, by the name of its module (`provider/runtime/<name>.ts`, and the package's
 * `pulumi-edgeguard/runtime/<name>` that every dynamic resource's stored provider requires): the
 * one table both hosts take the runtimes from. Each is loaded when first asked for, so that the
 * engine's dynamic-provider process, which serves one kind of resource as often as not, loads only
 * that runtime (Node caches each module after its first load). The requires are written out, not
 * built from the name, so that the plugin's bundler sees every runtime.
 */
export const RUNTIMES = {
  'page-security-setting': () =>
    (require('./page-security-setting') as typeof import('./page-security-setting')).runtime,
  'csp-policy': () => (require('./csp-policy') as typeof import('./csp-policy')).runtime,
  'custom-hostname': () => (require('./custom-hostname') as typeof import('./custom-hostname')).runtime,
  'custom-hostname-validation': () =>
    (require('./custom-hostname-validation') as typeof import('./custom-hostname-validation')).runtime,
  'health-notification': () => (require('./health-notification') as typeof import('./health-notification')).runtime,
  'pool-notification-migration': () =>
    (require('./pool-notification-migration') as typeof import('./pool-notification-migration')).runtime,
  'script-inventory': () => (require('./script-inventory') as typeof import('./script-inventory')).runtime,
} satisfies Record<string, () => Runtime<object, object>>;

/* eslint-enable @typescript-eslint/no-require-imports */

/** The name of a runtime's module. */
export type RuntimeName = keyof typeof RUNTIMES;

/** The runtime of the module `name`. */
export function runtimeNamed<Name extends RuntimeName>(name: Name): ReturnType<(typeof RUNTIMES)[Name]> {
  return RUNTIMES[name]() as ReturnType<(typeof RUNTIMES)[Name]>;
}
