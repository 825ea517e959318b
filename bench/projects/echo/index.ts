import * as pulumi from '@pulumi/pulumi';

/**
 * The floor of a deployment of dynamic resources: a provider that calls nothing. One provider
 * object serves every resource (the SDK serializes it once), and its code is as small as a
 * provider can be, so what remains is the engine's and the SDK's own work.
 */

const echo: pulumi.dynamic.ResourceProvider = {
  async create(inputs) {
    return { id: globalThis.crypto.randomUUID(), outs: inputs as Record<string, unknown> };
  },
  async read(id, props) {
    return { id, props: props as Record<string, unknown> };
  },
};

class Echo extends pulumi.dynamic.Resource {
  constructor(name: string, args: Record<string, pulumi.Input<unknown>>) {
    super(echo, name, args, undefined, 'bench', 'Echo');
  }
}

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const count = config.requireNumber('count');

for (let i = 0; i < count; i++) {
  new Echo(`echo-${i}`, {
    zoneId,
    description: `bench policy ${i}`,
    action: 'log',
    expression: `http.host eq "shop${i}.example.com"`,
    value: "script-src 'self' cdn.example.com",
  });
}

export const resources = count;
