import { parseScriptInventory, type ScriptInventory } from '../../rules/inventory';
import { parsedInputs } from '../runtime/contract';
import { inputsSchema } from '../runtime/script-inventory';
import { nameOf } from './export';
import { exportedResources } from './export';

/**
 * What `edgeguard-audit` takes from a stack's state (`pulumi stack export`): its `ScriptInventory`
 * resources, as the program declared them, and the ids of the CSP policies it manages, to say which
 * live header is whose. Pure: `./cli.ts` exports the state through the Automation API.
 */

/** A `ScriptInventory` of the stack, parsed. */
export interface StackInventory {
  /** The resource's name in the program. */
  name: string;
  urn: string;
  zoneId: string;
  inventory: ScriptInventory;
}

/** A `CspPolicy` of the stack: the live policy it manages. */
export interface ManagedPolicy {
  name: string;
  urn: string;
  zoneId: string;
  policyId: string;
}

/** What the audit reads from a stack's state. */
export interface AuditedResources {
  inventories: StackInventory[];
  policies: ManagedPolicy[];
}

/**
 * The inventories and managed policies of a `pulumi stack export`, in the state's order. A resource
 * pending deletion (`delete: true`, left by an interrupted replace) is not the stack's any more.
 *
 * @throws a `ResourceStateError` naming the inventory and the property when an inventory's inputs
 *   do not pass the resource's check (a state written by hand, or a secret where text is expected).
 */
export function auditedResources(exported: unknown): AuditedResources {
  const found: AuditedResources = { inventories: [], policies: [] };
  for (const { urn, kind, inputs, outputs, pendingDelete } of exportedResources(exported)) {
    if (pendingDelete) continue;
    const name = nameOf(urn);
    if (kind === 'ScriptInventory') {
      const checked = parsedInputs(`ScriptInventory ${name}`, inputsSchema, inputs);
      // The schema's check is parseScriptInventory's: what passed it parses.
      const parsed = parseScriptInventory(checked);
      if (!parsed.ok) throw new Error(`ScriptInventory ${name}: ${parsed.error.message}`);
      found.inventories.push({ name, urn, zoneId: checked.zoneId, inventory: parsed.value });
    } else if (kind === 'CspPolicy') {
      const policyId = outputs.policyId;
      const zoneId = outputs.zoneId ?? inputs.zoneId;
      if (typeof policyId === 'string' && typeof zoneId === 'string')
        found.policies.push({ name, urn, zoneId, policyId });
    }
  }
  return found;
}
