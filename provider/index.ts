/**
 * EdgeGuard: page security, custom hostnames and load-balancing health alerts of the edge
 * service as Pulumi resources, with read helpers over what page security detected.
 *
 * This entry point is what a Pulumi program uses: the resources, the read helpers, the error tree
 * and the emulator's DNS helpers. Loading it costs what the resource classes cost, because every
 * program pays it at every `preview` and `up`: the read helpers load the client (undici and zod,
 * about 70 ms) at their first call. The API client itself, with the settings table, is
 * `pulumi-edgeguard/client`.
 *
 * Settings (stack config `edgeguard:*`, or the environment): `baseUrl` / `EDGEGUARD_BASE_URL`,
 * `apiToken` / `EDGEGUARD_API_TOKEN` (a secret), or `apiEmail` + `apiKey` /
 * `EDGEGUARD_API_EMAIL` + `EDGEGUARD_API_KEY`, and `vendor` / `EDGEGUARD_VENDOR`.
 */
export * from './resources/page-security-setting';
export * from './resources/csp-policy';
export * from './resources/custom-hostname';
export * from './resources/custom-hostname-validation';
export * from './resources/health-notification';
export * from './resources/pool-notification-migration';
export * from './resources/script-inventory';
export { Provider, type ProviderArgs } from './resources/provider';
export * from './helpers/read';
export * from './helpers/emulator-dns';
export { stackReadSettings } from './helpers/stack-settings';
export * from './client/errors';
export type { Settings, SettingName, Credentials, SettingsSources } from './settings';
