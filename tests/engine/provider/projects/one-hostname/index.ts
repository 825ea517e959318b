import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

const config = new pulumi.Config();
const hostname = new edgeguard.CustomHostname('customer', {
  zoneId: config.require('zoneId'),
  hostname: config.require('hostname'),
  ssl: { method: 'txt', type: 'dv', certificateAuthority: '' },
});

export const id = hostname.customHostnameId;
export const status = hostname.status;
