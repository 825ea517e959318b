import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

/** `count` custom hostnames of one zone, all in one deployment. */

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const domain = config.require('domain');

const hostnames = Array.from({ length: config.requireNumber('count') }, (_, i) => {
  const n = String(i + 1).padStart(2, '0');
  return new edgeguard.CustomHostname(`customer-${n}`, {
    zoneId,
    hostname: `customer-${n}.${domain}`,
    ssl: { method: 'txt', type: 'dv' },
  });
});

export const ids = hostnames.map((hostname) => hostname.customHostnameId);
