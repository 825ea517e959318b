import type { Runtime } from '../runtime/contract';
import { runtime as cspPolicy } from '../runtime/csp-policy';
import { runtime as customHostname } from '../runtime/custom-hostname';
import { runtime as customHostnameValidation } from '../runtime/custom-hostname-validation';
import { runtime as healthNotification } from '../runtime/health-notification';
import { runtime as pageSecuritySetting } from '../runtime/page-security-setting';
import { runtime as poolNotificationMigration } from '../runtime/pool-notification-migration';
import { runtime as scriptInventory } from '../runtime/script-inventory';
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
  /** Why `pulumi import` (a read with the id alone) is refused, for what the service does not hold as an object. */
  noImport?: string;
}

const TABLE: PluginResource[] = [
  { runtime: pageSecuritySetting, owner: 'zoneId' },
  { runtime: cspPolicy, owner: 'zoneId', idName: 'policyId' },
  { runtime: customHostname, owner: 'zoneId', idName: 'customHostnameId' },
  { runtime: customHostnameValidation, owner: 'zoneId', idName: 'customHostnameId' },
  { runtime: healthNotification, owner: 'accountId', idName: 'policyId' },
  {
    runtime: poolNotificationMigration,
    owner: 'accountId',
    noImport:
      'a PoolNotificationMigration is an action on the pools of an account, not an object the service holds: declare it in the program, and pulumi up runs it (again, harmlessly, when the pools carry no e-mail)',
  },
  {
    runtime: scriptInventory,
    owner: 'zoneId',
    noImport:
      'a ScriptInventory is held in the stack, not by the service, which has no inventory to read from the zone id: declare it in the program, and pulumi up records it, writing nothing to the service',
  },
];

/** Every resource of the plugin, by token. */
export const PLUGIN_RESOURCES: ReadonlyMap<string, PluginResource> = new Map(
  TABLE.map((entry) => [resourceToken(entry.runtime.resource), entry]),
);
