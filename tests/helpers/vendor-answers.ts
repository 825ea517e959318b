import fc from 'fast-check';
import { deref, rootOf, type JsonSchema, type VendorOperation } from './vendor-shapes';

/**
 * Answers the vendor may give, generated from its SDK's declared response types (JSON Schema from
 * `vendor-shapes.ts`, npm `cloudflare` 7.1.0) with `fast-check`: every required field, the optional
 * ones sometimes, `null` where a field is nullable, enum values from the declared enum only (never
 * one the schema does not allow). The SDK's types carry no formats; where the vendor's OpenAPI schema
 * (`cca3064`) gives a field one, the value has it: timestamps as ISO 8601 (`format: date-time`),
 * scores whole numbers 1 to 99, a script's `hash` 64 hexadecimal characters, ids 32 hexadecimal
 * characters (UUIDs for alert policies and webhooks), URLs and hostnames as such. An object's own `id`
 * is always there, even where the SDK declares it optional (issue 42: a missing id stays refused).
 */

/** How ids look in an operation's answers: 32 hexadecimal characters, or the vendor's UUIDs (alert policies). */
export type IdForm = 'hex' | 'uuid';

const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });
const isoTime = fc
  .date({ min: new Date('2020-01-01T00:00:00.000Z'), max: new Date('2030-01-01T00:00:00.000Z'), noInvalidDate: true })
  .map((date) => date.toISOString());
const pageUrl = fc.oneof(
  fc.webUrl(),
  fc.tuple(fc.domain(), fc.webPath()).map(([host, pathname]) => `${host}${pathname}`),
);

/** The OpenAPI schema's form of a field, by its name; `undefined` when it gives none. */
function formatOf(name: string, ids: IdForm): fc.Arbitrary<unknown> | undefined {
  if (name === 'id') return ids === 'uuid' ? fc.uuid() : hex(32);
  if (/(_at|_on)$/.test(name) || name === 'created' || name === 'modified') return isoTime;
  if (name.endsWith('_score')) return fc.integer({ min: 1, max: 99 });
  if (name === 'hash') return hex(64);
  if (name === 'url' || name === 'first_page_url' || name === 'page_urls') return pageUrl;
  if (name === 'host' || name === 'hostname') return fc.domain();
  if (name === 'notification_email') return fc.oneof(fc.constant(''), fc.emailAddress());
  return undefined;
}

/** An arbitrary of the values `schema` (inside `root`'s definitions) allows; `name` is the field's. */
export function arbitraryOf(
  root: JsonSchema,
  schema: JsonSchema,
  name = '',
  ids: IdForm = 'hex',
  depth = 0,
): fc.Arbitrary<unknown> {
  const resolved = deref(root, schema) ?? {};
  if ('const' in resolved) return fc.constant(resolved.const);
  if (Array.isArray(resolved.enum)) return fc.constantFrom(...(resolved.enum as unknown[]));
  const union = (resolved.anyOf ?? resolved.oneOf) as JsonSchema[] | undefined;
  if (union) return fc.oneof(...union.map((member) => arbitraryOf(root, member, name, ids, depth)));
  const types = [resolved.type ?? 'object'].flat() as string[];
  if (types.length > 1) {
    return fc.oneof(...types.map((type) => arbitraryOf(root, { ...resolved, type }, name, ids, depth)));
  }
  const [type] = types;
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'number':
    case 'integer':
      return (formatOf(name, ids) as fc.Arbitrary<number> | undefined) ?? fc.integer({ min: 0, max: 1000 });
    case 'string':
      return formatOf(name, ids) ?? fc.string({ maxLength: 16 });
    case 'array': {
      const items = resolved.items as JsonSchema | undefined;
      const item = items === undefined ? fc.string() : arbitraryOf(root, items, name, ids, depth + 1);
      return fc.array(item, { maxLength: depth > 3 ? 0 : 3 });
    }
    default: {
      const properties = (resolved.properties ?? {}) as Record<string, JsonSchema>;
      const model = Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [key, arbitraryOf(root, value, key, ids, depth + 1)]),
      );
      const required = [...((resolved.required ?? []) as string[])];
      // An object's own id is kept whatever the type says (the SDK's pools and alert policies declare
      // it optional): issue 42 keeps refusing an answer without it, which cannot be addressed.
      if (depth === 0 && 'id' in properties && !required.includes('id')) required.push('id');
      const record = fc.record(model, { requiredKeys: required });
      const extra = resolved.additionalProperties;
      if (extra && typeof extra === 'object' && Object.keys(properties).length === 0) {
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), arbitraryOf(root, extra, '', ids, depth + 1), {
          maxKeys: 2,
        });
      }
      return record;
    }
  }
}

/** One answer of an operation: its HTTP status and body (`undefined` for none). */
export interface GeneratedAnswer {
  status: number;
  body: unknown;
}

/**
 * Arbitrary answers of `operation` from its response type: its result in the success envelope
 * (lists with `result_info` of one page, sometimes without `total_pages`, sometimes without
 * `result_info` at all), the whole body where the SDK does not unwrap it, or a 204.
 */
export function answersOf(
  operation: VendorOperation,
  schema: JsonSchema | undefined,
  ids: IdForm,
): fc.Arbitrary<GeneratedAnswer> {
  if (operation.answer === 'empty' || schema === undefined) return fc.constant({ status: 204, body: undefined });
  const value = arbitraryOf(schema, rootOf(schema), '', ids);
  const envelope = (result: unknown, extra: Record<string, unknown> = {}) => ({
    success: true,
    errors: [],
    messages: [],
    result,
    ...extra,
  });
  if (operation.answer === 'whole') return value.map((body) => ({ status: 200, body }));
  if (operation.answer === 'result') return value.map((result) => ({ status: 200, body: envelope(result) }));
  return fc
    .tuple(
      fc.array(value, { maxLength: 4 }),
      fc.constantFrom('whole' as const, 'without total_pages' as const, 'none' as const),
    )
    .map(([items, info]) => {
      const resultInfo = { page: 1, per_page: 100, count: items.length, total_count: items.length };
      const extra =
        info === 'none' ? {} : { result_info: info === 'whole' ? { ...resultInfo, total_pages: 1 } : resultInfo };
      return { status: 200, body: envelope(items, extra) };
    });
}
