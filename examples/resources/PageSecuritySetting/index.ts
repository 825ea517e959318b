import * as edgeguard from 'pulumi-edgeguard';

// Page security on: the zone reports the scripts, connections and cookies of its pages.
const pageSecurity = new edgeguard.PageSecuritySetting('page-security', {
  zoneId: 'd2b694e372a24c7496bc0106d77a1c05',
  enabled: true,
});

// What the zone had before this stack took it over, which `pulumi destroy` puts back.
export const enabledBefore = pageSecurity.enabledBeforeCreate;
