import type { ScriptEntryInput } from '../../rules/inventory';

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
