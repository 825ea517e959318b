import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const hostname = new edgeguard.CustomHostname('customer', {
  zoneId,
  hostname: config.require('hostname'),
  ssl: { method: 'txt', type: 'dv', certificateAuthority: '' },
});
const validation = new edgeguard.CustomHostnameValidation('customer-validation', {
  zoneId,
  customHostnameId: hostname.id,
  timeoutSeconds: config.requireNumber('timeoutSeconds'),
});

export const status = validation.status;
