import type * as pulumi from '@pulumi/pulumi';

/**
 * The provider object Pulumi serializes into the state of every resource (and runs on refresh and
 * delete). It must stay tiny and free of secrets: each method loads the package's compiled
 * runtime by its package name at call time and delegates, so no library, schema or credential is
 * captured — only the runtime's name.
 *
 * The engine evaluates this code in its dynamic-provider process with no file name of its own,
 * whose working directory is the program's. So the runtime is resolved as the program resolves
 * its imports, from that directory: through `node_modules` for a program that depends on the
 * package, and through the package's own `exports` for a program inside it (the root project).
 */
export function runtimeProvider(runtime: string): pulumi.dynamic.ResourceProvider {
  // One object per runtime: the SDK serializes a provider once per object, so 200 resources of a
  // kind cost one serialization instead of 200 (measured in bench/: about 13 ms each).
  let provider = providers.get(runtime);
  if (provider === undefined) {
    provider = shim(runtime);
    providers.set(runtime, provider);
  }
  return provider;
}

const providers = new Map<string, pulumi.dynamic.ResourceProvider>();

function shim(runtime: string): pulumi.dynamic.ResourceProvider {
  type Runtime = pulumi.dynamic.ResourceProvider &
    Required<
      Pick<pulumi.dynamic.ResourceProvider, 'configure' | 'check' | 'diff' | 'create' | 'read' | 'update' | 'delete'>
    >;
  const load = (): Runtime => {
    // Loaded at call time inside the serialized code, so that nothing of the module is captured.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createRequire } = require('node:module') as typeof import('node:module');
    return (
      createRequire(`${process.cwd()}/program.js`)(`pulumi-edgeguard/runtime/${runtime}`) as { provider: Runtime }
    ).provider;
  };
  return {
    configure: (req) => load().configure(req),
    check: (olds, news) => load().check(olds, news),
    diff: (id, olds, news) => load().diff(id, olds, news),
    create: (inputs) => load().create(inputs),
    read: (id, props) => load().read(id, props),
    update: (id, olds, news) => load().update(id, olds, news),
    delete: (id, props) => load().delete(id, props),
  };
}
