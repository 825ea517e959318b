import type { ScriptEntryInput } from '../../rules/inventory';

/** A `CspPolicy` as the program declares it: the header the stack means the host to send. */
export interface DeclaredPolicy {
  description: string;
  action: 'log' | 'allow';
  expression: string;
  value: string;
  enabled: boolean;
}

/** A `CspPolicy` of the stack: the live policy it manages. */
export interface ManagedPolicy {
  name: string;
  urn: string;
  zoneId: string;
  policyId: string;
  /**
   * The policy as the program declared it at the last update (the state's inputs, which a refresh
   * leaves alone, so a change made outside the stack stays a difference); absent when the state's
   * inputs do not hold one (a state written by hand).
   */
  declared?: DeclaredPolicy;
}

/**
 * What the review reads from a `pulumi stack export`, in a module of its own that loads only the
 * pure rules: the benchmark's child measures the heap a review keeps, and the pack's input (with
 * `@pulumi/policy` and the Pulumi SDK behind it) would add their 30 MiB to it.
 */

/** A resource of a `pulumi stack export`, as the review and the audit read it: nothing in it is trusted. */
export interface ExportedResource {
  urn: string;
  /** EdgeGuard's resource (`CspPolicy`, ...) of a dynamic or plugin type, else the type (`resourceOf`). */
  kind: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  /** Pending deletion (`delete: true`, left by an interrupted replace): no longer the stack's. */
  pendingDelete: boolean;
}

/** The resources of a `pulumi stack export` that have a URN, in the state's order. */
export function exportedResources(exported: unknown): ExportedResource[] {
  const resources = (exported as { deployment?: { resources?: unknown } } | undefined)?.deployment?.resources;
  const found: ExportedResource[] = [];
  for (const resource of Array.isArray(resources) ? resources : []) {
    const { urn, type, inputs, outputs, delete: pendingDelete } = (resource ?? {}) as Record<string, unknown>;
    if (typeof urn !== 'string') continue;
    found.push({
      urn,
      kind: resourceOf(typeof type === 'string' ? type : ''),
      inputs: (inputs ?? {}) as Record<string, unknown>,
      outputs: (outputs ?? {}) as Record<string, unknown>,
      pendingDelete: pendingDelete === true,
    });
  }
  return found;
}

/** The ids of the CSP policies a `pulumi stack export` holds, by URN: the live policies the stack manages. */
export function stackPolicyIds(exported: unknown): Map<string, string> {
  const ids = new Map<string, string>();
  for (const { urn, outputs } of exportedResources(exported))
    if (typeof outputs.policyId === 'string') ids.set(urn, outputs.policyId);
  return ids;
}

/** The declaration of a `CspPolicy` in the state's inputs, or `undefined` when they do not hold one. */
function declaredOf(inputs: Record<string, unknown>): DeclaredPolicy | undefined {
  const { description, action, expression, value, enabled } = inputs;
  if (action !== 'log' && action !== 'allow') return undefined;
  if (typeof expression !== 'string' || typeof value !== 'string') return undefined;
  return {
    description: typeof description === 'string' ? description : '',
    action,
    expression,
    value,
    // The resource's check defaults it to true.
    enabled: enabled !== false,
  };
}

/** The CSP policies a `pulumi stack export` manages, with their declarations, in the state's order. */
export function stackPolicies(exported: unknown): ManagedPolicy[] {
  const found: ManagedPolicy[] = [];
  for (const { urn, kind, inputs, outputs, pendingDelete } of exportedResources(exported)) {
    if (pendingDelete || kind !== 'CspPolicy') continue;
    const policyId = outputs.policyId;
    const zoneId = outputs.zoneId ?? inputs.zoneId;
    if (typeof policyId !== 'string' || typeof zoneId !== 'string') continue;
    const declared = declaredOf(inputs);
    found.push({
      name: nameOf(urn),
      urn,
      zoneId,
      policyId,
      ...(declared !== undefined ? { declared } : {}),
    });
  }
  return found;
}

/**
 * The entries (`scripts`, as written) of each `ScriptInventory` a `pulumi stack export` holds, by
 * URN: what the inventory authorized before a change.
 */
export function stackInventoryScripts(exported: unknown): Map<string, ScriptEntryInput[]> {
  const found = new Map<string, ScriptEntryInput[]>();
  for (const { urn, kind, inputs, outputs } of exportedResources(exported)) {
    const scripts = inputs.scripts ?? outputs.scripts;
    if (kind === 'ScriptInventory' && Array.isArray(scripts))
      found.set(
        urn,
        scripts.filter((entry): entry is ScriptEntryInput => typeof entry === 'object' && entry !== null),
      );
  }
  return found;
}

/** The type tokens of EdgeGuard's resources: dynamic (`pulumi-nodejs:dynamic/edgeguard:X`) or the provider plugin's (`edgeguard:index:X`). */
const EDGEGUARD_TYPE = /^(?:pulumi-nodejs:dynamic\/edgeguard|edgeguard:index):(\w+)$/;

/** The resource's name in the program: the last part of its URN. */
export function nameOf(urn: string): string {
  return urn.slice(urn.lastIndexOf('::') + 2);
}

/** The kind of an EdgeGuard resource (`CspPolicy`, ...) from its type token; another provider's type token as it is. */
export function resourceOf(type: string): string {
  return EDGEGUARD_TYPE.exec(type)?.[1] ?? type;
}
