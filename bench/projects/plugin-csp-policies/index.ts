import * as pulumi from '@pulumi/pulumi';

/**
 * The program of bench/projects/csp-policies, with the policies served by the provider plugin:
 * each declared by its type token (as any SDK generated from the plugin's schema does), so the
 * engine starts `pulumi-resource-edgeguard` as the default provider instead of the dynamic host.
 */

class CspPolicy extends pulumi.CustomResource {
  constructor(name: string, args: pulumi.Inputs) {
    super('edgeguard:index:CspPolicy', name, args);
  }
}

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const count = config.requireNumber('count');

for (let i = 0; i < count; i++) {
  new CspPolicy(`policy-${i}`, {
    zoneId,
    description: `bench policy ${i}`,
    action: 'log',
    expression: `http.host eq "shop${i}.example.com"`,
    value: "script-src 'self' cdn.example.com",
  });
}

export const policies = count;
