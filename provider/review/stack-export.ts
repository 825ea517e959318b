import type { ScriptEntryInput } from '../../rules/inventory';
import { resourceOf } from './meaning';

/**
 * What the review reads from a `pulumi stack export`, in a module of its own that loads only the
 * pure rules: the benchmark's child measures the heap a review keeps, and the pack's input (with
 * `@pulumi/policy` and the Pulumi SDK behind it) would add their 30 MiB to it.
 */

/** The ids of the CSP policies a `pulumi stack export` holds, by URN: the live policies the stack manages. */
export function stackPolicyIds(exported: unknown): Map<string, string> {
  const ids = new Map<string, string>();
  const resources = (exported as { deployment?: { resources?: unknown } })?.deployment?.resources;
  for (const resource of Array.isArray(resources) ? resources : []) {
    const { urn, outputs } = (resource ?? {}) as { urn?: unknown; outputs?: { policyId?: unknown } };
    const id = outputs?.policyId;
    if (typeof urn === 'string' && typeof id === 'string') ids.set(urn, id);
  }
  return ids;
}

/**
 * The entries (`scripts`, as written) of each `ScriptInventory` a `pulumi stack export` holds, by
 * URN: what the inventory authorized before a change.
 */
export function stackInventoryScripts(exported: unknown): Map<string, ScriptEntryInput[]> {
  const found = new Map<string, ScriptEntryInput[]>();
  const resources = (exported as { deployment?: { resources?: unknown } })?.deployment?.resources;
  for (const resource of Array.isArray(resources) ? resources : []) {
    const { urn, type, inputs, outputs } = (resource ?? {}) as {
      urn?: unknown;
      type?: unknown;
      inputs?: { scripts?: unknown };
      outputs?: { scripts?: unknown };
    };
    const scripts = inputs?.scripts ?? outputs?.scripts;
    if (
      typeof urn === 'string' &&
      typeof type === 'string' &&
      resourceOf(type) === 'ScriptInventory' &&
      Array.isArray(scripts)
    )
      found.set(
        urn,
        scripts.filter((entry): entry is ScriptEntryInput => typeof entry === 'object' && entry !== null),
      );
  }
  return found;
}
