/**
 * The API client (`pulumi-edgeguard/client`): one module per service, each with its operations, zod
 * schemas and types, over one HTTP layer (connection pool, retry policy, paging) and one error
 * tree; with the settings table and the one factory that makes a client from settings.
 */
export * from './errors';
export { HttpClient, type HttpOptions, type PollOptions, type RequestSpec, type Answer, type ResultInfo } from './http';
export * as pageSecurity from './page-security';
export * as customHostnames from './custom-hostnames';
export * as loadBalancing from './load-balancing';
export * as notifications from './notifications';
export {
  resolveSettings,
  SETTINGS,
  SettingsError,
  type Settings,
  type SettingName,
  type Credentials,
  type SettingsSources,
} from '../settings';
export { clientFor, clientFrom } from './shared';
