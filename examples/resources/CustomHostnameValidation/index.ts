import * as edgeguard from 'pulumi-edgeguard';

const zoneId = 'd2b694e372a24c7496bc0106d77a1c05';
const hostname = new edgeguard.CustomHostname('customer-one', {
  zoneId,
  hostname: 'shop.customer-one.example',
  ssl: { method: 'txt', type: 'dv' },
});

// Waits until the hostname is active, certificate included. Publish the TXT record of
// `ownershipRecordName` / `ownershipRecordValue` with your DNS provider's record resource, and make
// the validation depend on it (`dependsOn`), so that one `pulumi up` goes from pending to active.
// The hostname's `id`: a preview knows it even while the hostname's other outputs are unknown.
const validation = new edgeguard.CustomHostnameValidation('customer-one-validation', {
  zoneId,
  customHostnameId: hostname.id,
  timeoutSeconds: 900,
});

export const status = validation.status;
export const certificateAuthority = validation.certificateAuthorityInUse;
