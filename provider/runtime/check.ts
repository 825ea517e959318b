import type * as pulumi from '@pulumi/pulumi';
import { z } from 'zod';
import { expecting, fieldPath } from '../../rules/zod';
import type { Runtime } from './contract';

/**
 * `check` for every resource: the inputs are parsed with the resource's zod schema before any API
 * call, and each problem becomes a failure naming the property. During preview, values not known
 * yet arrive as {@link UNKNOWN}; problems at (or under) such a value are let through.
 */

/** The engine's marker for a value unknown during preview. */
export const UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';

/** Whether `value` is, or contains, a preview unknown. */
export function hasUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(hasUnknown);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasUnknown);
  return false;
}

function unknownOnPath(root: unknown, path: ReadonlyArray<PropertyKey>): boolean {
  let node = root;
  for (const part of path) {
    if (node === UNKNOWN) return true;
    if (node === null || typeof node !== 'object') return false;
    node = (node as Record<PropertyKey, unknown>)[part];
  }
  return hasUnknown(node);
}

/**
 * Parses `news` with `schema`. Known and valid: the parsed inputs (defaults applied). Otherwise
 * the failures of the known parts; with unknowns and no failure, the inputs as given.
 */
export function checkInputs<S extends z.ZodType>(
  schema: S,
  news: Record<string, unknown>,
): pulumi.dynamic.CheckResult<z.output<S> | Record<string, unknown>> {
  const parsed = schema.safeParse(news);
  if (parsed.success) return { inputs: parsed.data };
  const failures = parsed.error.issues
    .filter((issue) => !unknownOnPath(news, issue.path))
    .map((issue) => ({ property: fieldPath(issue.path, 'inputs'), reason: issue.message }));
  return failures.length > 0 ? { inputs: news, failures } : { inputs: news };
}

/**
 * `check` of a runtime, as both hosts run it: {@link checkInputs}, and when the inputs are known
 * and valid, with the outputs they alone decide ({@link Runtime.derived}).
 */
export function checkRuntime<I extends object, O extends object>(
  runtime: Runtime<I, O>,
  news: Record<string, unknown>,
): pulumi.dynamic.CheckResult<I | Record<string, unknown>> {
  const checked = checkInputs(runtime.inputs, news);
  if (runtime.derived === undefined || checked.failures !== undefined || hasUnknown(checked.inputs)) return checked;
  return { inputs: withDerived(runtime, checked.inputs as I) };
}

/** `inputs` with the outputs they alone decide ({@link Runtime.derived}), for `check` and `read`. */
export function withDerived<I extends object, O extends object>(runtime: Runtime<I, O>, inputs: I): I {
  return runtime.derived === undefined ? inputs : { ...inputs, ...runtime.derived(inputs) };
}

/**
 * An identifier of the API: 32 hexadecimal characters (contract). Upper case is accepted and
 * stored in lower case, the API's form, so an id pasted in either case means the same object and
 * never shows as a change. Every resource takes its ids through these schemas.
 */
export function hexIdSchema(what: string) {
  const expected = expecting(`${what}: 32 hexadecimal characters`);
  return z
    .string(expected)
    .regex(/^[0-9a-fA-F]{32}$/, expected)
    .transform((id) => id.toLowerCase());
}

/** A UUID: 8-4-4-4-12 hexadecimal characters. */
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * An identifier the vendor gives as a UUID (its alert policies and webhooks) and the contract as 32
 * hexadecimal characters: either is taken, whatever the dialect, and stored in lower case.
 */
export function hexOrUuidIdSchema(what: string) {
  const expected = expecting(`${what}: 32 hexadecimal characters, or a UUID (8-4-4-4-12 hexadecimal characters)`);
  return z
    .string(expected)
    .refine((id) => /^[0-9a-fA-F]{32}$/.test(id) || UUID.test(id), expected)
    .transform((id) => id.toLowerCase());
}

/** A zone's id. */
export const zoneIdSchema = hexIdSchema("the zone's id");
/** An account's id. */
export const accountIdSchema = hexIdSchema("the account's id");
