import * as command from '@pulumi/command';
import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

/**
 * Hostnames of customers, served by one zone with a certificate each, taken from `pending` to
 * `active` in one `pulumi up` by the chain AWS users know from `acm.Certificate` -> DNS record ->
 * `acm.CertificateValidation`: the hostname, the DNS record made from its outputs, and a
 * `CustomHostnameValidation` that waits for the hostname to be active.
 *
 * - `customer`: the chain; its ownership TXT record is published by a command in the emulator's
 *   DNS (with a real DNS provider, its record resource takes the command's place).
 * - `strict-customer`: the same chain, but the customer's domain has a CAA record (`caaRecord`)
 *   that permits neither certificate authority of the service. Its validation ends `caa_error`
 *   and `pulumi up` fails saying which CAA record to add; with that record, the next `pulumi up`
 *   finishes the validation.
 * - `long-customer`: longer than the 64 characters a certificate Common Name may hold (RFC 5280),
 *   which the service refuses with error 1469 unless branding puts a shared service hostname in
 *   the Common Name and this one in the Subject Alternative Name. Its DNS already points into the
 *   zone (a CNAME published beforehand), so the hostname itself waits until it is active
 *   (`waitForActive`), with no record to publish.
 */

const config = new pulumi.Config();
const zoneId = config.require('zoneId');

/** A DNS record in the emulator's world, published on create and removed on delete. */
function dnsRecord(name: string, record: edgeguard.EmulatorDnsRecord): command.local.Command {
  return new command.local.Command(name, edgeguard.emulatorDnsRecordCommand(record));
}

// ---- customer: hostname -> ownership record -> validation ----

const customer = new edgeguard.CustomHostname('customer', {
  zoneId,
  hostname: config.require('hostname'),
  // `""` lets the service choose the certificate authority (the more compatible one, unless CAA
  // records forbid it); `certificateAuthorityInUse` says which it chose.
  ssl: { method: 'txt', type: 'dv', certificateAuthority: '' },
});
const customerRecord = dnsRecord('customer-ownership-record', {
  name: customer.ownershipRecordName,
  type: 'TXT',
  value: customer.ownershipRecordValue,
});
const customerValidation = new edgeguard.CustomHostnameValidation(
  'customer-validation',
  { zoneId, customHostnameId: customer.id },
  { dependsOn: [customerRecord] },
);

// ---- strict-customer: the same chain, under the customer's CAA record ----

const strictHostname = config.require('strictHostname');
const strictCaa = dnsRecord('strict-customer-caa-record', {
  // The customer's domain: CAA records govern the names below it (RFC 8659).
  name: strictHostname.split('.').slice(1).join('.'),
  type: 'CAA',
  value: config.require('caaRecord'),
});
const strict = new edgeguard.CustomHostname('strict-customer', {
  zoneId,
  hostname: strictHostname,
  ssl: { method: 'txt', type: 'dv' },
});
const strictRecord = dnsRecord('strict-customer-ownership-record', {
  name: strict.ownershipRecordName,
  type: 'TXT',
  value: strict.ownershipRecordValue,
});
const strictValidation = new edgeguard.CustomHostnameValidation(
  'strict-customer-validation',
  { zoneId, customHostnameId: strict.id, timeoutSeconds: 120 },
  // After the first customer's validation too: a failing step stops the engine from starting
  // others, and this one fails until the CAA record is fixed.
  { dependsOn: [strictRecord, strictCaa, customerValidation] },
);

// ---- long-customer: branding, and a CNAME published beforehand ----

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
  status: customerValidation.status,
  certificateAuthority: customerValidation.certificateAuthorityInUse,
  ownershipTxtRecord: { name: customer.ownershipRecordName, value: customer.ownershipRecordValue },
};
export const strictCustomerHostname = {
  id: strict.customHostnameId,
  hostname: strict.hostname,
  status: strictValidation.status,
  certificateAuthority: strictValidation.certificateAuthorityInUse,
};
export const longCustomerHostname = {
  id: longCustomer.customHostnameId,
  hostname: longCustomer.hostname,
  length: longCustomer.hostname.apply((name) => name.length),
  branding: longCustomer.branding,
  status: longCustomer.status,
  sslStatus: longCustomer.sslStatus,
};
