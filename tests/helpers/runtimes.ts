/** The runtime (provider/runtime/<name>.ts) that each EdgeGuard type's stored provider loads. */
export const RUNTIME_OF: Readonly<Record<string, string>> = {
  'pulumi-nodejs:dynamic/edgeguard:PageSecuritySetting': 'page-security-setting',
  'pulumi-nodejs:dynamic/edgeguard:CspPolicy': 'csp-policy',
  'pulumi-nodejs:dynamic/edgeguard:CustomHostname': 'custom-hostname',
  'pulumi-nodejs:dynamic/edgeguard:HealthNotification': 'health-notification',
  'pulumi-nodejs:dynamic/edgeguard:PoolNotificationMigration': 'pool-notification-migration',
  'pulumi-nodejs:dynamic/edgeguard:CustomHostnameValidation': 'custom-hostname-validation',
  'pulumi-nodejs:dynamic/edgeguard:ScriptInventory': 'script-inventory',
};
