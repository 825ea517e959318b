import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

/**
 * `count` independent custom hostnames of one zone. Nothing publishes their ownership records, so
 * each stays `pending` and the deployment does not wait for validation: what is measured is the
 * pacing of the creates under the issuance limit.
 */

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const count = config.requireNumber('count');

for (let i = 0; i < count; i++) {
  new edgeguard.CustomHostname(`hostname-${i}`, {
    zoneId,
    hostname: `shop${i}.customer.example`,
    ssl: { method: 'txt', type: 'dv' },
  });
}

export const hostnames = count;
