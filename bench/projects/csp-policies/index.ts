import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

/**
 * `count` independent CSP policies of one zone: the engine may run all their steps in parallel.
 * The inputs are those of bench/projects/echo, so the two differ only in the provider.
 */

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const count = config.requireNumber('count');

for (let i = 0; i < count; i++) {
  new edgeguard.CspPolicy(`policy-${i}`, {
    zoneId,
    description: `bench policy ${i}`,
    action: 'log',
    expression: `http.host eq "shop${i}.example.com"`,
    value: "script-src 'self' cdn.example.com",
  });
}

export const policies = count;
