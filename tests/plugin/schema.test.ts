import * as path from 'node:path';
import { z } from 'zod';
import {
  generateSchema,
  inputJsonSchema,
  propertyOfTypeNode,
  readResourceSource,
  resourceFile,
  typeNameOf,
  type ResourceSource,
  type SchemaProperty,
} from '../../scripts/schema';
import { PLUGIN_RESOURCES } from '../../provider/plugin/resources';
import type { ProviderArgs } from '../../provider/resources/provider';
import { resourceToken as token } from '../../provider/plugin/tokens';
import { SETTINGS, type SettingName } from '../../provider/settings';
import { RUNTIME_OF } from '../helpers/runtimes';

/**
 * Each resource is described three times over in code that must agree: the `Args` interface (what
 * a TypeScript program passes, with its TSDoc), the runtime's zod schema (what `check` accepts)
 * and the Pulumi schema generated from both (what the plugin and every SDK see). These tests read
 * the `Args` with the compiler API, the zod shape and the generated schema, and compare them
 * property by property: name, type, required, secret, replaceOnChanges.
 */

const REPO = path.resolve(__dirname, '..', '..');
const schema = generateSchema(REPO, '0.1.0');

/** A schema type with nothing but what the three descriptions share (no docs, defaults, replacement). */
function shape(property: SchemaProperty | undefined): unknown {
  if (!property) return undefined;
  if (property.$ref) return property.$ref;
  // The TypeScript side knows only `number`; zod and the schema say whether it is whole.
  const type = property.type === 'integer' ? 'number' : property.type;
  return {
    type,
    ...(property.items ? { items: shape(property.items) } : {}),
    ...(property.additionalProperties ? { additionalProperties: shape(property.additionalProperties) } : {}),
  };
}

function zodShapeKeys(schemaOf: z.ZodType): string[] {
  if (!(schemaOf instanceof z.ZodObject)) throw new Error('the inputs schema is not a zod object');
  return Object.keys(schemaOf.shape);
}

const cases = [...PLUGIN_RESOURCES.values()].map(({ runtime }) => ({
  resource: runtime.resource,
  runtime,
  source: readResourceSource(REPO, resourceFile(runtime.resource), runtime.resource),
}));

function argsTypes(source: ResourceSource, members: ResourceSource['args']): Record<string, unknown> {
  return Object.fromEntries(members.map((member) => [member.name, shape(propertyOfTypeNode(member.type, source))]));
}

describe.each(cases)('$resource', ({ resource, runtime, source }) => {
  const described = schema.resources[token(resource)]!;

  test('the Args fields, the zod shape and the schema inputs are the same properties', () => {
    const args = source.args.map((arg) => arg.name).sort();
    expect(zodShapeKeys(runtime.inputs).sort()).toEqual(args);
    expect(Object.keys(described.inputProperties!).sort()).toEqual(args);
  });

  test('the same inputs are required (not optional in Args, required by zod, requiredInputs)', () => {
    const required = source.args
      .filter((arg) => !arg.optional)
      .map((arg) => arg.name)
      .sort();
    expect([...(inputJsonSchema(runtime).required ?? [])].sort()).toEqual(required);
    expect([...described.requiredInputs!].sort()).toEqual(required);
  });

  test('each input has the same type in Args and in the schema', () => {
    const fromSchema = Object.fromEntries(
      Object.entries(described.inputProperties!).map(([name, property]) => [name, shape(property)]),
    );
    expect(fromSchema).toEqual(argsTypes(source, source.args));
  });

  test('the replacing inputs are the runtime’s replaceOnChanges, in the inputs and the outputs', () => {
    const replacing = (properties: Record<string, SchemaProperty>) =>
      Object.entries(properties)
        .filter(([, property]) => property.replaceOnChanges)
        .map(([name]) => name)
        .sort();
    expect(replacing(described.inputProperties!)).toEqual([...runtime.replaceOnChanges].sort());
    expect(replacing(described.properties)).toEqual(
      runtime.replaceOnChanges.filter((name) => name in described.properties).sort(),
    );
  });

  test('the Args documentation says which inputs replace the resource', () => {
    const saysReplace = source.args
      .filter((arg) => /\breplac(es|ing)\b|\breplace the\b/i.test(arg.doc) && !/\bno(t a)? replace/i.test(arg.doc))
      .map((arg) => arg.name)
      .sort();
    expect(saysReplace).toEqual([...runtime.replaceOnChanges].sort());
  });

  test('every input is documented, from its Args field', () => {
    for (const arg of source.args) {
      expect(arg.doc).not.toBe('');
      expect(described.inputProperties![arg.name]!.description).toBe(arg.doc);
    }
  });

  test('the outputs are the class’s declared members, with their types', () => {
    expect(Object.keys(described.properties)).toEqual(source.outputs.map((output) => output.name));
    const fromSchema = Object.fromEntries(
      Object.entries(described.properties).map(([name, property]) => [name, shape(property)]),
    );
    expect(fromSchema).toEqual(argsTypes(source, source.outputs));
  });

  test('no input or output of a resource is secret (none holds a credential)', () => {
    const secret = [...Object.values(described.inputProperties!), ...Object.values(described.properties)].filter(
      (property) => property.secret,
    );
    expect(secret).toEqual([]);
  });
});

test('a nested input (CustomHostname ssl) is one schema type, from its Args interface and the zod shape', () => {
  const source = cases.find((entry) => entry.resource === 'CustomHostname')!.source;
  const type = schema.types[token(typeNameOf('CustomHostnameSslArgs'))]!;
  const fields = source.interfaces.get('CustomHostnameSslArgs')!;
  expect(Object.keys(type.properties).sort()).toEqual(fields.map((field) => field.name).sort());
  expect([...type.required!].sort()).toEqual(
    fields
      .filter((field) => !field.optional)
      .map((field) => field.name)
      .sort(),
  );
  expect(Object.keys(schema.types)).toEqual([token('CustomHostnameSsl')]);
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

test('the package is edgeguard, with the given version and the six resources of the dynamic provider', () => {
  expect(schema.name).toBe('edgeguard');
  expect(schema.version).toBe('0.1.0');
  const dynamic = Object.keys(RUNTIME_OF).map((type) => type.replace('pulumi-nodejs:dynamic/edgeguard:', ''));
  expect(dynamic).toHaveLength(6);
  expect(Object.keys(schema.resources).sort()).toEqual(dynamic.map(token).sort());
});
