import type { Runtime } from '../runtime/contract';
import { runtimeNamed } from '../runtime/table';
import { resourceToken } from './tokens';

/**
 * The resources the provider plugin serves, by type token, each with the runtime the dynamic
 * resources use and the form of its id. In the plugin a resource's id is its import id: the
 * object's id with the zone or account it belongs to, so that `pulumi import` and `get` can find
 * it from the id alone (the service addresses every object under its owner).
 */

/** How a resource's plugin id is made of its owner and the runtime's id. */
export interface PluginResource {
  runtime: Runtime<object, object>;
  /** The input that names the owner. */
  owner: 'zoneId' | 'accountId';
  /**
   * The name of the runtime's id in the id form (`<zoneId>/<policyId>`); none when the runtime's
   * id is the owner's (one object per zone or account).
   */
  idName?: string;
  /** The runtime's id may also be a UUID (the vendor's alert policies), not only 32 hexadecimal characters. */
  uuidId?: true;
  /** Why `pulumi import` (a read with the id alone) is refused, for what the service does not hold as an object. */
  noImport?: string;
}

const TABLE: PluginResource[] = [
  { runtime: runtimeNamed('page-security-setting'), owner: 'zoneId' },
  { runtime: runtimeNamed('csp-policy'), owner: 'zoneId', idName: 'policyId' },
  { runtime: runtimeNamed('custom-hostname'), owner: 'zoneId', idName: 'customHostnameId' },
  { runtime: runtimeNamed('custom-hostname-validation'), owner: 'zoneId', idName: 'customHostnameId' },
  { runtime: runtimeNamed('health-notification'), owner: 'accountId', idName: 'policyId', uuidId: true },
  {
    runtime: runtimeNamed('pool-notification-migration'),
    owner: 'accountId',
    noImport:
      'a PoolNotificationMigration is an action on the pools of an account, not an object the service holds: declare it in the program, and pulumi up runs it (again, harmlessly, when the pools carry no e-mail)',
  },
  {
    runtime: runtimeNamed('script-inventory'),
    owner: 'zoneId',
    noImport:
      'a ScriptInventory is held in the stack, not by the service, which has no inventory to read from the zone id: declare it in the program, and pulumi up records it, writing nothing to the service',
  },
];

/** Every resource of the plugin, by token. */
export const PLUGIN_RESOURCES: ReadonlyMap<string, PluginResource> = new Map(
  TABLE.map((entry) => [resourceToken(entry.runtime.resource), entry]),
);
