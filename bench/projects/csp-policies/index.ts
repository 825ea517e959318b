import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

/**
 * `count` independent CSP policies of one zone: the engine may run all their steps in parallel.
 * The inputs are those of bench/projects/echo, so the two differ only in the provider. With
 * `plugin`, the policies are the provider plugin's, under one explicit provider (its settings from
 * the environment, as the dynamic resources take theirs here).
 */

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const count = config.requireNumber('count');
const provider = config.getBoolean('plugin') ? new edgeguard.Provider('bench') : undefined;

for (let i = 0; i < count; i++) {
  new edgeguard.CspPolicy(
    `policy-${i}`,
    {
      zoneId,
      description: `bench policy ${i}`,
      action: 'log',
      expression: `http.host eq "shop${i}.example.com"`,
      value: "script-src 'self' cdn.example.com",
    },
    provider === undefined ? undefined : { provider },
  );
}

export const policies = count;
