/**
 * What `@pulumi/policy` uses of `@pulumi/pulumi`'s root module: its assets and archives, to
 * deserialize a resource's properties. `./start.ts` gives the pack this module in its place.
 */
export * as asset from '@pulumi/pulumi/asset';
