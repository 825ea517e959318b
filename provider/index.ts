/**
 * EdgeGuard: page security, custom hostnames and load-balancing health alerts of the edge
 * service as Pulumi resources, with read helpers and the API client they are built on.
 *
 * Settings (stack config `edgeguard:*`, or the environment): `baseUrl` / `EDGEGUARD_BASE_URL`,
 * `apiToken` / `EDGEGUARD_API_TOKEN` (a secret), or `apiEmail` + `apiKey` /
 * `EDGEGUARD_API_EMAIL` + `EDGEGUARD_API_KEY`, and `vendor` / `EDGEGUARD_VENDOR`.
 */
export { PageSecuritySetting, type PageSecuritySettingArgs } from './resources/page-security-setting';
export { CspPolicy, type CspPolicyArgs } from './resources/csp-policy';
export * from './resources/custom-hostname';
export * from './resources/custom-hostname-validation';
export * from './resources/health-notification';
export * from './resources/pool-notification-migration';
export * from './helpers/read';
export * from './helpers/emulator-dns';
export { stackReadSettings } from './helpers/stack-settings';
export * from './client';
export {
  resolveSettings,
  SETTINGS,
  SettingsError,
  type Settings,
  type SettingName,
  type Credentials,
  type SettingsSources,
} from './settings';
