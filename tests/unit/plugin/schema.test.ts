import { z } from 'zod';
import { generateSchema, type SchemaProperty } from '../../../scripts/schema';
import { PLUGIN_RESOURCES } from '../../../provider/plugin/resources';
import type { ProviderArgs } from '../../../provider/resources/provider';
import { resourceToken as token } from '../../../provider/plugin/tokens';
import { SETTINGS, type SettingName } from '../../../provider/settings';
import { RUNTIME_OF } from '../../helpers/runtimes';

/**
 * The plugin's schema is generated from each runtime's description (provider/runtime/describe.ts),
 * and what it says must be what the runtime does. These tests read the runtime's zod schemas
 * straight (zod's JSON Schema, zod's registry of metadata), not through the generator's reader,
 * and compare them with the generated schema property by property: names, required-ness,
 * defaults, replaceOnChanges, the outputs, and the documentation that says the same.
 */

const schema = generateSchema('0.1.0');

const cases = [...PLUGIN_RESOURCES.values()].map(({ runtime }) => ({ resource: runtime.resource, runtime }));

/** zod's own metadata of each field of `shape`. */
function metadata(shape: z.ZodObject): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(shape.shape).map(([name, field]) => [name, { ...z.globalRegistry.get(field) }]),
  );
}

/** A text with its line breaks and indentation as single spaces. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function names(properties: Record<string, SchemaProperty>, keep: (property: SchemaProperty) => boolean): string[] {
  return Object.entries(properties)
    .filter(([, property]) => keep(property))
    .map(([name]) => name)
    .sort();
}

describe.each(cases)('$resource', ({ resource, runtime }) => {
  const described = schema.resources[token(resource)]!;
  const inputs = metadata(runtime.inputs);
  const json = z.toJSONSchema(runtime.inputs, { io: 'input' }) as {
    properties: Record<string, { default?: unknown }>;
    required?: string[];
  };

  test('the inputs are the zod shape, required as zod requires them', () => {
    expect(Object.keys(described.inputProperties!)).toEqual(Object.keys(runtime.inputs.shape));
    expect([...described.requiredInputs!].sort()).toEqual([...(json.required ?? [])].sort());
  });

  test('the replacing inputs are those whose metadata says so, in the inputs and the outputs', () => {
    const replacing = Object.keys(inputs)
      .filter((name) => inputs[name]!.replaces === true)
      .sort();
    expect(replacing.length).toBeGreaterThan(0);
    expect(names(described.inputProperties!, (property) => property.replaceOnChanges === true)).toEqual(replacing);
    expect(names(described.properties, (property) => property.replaceOnChanges === true)).toEqual(replacing);
  });

  test('the defaults are zod’s, where the schema can hold one (a string, number or boolean)', () => {
    const defaults = Object.fromEntries(
      Object.entries(json.properties)
        .filter(([, property]) => property.default !== undefined)
        .map(([name, property]) => [name, property.default]),
    );
    const inSchema = Object.fromEntries(
      Object.entries(described.inputProperties!)
        .filter(([, property]) => property.default !== undefined)
        .map(([name, property]) => [name, property.default]),
    );
    expect(inSchema).toEqual(defaults);
  });

  test('every input is documented from its metadata, ending with what is required and what a change does', () => {
    for (const [name, property] of Object.entries(described.inputProperties!)) {
      const meta = inputs[name]!;
      expect(property.description!.startsWith(oneLine(String(meta.description)))).toBe(true);
      const presence = described.requiredInputs!.includes(name)
        ? 'Required'
        : runtime.inputs.shape[name]!.safeParse(undefined).data !== undefined
          ? 'Default `[^`]+`'
          : 'Optional';
      const change = meta.createOnly
        ? 'it matters only at create, so changing or removing it later is no change'
        : meta.replaces
          ? 'a change replaces the resource'
          : 'a change updates in place';
      expect(property.description).toMatch(new RegExp(` ${presence}; ${change}\\.$`));
    }
  });

  test('the outputs are every input but the create-only ones, then the runtime’s outputs, all documented and set', () => {
    const fromInputs = Object.keys(inputs).filter((name) => inputs[name]!.createOnly !== true);
    expect(Object.keys(described.properties)).toEqual([...fromInputs, ...Object.keys(runtime.outputs.shape)]);
    expect(described.required).toEqual(Object.keys(described.properties));
    for (const property of Object.values(described.properties)) expect(property.description).toMatch(/\S/);
    for (const property of Object.values(described.properties)) expect(property.default).toBeUndefined();
  });

  test('the resource is documented from the runtime’s description', () => {
    expect(oneLine(described.description!)).toBe(oneLine(runtime.description));
  });

  test('no input or output of a resource is secret (none holds a credential)', () => {
    const secret = [...Object.values(described.inputProperties!), ...Object.values(described.properties)].filter(
      (property) => property.secret,
    );
    expect(secret).toEqual([]);
  });
});

test('a nested input (CustomHostname ssl) is one schema type, from the nested zod object', () => {
  const runtime = cases.find((entry) => entry.resource === 'CustomHostname')!.runtime;
  const ssl = runtime.inputs.shape.ssl as z.ZodObject;
  const type = schema.types[token('CustomHostnameSsl')]!;
  expect(Object.keys(type.properties)).toEqual(Object.keys(ssl.shape));
  expect(type.required).toEqual((z.toJSONSchema(ssl, { io: 'input' }) as { required: string[] }).required);
  expect(type.properties.certificateAuthority!.default).toBe('');
  expect(schema.resources[token('CustomHostname')]!.inputProperties!.ssl!.$ref).toBe(
    `#/types/${token('CustomHostnameSsl')}`,
  );
});

test('a list of objects, input or output (ScriptInventory scripts, detected), is one schema type for its items', () => {
  const runtime = cases.find((entry) => entry.resource === 'ScriptInventory')!.runtime;
  const entry = (runtime.inputs.shape.scripts as z.ZodArray<z.ZodObject>).element;
  const scripts = schema.types[token('ScriptInventoryScript')]!;
  expect(Object.keys(scripts.properties)).toEqual(Object.keys(entry.shape));
  expect(scripts.required).toEqual(['justification']);
  expect(schema.resources[token('ScriptInventory')]!.inputProperties!.scripts).toMatchObject({
    type: 'array',
    items: { $ref: `#/types/${token('ScriptInventoryScript')}` },
  });
  const detected = (runtime.outputs.shape.detected as z.ZodArray<z.ZodObject>).element;
  const type = schema.types[token('ScriptInventoryDetected')]!;
  expect(Object.keys(type.properties)).toEqual(Object.keys(detected.shape));
  expect(type.required).toEqual(['url', 'id', 'integrity', 'pages']);
  expect(schema.resources[token('ScriptInventory')]!.properties.detected!.items!.$ref).toBe(
    `#/types/${token('ScriptInventoryDetected')}`,
  );
  // An optional list of objects (`frames`) is a type of its own too, named in the singular.
  expect(schema.resources[token('ScriptInventory')]!.inputProperties!.frames).toMatchObject({
    type: 'array',
    items: { $ref: `#/types/${token('ScriptInventoryFrame')}` },
  });
  expect(Object.keys(schema.types).sort()).toEqual(
    ['CustomHostnameSsl', 'ScriptInventoryDetected', 'ScriptInventoryFrame', 'ScriptInventoryScript'].map(token),
  );
});

test('whole numbers are integers, in the inputs and the outputs', () => {
  const migration = schema.resources[token('PoolNotificationMigration')]!;
  expect(migration.inputProperties!.perPage!.type).toBe('integer');
  expect(migration.properties.poolsSeen!.type).toBe('integer');
  expect(migration.properties.removedEmails).toMatchObject({
    type: 'object',
    additionalProperties: { type: 'string' },
  });
});

test('the provider configuration is the settings table: every key, its about text, the credentials secret', () => {
  const names = Object.keys(SETTINGS) as SettingName[];
  for (const properties of [schema.config.variables, schema.provider.inputProperties!, schema.provider.properties]) {
    expect(Object.keys(properties).sort()).toEqual(names.map((name) => SETTINGS[name].key).sort());
    for (const name of names) {
      const spec: { key: string; about: string; env: string; secret?: true } = SETTINGS[name];
      const property = properties[spec.key]!;
      expect(property.description!.toLowerCase()).toContain(spec.about.toLowerCase());
      expect(property.description).toContain(spec.env);
      expect(property.secret === true).toBe(spec.secret === true);
    }
  }
  expect(schema.config.variables.apiToken!.secret).toBe(true);
  expect(schema.config.variables.apiKey!.secret).toBe(true);
});

/** `true` when `A` and `B` are the same set of names, else `false`. */
type SameNames<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

test("the TypeScript Provider's arguments are the settings table's keys (checked by tsc, which npm test runs first)", () => {
  // A setting added to the table but not to ProviderArgs (or the other way) makes this `false`: a compile error.
  const same: SameNames<keyof ProviderArgs, SettingName> = true;
  expect(same).toBe(true);
});

test('the package is edgeguard, with the given version and the seven resources of the dynamic provider', () => {
  expect(schema.name).toBe('edgeguard');
  expect(schema.version).toBe('0.1.0');
  const dynamic = Object.keys(RUNTIME_OF).map((type) => type.replace('pulumi-nodejs:dynamic/edgeguard:', ''));
  expect(dynamic).toHaveLength(7);
  expect(Object.keys(schema.resources).sort()).toEqual(dynamic.map(token).sort());
});
