import * as pulumi from '@pulumi/pulumi';
import type * as edgeguard from 'pulumi-edgeguard';

/**
 * An experiment for `npm run bench`: what `CspPolicy` would cost with a serialized provider of
 * one line. `pulumi.dynamic.Resource` only serializes the provider object into the `__provider`
 * property and registers the type `pulumi-nodejs:dynamic/<module>:<type>`; the dynamic-provider
 * process evaluates that text as a module and calls its `handler()` for the provider. Registering
 * the same type with the text written by hand gives the same resource, run by the same runtime
 * (`pulumi-edgeguard/runtime/csp-policy`), without the SDK's closure serialization (once per
 * program, as every CspPolicy shares one provider object) and with ~100 bytes of provider in the
 * state instead of ~2.3 KB, twice.
 */

const PROVIDER =
  "exports.handler = () => require('node:module').createRequire(process.cwd() + '/program.js')('pulumi-edgeguard/runtime/csp-policy').provider;";

class LeanCspPolicy extends pulumi.CustomResource {
  constructor(name: string, args: edgeguard.CspPolicyArgs) {
    super('pulumi-nodejs:dynamic/edgeguard:CspPolicy', name, { ...args, policyId: undefined, __provider: PROVIDER });
  }
}

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const count = config.requireNumber('count');

for (let i = 0; i < count; i++) {
  new LeanCspPolicy(`policy-${i}`, {
    zoneId,
    description: `bench policy ${i}`,
    action: 'log',
    expression: `http.host eq "shop${i}.example.com"`,
    value: "script-src 'self' cdn.example.com",
  });
}

export const policies = count;
