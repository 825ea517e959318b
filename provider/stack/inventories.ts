import { parseScriptInventory, type ScriptInventory } from '../../rules/inventory';
import { pinnedHeaders, type PinnableHeader } from '../../rules/security-headers';
import { parsedInputs } from '../runtime/contract';
import { inputsSchema } from '../runtime/script-inventory';
import { exportedResources, nameOf, stackPolicies, type ManagedPolicy } from './export';

export type { DeclaredPolicy, ManagedPolicy } from './export';

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
  /** The security headers it pins (`headers`), by lowercase name; absent or empty when it pins none. */
  headers?: Partial<Record<PinnableHeader, string>>;
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
  const found: Pick<AuditedResources, 'inventories'> = { inventories: [] };
  for (const { urn, kind, inputs, pendingDelete } of exportedResources(exported)) {
    if (pendingDelete) continue;
    const name = nameOf(urn);
    if (kind !== 'ScriptInventory') continue;
    const checked = parsedInputs(`ScriptInventory ${name}`, inputsSchema, inputs);
    // The schema's check is parseScriptInventory's: what passed it parses.
    const parsed = parseScriptInventory(checked);
    if (!parsed.ok) throw new Error(`ScriptInventory ${name}: ${parsed.error.message}`);
    found.inventories.push({
      name,
      urn,
      zoneId: checked.zoneId,
      inventory: parsed.value,
      headers: pinnedHeaders(checked.headers),
    });
  }
  return { ...found, policies: stackPolicies(exported) };
}
