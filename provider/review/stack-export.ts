/**
 * What the review reads from a `pulumi stack export`, in a module of its own that loads nothing
 * else: the benchmark's child measures the heap a review keeps, and the pack's input (with
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
