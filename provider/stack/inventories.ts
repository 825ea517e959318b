import { parseScriptInventory, type ScriptInventory } from '../../rules/inventory';
import { pinnedHeaders, type PinnableHeader } from '../../rules/security-headers';
import { parsedInputs } from '../runtime/contract';
import { inputsSchema as policyInputsSchema, type CspPolicyInputs } from '../runtime/csp-policy';
import { inputsSchema } from '../runtime/script-inventory';
import { nameOf } from '../review/meaning';
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
  /** The security headers it pins (`headers`), by lowercase name; absent or empty when it pins none. */
  headers?: Partial<Record<PinnableHeader, string>>;
}

/** A `CspPolicy` as the program declares it: the header the stack means the host to send. */
export type DeclaredPolicy = Pick<CspPolicyInputs, 'description' | 'action' | 'expression' | 'value' | 'enabled'>;

/** A `CspPolicy` of the stack: the live policy it manages. */
export interface ManagedPolicy {
  name: string;
  urn: string;
  zoneId: string;
  policyId: string;
  /**
   * The policy as the program declares it (the state's inputs, which a refresh leaves alone, so a
   * change made outside the stack stays a difference); absent when the state's inputs do not pass
   * the resource's check (a state written by hand).
   */
  declared?: DeclaredPolicy;
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
      found.inventories.push({
        name,
        urn,
        zoneId: checked.zoneId,
        inventory: parsed.value,
        headers: pinnedHeaders(checked.headers),
      });
    } else if (kind === 'CspPolicy') {
      const policyId = outputs.policyId;
      const zoneId = outputs.zoneId ?? inputs.zoneId;
      const declared = policyInputsSchema.safeParse(inputs);
      if (typeof policyId === 'string' && typeof zoneId === 'string')
        found.policies.push({
          name,
          urn,
          zoneId,
          policyId,
          ...(declared.success ? { declared: declaredOf(declared.data) } : {}),
        });
    }
  }
  return found;
}

function declaredOf(inputs: CspPolicyInputs): DeclaredPolicy {
  const { description, action, expression, value, enabled } = inputs;
  return { description, action, expression, value, enabled };
}
