import { z } from 'zod';
import { fieldPath } from '../../rules/zod';
import { ApiError, ErrorCode, invalidField } from './errors';
import { isId } from './ids';

/**
 * zod at the edge of every route: bodies, queries and path identifiers are parsed here, and a
 * failure becomes a 400 whose message names the field (`filters.pool_id[2]`) and the reason.
 */

function toApiError(error: z.ZodError, root: string): ApiError {
  const entries = error.issues.map((issue) => ({
    code: ErrorCode.invalidInput,
    message: `${fieldPath(issue.path, root)}: ${issue.message}`,
  }));
  return new ApiError(400, entries);
}

/** A request body that must be a JSON object (to merge a partial update over a record), or a 400 naming `body`. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidField('body', 'must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/** Parses a JSON request body; a missing body is named `body`. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  bodyObject(body);
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw toApiError(parsed.error, 'body');
  return parsed.data;
}

/** Parses a query string object (values are strings, or arrays of strings when repeated). */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const parsed = schema.safeParse(query ?? {});
  if (!parsed.success) throw toApiError(parsed.error, 'query');
  return parsed.data;
}

/** Contract: a malformed identifier in a path is HTTP 400 with code 7003. */
export function pathId(value: unknown, name: string): string {
  if (!isId(value)) {
    throw invalidField(
      name,
      `must be 32 lowercase hexadecimal characters (got "${String(value).slice(0, 80)}")`,
      ErrorCode.invalidZoneOrAccount,
    );
  }
  return value;
}

/** The vendor's form of the ids of alert policies and webhooks: a lowercase UUID. */
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether `value` is a lowercase UUID (the vendor's ids of alert policies and webhooks). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

/**
 * An identifier in a path that may also be a UUID (the vendor's alert policies): a malformed one is
 * HTTP 400 with code 7003, as {@link pathId}'s.
 */
export function pathIdOrUuid(value: unknown, name: string): string {
  if (isUuid(value)) return value;
  if (!isId(value)) {
    throw invalidField(
      name,
      `must be 32 lowercase hexadecimal characters or a UUID (got "${String(value).slice(0, 80)}")`,
      ErrorCode.invalidZoneOrAccount,
    );
  }
  return value;
}

/** A query parameter that is a whole decimal number in [min, max]. */
export function queryInteger(name: string, min: number, max: number) {
  return z
    .string({ error: `${name} must be a whole number` })
    .regex(/^\d{1,9}$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`);
}

/** A 32-hex identifier inside a body. */
export const idSchema = z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 lowercase hexadecimal characters');

/** Contract: timestamps are ISO 8601 UTC with milliseconds and `Z`. */
export const timestampSchema = z.iso.datetime({
  precision: 3,
  message: 'must be an ISO 8601 UTC timestamp with milliseconds, like 2026-01-31T12:00:00.000Z',
});

/** A plausible e-mail address (what a delivery mechanism or legacy recipient must be). */
export const emailSchema = z.email({ message: 'must be an e-mail address' });
