import * as pulumi from '@pulumi/pulumi';
import type * as edgeguard from 'pulumi-edgeguard';
// Not part of the package's exports: the bench copies this project to .edgeguard/bench/<name>/,
// three levels below the repository, and reaches the shim's source from there.
import { runtimeProvider } from '../../../provider/resources/shim';

/**
 * An experiment for `npm run bench`: `CspPolicy` as it is (the same shim, the same serialized
 * provider in the state), except that one provider object serves every resource. The SDK caches
 * a provider's serialization per object, so this serializes it once instead of once per
 * resource: it separates the program's serialization time from the cost of the state's size.
 */

const shared = runtimeProvider('csp-policy');

class SharedCspPolicy extends pulumi.dynamic.Resource {
  constructor(name: string, args: edgeguard.CspPolicyArgs) {
    super(shared, name, { ...args, policyId: undefined }, undefined, 'edgeguard', 'CspPolicy');
  }
}

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const count = config.requireNumber('count');

for (let i = 0; i < count; i++) {
  new SharedCspPolicy(`policy-${i}`, {
    zoneId,
    description: `bench policy ${i}`,
    action: 'log',
    expression: `http.host eq "shop${i}.example.com"`,
    value: "script-src 'self' cdn.example.com",
  });
}

export const policies = count;
