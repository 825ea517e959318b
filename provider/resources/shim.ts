import type * as pulumi from '@pulumi/pulumi';

/**
 * The provider object Pulumi serializes into the state of every resource (and runs on refresh and
 * delete). It must stay tiny and free of secrets: each method loads the package's compiled
 * runtime by its package name at call time and delegates, so no library, schema or credential is
 * captured — only the runtime's name.
 */
export function runtimeProvider(runtime: string): pulumi.dynamic.ResourceProvider {
  return {
    configure: (req) => require(`pulumi-edgeguard/runtime/${runtime}`).provider.configure(req),
    check: (olds, news) => require(`pulumi-edgeguard/runtime/${runtime}`).provider.check(olds, news),
    diff: (id, olds, news) => require(`pulumi-edgeguard/runtime/${runtime}`).provider.diff(id, olds, news),
    create: (inputs) => require(`pulumi-edgeguard/runtime/${runtime}`).provider.create(inputs),
    read: (id, props) => require(`pulumi-edgeguard/runtime/${runtime}`).provider.read(id, props),
    update: (id, olds, news) => require(`pulumi-edgeguard/runtime/${runtime}`).provider.update(id, olds, news),
    delete: (id, props) => require(`pulumi-edgeguard/runtime/${runtime}`).provider.delete(id, props),
  };
}
