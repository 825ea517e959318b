import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { Runtime } from '../provider/runtime/contract';
import {
  inputDoc,
  inputFields,
  inputOutputDoc,
  markdown,
  outputFields,
  type InputField,
  type OutputField,
} from '../provider/runtime/describe';
import { SETTINGS, type SettingName } from '../provider/settings';
import { schemaLanguages } from '../provider/plugin/languages';
import { PLUGIN_RESOURCES } from '../provider/plugin/resources';
import { PACKAGE, resourceToken } from '../provider/plugin/tokens';

/**
 * The Pulumi package schema of `pulumi-resource-edgeguard`, generated at build time from the one
 * description of each resource, its runtime (provider/runtime/describe.ts): the zod schema of the
 * inputs gives their types, required-ness and defaults, its metadata their documentation and
 * `replaceOnChanges`; the `outputs` schema the other outputs; `description` the resource's. Nothing
 * here restates a property, so the schema cannot drift from the code.
 *
 * `npm run build` runs this module after `tsc` (scripts/build.sh); it writes
 * `dist/plugin/schema.json`, which the plugin answers GetSchema with (a file beside the compiled
 * server, or the single executable's asset `schema.json`).
 */

/** A property of the Pulumi schema (the subset this package uses). */
export interface SchemaProperty {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
  items?: SchemaProperty;
  additionalProperties?: SchemaProperty;
  $ref?: string;
  description?: string;
  default?: unknown;
  secret?: boolean;
  replaceOnChanges?: boolean;
}

/** An object type (a resource's inputs and outputs, a nested type, the provider's configuration). */
export interface SchemaObject {
  description?: string;
  properties: Record<string, SchemaProperty>;
  required?: string[];
  inputProperties?: Record<string, SchemaProperty>;
  requiredInputs?: string[];
}

/** The package schema as `pulumi package get-schema` prints it. */
export interface PackageSchema {
  name: string;
  displayName: string;
  version: string;
  description: string;
  keywords: string[];
  repository: string;
  license: string;
  publisher: string;
  config: { variables: Record<string, SchemaProperty> };
  provider: SchemaObject;
  resources: Record<string, SchemaObject>;
  types: Record<string, SchemaObject & { type: 'object' }>;
  /** What each language's SDK needs to be a real package, and where the plugin is downloaded from (`languages.ts`). */
  pluginDownloadURL: string;
  meta: object;
  language: object;
}

/** The part of zod's JSON Schema that the inputs and outputs use. */
export interface JsonSchema {
  type?: string;
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
}

/**
 * A zod schema as JSON Schema: the input side for an input (what a program may pass), the output
 * side for an output.
 */
export function jsonOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, { io }) as JsonSchema;
}

/**
 * The name of the type of an object input or output: `CustomHostname`'s `ssl` is
 * `CustomHostnameSsl`; the items of a list are named in the singular, as one of them is what the
 * type describes (`ScriptInventory`'s `scripts` hold `ScriptInventoryScript`s).
 */
export function nestedTypeName(resource: string, field: { name: string; schema: z.ZodType }): string {
  const schema = field.schema instanceof z.ZodOptional ? (field.schema.unwrap() as z.ZodType) : field.schema;
  const name = schema instanceof z.ZodArray ? field.name.replace(/s$/, '') : field.name;
  return `${resource}${name.charAt(0).toUpperCase()}${name.slice(1)}`;
}

/**
 * A JSON Schema type as a schema property's type. Strings of a fixed set stay strings (the SDKs
 * take any string, and `check` says which are allowed); an object input is its nested type.
 */
function typeOf(json: JsonSchema, where: string, nested?: string): SchemaProperty {
  switch (json.type) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return { type: json.type };
    case 'array':
      if (!json.items) throw new Error(`${where}: an array without items`);
      return { type: 'array', items: typeOf(json.items, `${where}[]`, nested) };
    case 'object':
      if (nested !== undefined) return { $ref: `#/types/${resourceToken(nested)}` };
      if (typeof json.additionalProperties === 'object')
        return { type: 'object', additionalProperties: typeOf(json.additionalProperties, `${where}{}`) };
      throw new Error(`${where}: an object that is neither an input with fields nor a record`);
    default:
      throw new Error(`${where}: no schema type for ${JSON.stringify(json)}`);
  }
}

/** The Pulumi schema's `default`: only a string, number or boolean can be one. */
function defaultOf(field: InputField): Pick<SchemaProperty, 'default'> {
  return ['string', 'number', 'boolean'].includes(typeof field.default) ? { default: field.default } : {};
}

/**
 * One input as a schema property, documented by {@link inputDoc}. An object input becomes its
 * nested type, which `types` (given) receives.
 */
