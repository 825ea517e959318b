import type * as pulumi from '@pulumi/pulumi';
import { z } from 'zod';

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

/** `a.b[2]` for a zod path. */
export function propertyPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)), '');
}

/**
 * Parses `news` with `schema`. Known and valid: the parsed inputs (defaults applied). Otherwise
 * the failures of the known parts; with unknowns and no failure, the inputs as given.
 */
export function checkInputs<S extends z.ZodType>(schema: S, news: Record<string, unknown>): pulumi.dynamic.CheckResult<z.output<S> | Record<string, unknown>> {
  const parsed = schema.safeParse(news);
  if (parsed.success) return { inputs: parsed.data };
  const failures = parsed.error.issues
    .filter((issue) => !unknownOnPath(news, issue.path))
    .map((issue) => ({ property: propertyPath(issue.path) || 'inputs', reason: issue.message }));
  return failures.length > 0 ? { inputs: news, failures } : { inputs: news };
}

/** A short rendering of a refused value, for messages (never long, never a whole object). */
export function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : String(value);
}

/** zod's `error` option: what is expected, and what came instead. */
export function expecting(what: string) {
  return { error: (issue: { input?: unknown }) => (issue.input === undefined ? `required: ${what}` : `must be ${what} (got ${shown(issue.input)})`) };
}

/**
 * An identifier of the API: 32 hexadecimal characters (contract). Upper case is accepted and
 * stored in lower case, the API's form, so an id pasted in either case means the same object and
 * never shows as a change. Every resource takes its ids through these schemas.
 */
export function hexIdSchema(what: string) {
  const expected = `${what}: 32 hexadecimal characters`;
  const refused = (issue: { input?: unknown }) => (issue.input === undefined ? `is required: ${expected}` : `must be ${expected} (got ${shown(issue.input)})`);
  return z
    .string({ error: refused })
    .regex(/^[0-9a-fA-F]{32}$/, { error: refused })
    .transform((id) => id.toLowerCase());
}

/** A zone's id. */
export const zoneIdSchema = hexIdSchema("the zone's id");
/** An account's id. */
export const accountIdSchema = hexIdSchema("the account's id");
