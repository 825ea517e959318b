import * as edgeguard from 'pulumi-edgeguard';

// A customer's own hostname served by the zone; it stays `pending` until its ownership is proven.
const hostname = new edgeguard.CustomHostname('customer-one', {
  zoneId: 'd2b694e372a24c7496bc0106d77a1c05',
  hostname: 'shop.customer-one.example',
  ssl: { method: 'txt', type: 'dv' },
});

// The TXT record that proves ownership, for the customer's DNS.
export const ownershipRecord = { name: hostname.ownershipRecordName, value: hostname.ownershipRecordValue };
export const status = hostname.status;