function inputProperty(resource: string, field: InputField, types: PackageSchema['types']): SchemaProperty {
  const where = `${resource}.${field.name}`;
  const nested = field.fields ? nestedTypeName(resource, field) : undefined;
  if (nested !== undefined && field.fields) {
    types[resourceToken(nested)] = {
      type: 'object',
      description: markdown(field.meta.description),
      properties: Object.fromEntries(
        field.fields.map((sub) => [
          sub.name,
          {
            ...typeOf(jsonOf(sub.schema, 'input'), `${where}.${sub.name}`),
            description: inputDoc(sub),
            ...defaultOf(sub),
          },
        ]),
      ),
      required: field.fields.filter((sub) => sub.required).map((sub) => sub.name),
    };
  }
  return {
    ...typeOf(jsonOf(field.schema, 'input'), where, nested),
    description: inputDoc(field),
    ...defaultOf(field),
    ...(field.meta.replaces ? { replaceOnChanges: true } : {}),
  };
}

/**
 * One output that is not an input as a schema property. An object output, or a list of objects,
 * becomes its nested type, which `types` (given) receives; its fields are required unless optional.
 */
function outputProperty(resource: string, output: OutputField, types: PackageSchema['types']): SchemaProperty {
  const where = `${resource} output ${output.name}`;
  const nested = output.fields ? nestedTypeName(resource, output) : undefined;
  if (nested !== undefined && output.fields) {
    types[resourceToken(nested)] = {
      type: 'object',
      description: output.description,
      properties: Object.fromEntries(
        output.fields.map((sub) => [
          sub.name,
          { ...typeOf(jsonOf(sub.schema, 'output'), `${where}.${sub.name}`), description: sub.description },
        ]),
      ),
      required: output.fields.filter((sub) => !sub.schema.safeParse(undefined).success).map((sub) => sub.name),
    };
  }
  return { ...typeOf(jsonOf(output.schema, 'output'), where, nested), description: output.description };
}

/** One resource of the schema, from its runtime. */
export function resourceSchema(runtime: Runtime<object, object>, types: PackageSchema['types']): SchemaObject {
  const inputs = inputFields(runtime.resource, runtime.inputs);
  const inputProperties = Object.fromEntries(
    inputs.map((field) => [field.name, inputProperty(runtime.resource, field, types)]),
  );
  const properties: Record<string, SchemaProperty> = {};
  for (const field of inputs.filter((input) => !input.meta.createOnly)) {
    const { default: _default, description: _description, ...typed } = inputProperties[field.name]!;
    properties[field.name] = { ...typed, description: inputOutputDoc(field) };
  }
  for (const output of outputFields(runtime.resource, runtime.outputs))
    properties[output.name] = outputProperty(runtime.resource, output, types);
  return {
    description: markdown(runtime.description),
    properties,
    required: Object.keys(properties),
    inputProperties,
    requiredInputs: inputs.filter((field) => field.required).map((field) => field.name),
  };
}

/**
 * One setting of the table as a schema property: its `about` text and environment variable, its
 * default, secret for a credential. The numeric settings are integers; the rest text.
 */
export function settingProperty(name: SettingName): SchemaProperty {
  const spec: { env: string; about: string; secret?: true; fallback?: string | number } = SETTINGS[name];
  const about = spec.about.charAt(0).toUpperCase() + spec.about.slice(1);
  return {
    type: typeof spec.fallback === 'number' ? 'integer' : 'string',
    description: `${about}. Read from the environment variable \`${spec.env}\` when not set.`,
    ...(spec.fallback !== undefined ? { default: spec.fallback } : {}),
    ...(spec.secret ? { secret: true } : {}),
  };
}

/** The package schema of `version`, from the runtimes. */
export function generateSchema(version: string): PackageSchema {
  const settings: Record<string, SchemaProperty> = {};
  for (const name of Object.keys(SETTINGS) as SettingName[]) settings[SETTINGS[name].key] = settingProperty(name);
  const types: PackageSchema['types'] = {};
  const resources: PackageSchema['resources'] = {};
  for (const [token, { runtime }] of PLUGIN_RESOURCES) resources[token] = resourceSchema(runtime, types);
  return {
    name: PACKAGE,
    displayName: 'EdgeGuard',
    version,
    description:
      "Page security, CSP policies, custom hostnames and load-balancing health alerts of EdgeGuard's edge service, as code.",
    keywords: ['pulumi', 'edgeguard', 'csp', 'custom-hostnames', 'load-balancing', 'category/network', 'kind/native'],
    repository: 'https://github.com/edgeguard/pulumi-edgeguard',
    license: 'Apache-2.0',
    publisher: 'EdgeGuard',
    config: { variables: settings },
    provider: {
      description:
        'The EdgeGuard provider: the service address and the credentials of one account. Each explicit provider has its own settings, client and pacing; the default provider reads `edgeguard:<key>` from the stack configuration.',
      properties: settings,
      inputProperties: settings,
    },
    resources,
    types,
    ...schemaLanguages,
  };
}

/** Where a folder's repository root is: the nearest folder above it with a `package.json`. */
function repositoryRoot(from: string): string {
  let folder = from;
  while (!fs.existsSync(path.join(folder, 'package.json'))) {
    const parent = path.dirname(folder);
    if (parent === folder) throw new Error(`no package.json above ${from}`);
    folder = parent;
  }
  return folder;
}

if (require.main === module) {
  const root = repositoryRoot(__dirname);
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const target = path.join(root, 'dist', 'plugin', 'schema.json');
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, `${JSON.stringify(generateSchema(version), null, 2)}\n`);
}
