import * as pulumi from '@pulumi/pulumi';
import { resourceToken } from '../plugin/tokens';
import { Provider } from './provider';

/**
 * How every EdgeGuard resource is registered: as the SDK's `pulumi.dynamic.Resource` registers a
 * dynamic resource, but with its provider written by hand instead of serialized by the SDK.
 *
 * Why by hand: the provider is stored in the state of every resource, twice (the `__provider` input
 * and output), and the engine rewrites the whole state after every step. The SDK's closure
 * serializer turned our seven delegating methods into about 2.3 KB of module text, so a stack's
 * state, and the time to write it, grew with that text times the resources at every step (bench/:
 * `pulumi up` of 200 CspPolicy took 1.45x the engine's floor, 6.5 KiB of state per resource). The
 * module below is one line and does the same: it loads the package's compiled runtime by name when
 * the engine first calls it. No library, schema or credential is in it; the settings are read when
 * the runtime runs (provider/dynamic/context.ts).
 *
 * What would break it:
 * - The host's contract. The `pulumi-nodejs` provider plugin (`@pulumi/pulumi`'s
 *   `cmd/dynamic-provider`) evaluates the `__provider` text as a CommonJS module and calls its
 *   `handler` export, with no arguments, for the provider object; it caches that object by the
 *   text, once per process, and calls its `configure` once. Every dynamic-resource state written
 *   by any version of the SDK relies on that same contract, so it is as stable as they are; if the
 *   SDK ever changes it, this text must follow.
 * - Module resolution from the program's directory. The host evaluates the text with no file name
 *   of its own, in a process whose working directory is the program's, so the runtime is required
 *   as if from a file there: through `node_modules` for a program that depends on the package, and
 *   through the package's own `exports` for a program inside it. The package must keep exporting
 *   `pulumi-edgeguard/runtime/<name>` with a `provider` export, for as long as any state names
 *   it: the stored text is what refresh and delete run, and states written before this module
 *   (by the SDK's serializer) load the same runtimes the same way.
 * - The type token. `pulumi-nodejs:dynamic/edgeguard:<Resource>` is what the SDK's dynamic
 *   resources register: the engine routes the package `pulumi-nodejs` to the plugin above, and the
 *   token is part of every resource's URN, so another token would replace every resource.
 */

/** The module text stored as `__provider` of every resource of the runtime `runtime` (its file under provider/runtime/). */
export function providerModule(runtime: string): string {
  return `exports.handler = () => require('node:module').createRequire(process.cwd() + '/program.js')('pulumi-edgeguard/runtime/${runtime}').provider;`;
}

/** The type token of an EdgeGuard resource, such as `pulumi-nodejs:dynamic/edgeguard:CspPolicy`. */
export function typeToken(resource: string): string {
  return `pulumi-nodejs:dynamic/edgeguard:${resource}`;
}

/**
 * The base of every EdgeGuard resource class: registers `props` (inputs, and the outputs as
 * `undefined`) under {@link typeToken} with the provider of {@link providerModule}. Options,
 * `opts.id` (a read-only get), secrets and `additionalSecretOutputs` behave as for any custom resource.
 * Given an explicit {@link Provider} as `opts.provider`, the resource is the provider plugin's
 * instead: `edgeguard:index:<Resource>`, with no serialized provider.
 */
export abstract class EdgeGuardResource extends pulumi.CustomResource {
  protected constructor(
    resource: string,
    runtime: string,
    name: string,
    props: pulumi.Inputs,
    opts?: pulumi.CustomResourceOptions,
  ) {
    if (Provider.isInstance(opts?.provider)) super(resourceToken(resource), name, props, opts);
    else super(typeToken(resource), name, { ...props, __provider: providerModule(runtime) }, opts);
  }
}
