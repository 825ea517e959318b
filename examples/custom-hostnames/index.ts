import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

/**
 * Two hostnames of customers, served by one zone with a certificate each.
 *
 * - `hostname` is created and left `pending`: the customer proves ownership by publishing the TXT
 *   record in the `customer.ownershipTxtRecord` output, and the service validates it on its own.
 * - `longHostname` is longer than the 64 characters a certificate Common Name may hold (RFC 5280),
 *   which the service refuses with error 1469 unless branding puts a shared service hostname in the
 *   Common Name and this one in the Subject Alternative Name. Its DNS already points into the zone
 *   (a CNAME), so `pulumi up` waits until it is active and fails if it is not within the timeout.
 */

const config = new pulumi.Config();
const zoneId = config.require('zoneId');

const customer = new edgeguard.CustomHostname('customer', {
  zoneId,
  hostname: config.require('hostname'),
  // `""` lets the service choose the certificate authority (the more compatible one, unless CAA
  // records forbid it); `certificateAuthorityInUse` says which it chose.
  ssl: { method: 'txt', type: 'dv', certificateAuthority: '' },
});

const longCustomer = new edgeguard.CustomHostname('long-customer', {
  zoneId,
  hostname: config.require('longHostname'),
  ssl: { method: 'txt', type: 'dv' },
  branding: true,
  // Only a record published independently of this stack can make the wait succeed: the CNAME.
  waitForActive: true,
  waitTimeoutSeconds: config.getNumber('waitTimeoutSeconds') ?? 120,
});

export const customerHostname = {
  id: customer.customHostnameId,
  hostname: customer.hostname,
  status: customer.status,
  certificateAuthority: customer.certificateAuthorityInUse,
  // Give this to the customer: publishing it proves ownership.
  ownershipTxtRecord: { name: customer.ownershipRecordName, value: customer.ownershipRecordValue },
};
export const longCustomerHostname = {
  id: longCustomer.customHostnameId,
  hostname: longCustomer.hostname,
  length: longCustomer.hostname.apply((name) => name.length),
  branding: longCustomer.branding,
  status: longCustomer.status,
  sslStatus: longCustomer.sslStatus,
};
