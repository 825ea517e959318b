import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { z } from 'zod';
import type { Runtime } from '../provider/runtime/contract';
import { SETTINGS, type SettingName } from '../provider/settings';
import { schemaLanguages } from '../provider/plugin/languages';
import { PLUGIN_RESOURCES } from '../provider/plugin/resources';
import { PACKAGE, resourceToken } from '../provider/plugin/tokens';

/**
 * The Pulumi package schema of `pulumi-resource-edgeguard`, generated at build time from what
 * already describes each resource once: the runtime's zod schema (the types, required-ness and
 * defaults of the inputs, as `check` accepts them), the TSDoc of its `Args` interface (each input's
 * documentation), its `replaceOnChanges`, and the resource class (the outputs, their types and
 * documentation). Nothing here restates a property, so the schema cannot drift from the code; a
 * test compares the three descriptions property by property (tests/plugin/schema.test.ts).
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

/** A documented member of an interface or class, as the TypeScript source declares it. */
export interface DeclaredMember {
  name: string;
  /** The TSDoc text, without its tags. */
  doc: string;
  /** Declared with `?`. */
  optional: boolean;
  /** The declared type, with `pulumi.Input<...>` and `pulumi.Output<...>` taken off. */
  type: ts.TypeNode;
}

/** The documented declarations of one `provider/resources/<name>.ts`. */
export interface ResourceSource {
  file: ts.SourceFile;
  /** The class's TSDoc. */
  classDoc: string;
  /** The `<Resource>Args` fields: the inputs. */
  args: DeclaredMember[];
  /** The class's `declare public readonly` members: the outputs. */
  outputs: DeclaredMember[];
  /** Every interface of the file, by name (nested input and output types). */
  interfaces: Map<string, DeclaredMember[]>;
}

/**
 * The TSDoc text of `node` as schema documentation (Markdown): lines wrapped in the source joined
 * into their paragraph, `{@link X}` as `X`.
 */
function nodeDoc(node: ts.Node): string {
  return ts
    .getJSDocCommentsAndTags(node)
    .filter(ts.isJSDoc)
    .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '')
    .join('\n\n')
    .replace(/\{@link\s+([^}\s]+)\s*\}/g, '`$1`')
    .replace(/([^\n])\n(?!\n)/g, '$1 ')
    .trim();
}

/** `pulumi.Input<T>` / `pulumi.Output<T>` -> `T`, repeatedly (`Input<Input<string>[]>`). */
function unwrapped(type: ts.TypeNode): ts.TypeNode {
  if (ts.isTypeReferenceNode(type) && type.typeArguments?.length === 1) {
    const name = type.typeName.getText();
    if (name === 'pulumi.Input' || name === 'pulumi.Output') return unwrapped(type.typeArguments[0]!);
  }
  if (ts.isArrayTypeNode(type)) return ts.factory.createArrayTypeNode(unwrapped(type.elementType));
  if (ts.isParenthesizedTypeNode(type)) return unwrapped(type.type);
  return type;
}

function member(node: ts.PropertySignature | ts.PropertyDeclaration): DeclaredMember {
  if (!node.type) throw new Error(`${node.name.getText()} has no declared type`);
  return {
    name: node.name.getText(),
    doc: nodeDoc(node),
    optional: node.questionToken !== undefined,
    type: unwrapped(node.type),
  };
}

/** Reads the class `resource` and its `Args` interface from `provider/resources/<fileName>.ts`. */
export function readResourceSource(root: string, fileName: string, resource: string): ResourceSource {
  const fullPath = path.join(root, 'provider', 'resources', `${fileName}.ts`);
  const file = ts.createSourceFile(fullPath, fs.readFileSync(fullPath, 'utf8'), ts.ScriptTarget.ES2023, true);
  const interfaces = new Map<string, DeclaredMember[]>();
  let classDoc: string | undefined;
  let outputs: DeclaredMember[] = [];
  for (const statement of file.statements) {
    if (ts.isInterfaceDeclaration(statement))
      interfaces.set(statement.name.text, statement.members.filter(ts.isPropertySignature).map(member));
    if (ts.isClassDeclaration(statement) && statement.name?.text === resource) {
      classDoc = nodeDoc(statement);
      outputs = statement.members
        .filter(ts.isPropertyDeclaration)
        .filter((node) => node.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.DeclareKeyword))
        .map(member);
    }
  }
  const args = interfaces.get(`${resource}Args`);
  if (classDoc === undefined || args === undefined)
    throw new Error(`${fullPath} must declare the class ${resource} and the interface ${resource}Args`);
  return { file, classDoc, args, outputs, interfaces };
}

/** The name of the schema type of a nested interface: `CustomHostnameSslArgs` and `CustomHostnameSslOutput` are `CustomHostnameSsl`. */
export function typeNameOf(interfaceName: string): string {
  return interfaceName.replace(/(Args|Output)$/, '');
}

/**
 * A declared TypeScript type as a schema property: strings and string literal unions are
 * `string`, numbers `number`, arrays and `Record<string, T>` as such, and an interface of the same
 * file a `$ref` to its type.
 */
export function propertyOfTypeNode(type: ts.TypeNode, source: ResourceSource): SchemaProperty {
  const node = unwrapped(type);
  if (node.kind === ts.SyntaxKind.StringKeyword) return { type: 'string' };
  if (node.kind === ts.SyntaxKind.NumberKeyword) return { type: 'number' };
  if (node.kind === ts.SyntaxKind.BooleanKeyword) return { type: 'boolean' };
  if (ts.isLiteralTypeNode(node) && ts.isStringLiteral(node.literal)) return { type: 'string' };
  if (ts.isUnionTypeNode(node)) {
    const kinds = node.types.map((part) => propertyOfTypeNode(part, source));
    if (kinds.every((kind) => kind.type === 'string')) return { type: 'string' };
  }
  if (ts.isArrayTypeNode(node)) return { type: 'array', items: propertyOfTypeNode(node.elementType, source) };
  if (ts.isTypeReferenceNode(node)) {
    const name = node.typeName.getText();
    const [first, second] = node.typeArguments ?? [];
    if (name === 'Array' && first) return { type: 'array', items: propertyOfTypeNode(first, source) };
    if (name === 'Record' && first?.kind === ts.SyntaxKind.StringKeyword && second)
      return { type: 'object', additionalProperties: propertyOfTypeNode(second, source) };
    if (source.interfaces.has(name)) return { $ref: `#/types/${resourceToken(typeNameOf(name))}` };
  }
  throw new Error(`${source.file.fileName}: no schema type for a ${ts.SyntaxKind[node.kind]}`);
}

type JsonSchema = {
  type?: string;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
};

/** What the schema of an input holds besides its type: its documentation, default and replacement. */
interface InputExtras {
  doc: string;
  replaceOnChanges: boolean;
}

/**
 * The runtime's zod schema of the inputs as JSON Schema, input side: what a program may pass
 * (a field with a default is optional there).
 */
export function inputJsonSchema(runtime: Pick<Runtime<object, object>, 'inputs' | 'resource'>): JsonSchema {
  const schema = z.toJSONSchema(runtime.inputs, { io: 'input' }) as JsonSchema;
  if (schema.type !== 'object' || !schema.properties)
    throw new Error(`${runtime.resource}: its inputs schema is not an object`);
  return schema;
}

/**
 * One input as a schema property. A nested object becomes the type named after its `Args`
 * interface, which `types` (given) receives, its fields documented by that interface.
 */
function inputProperty(
  json: JsonSchema,
  extras: InputExtras,
  declared: DeclaredMember | undefined,
  source: ResourceSource,
  types: PackageSchema['types'],
): SchemaProperty {
  const property: SchemaProperty = { ...typeOfJson(json, declared, source, types) };
  if (extras.doc) property.description = extras.doc;
  if (json.default !== undefined) property.default = json.default;
  if (extras.replaceOnChanges) property.replaceOnChanges = true;
  return property;
}

function typeOfJson(
  json: JsonSchema,
  declared: DeclaredMember | undefined,
  source: ResourceSource,
  types: PackageSchema['types'],
): SchemaProperty {
  switch (json.type) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return { type: json.type };
    case 'array':
      if (!json.items) throw new Error(`${source.file.fileName}: an array input without items`);
      return { type: 'array', items: typeOfJson(json.items, undefined, source, types) };
    case 'object': {
      const reference = declared && ts.isTypeReferenceNode(declared.type) ? declared.type.typeName.getText() : '';
      const fields = source.interfaces.get(reference);
      if (!fields || !json.properties)
        throw new Error(
          `${source.file.fileName}: the object input ${declared?.name ?? '?'} needs an interface of its own`,
        );
      const name = typeNameOf(reference);
      const properties: Record<string, SchemaProperty> = {};
      for (const [key, value] of Object.entries(json.properties)) {
        const field = fields.find((candidate) => candidate.name === key);
        properties[key] = inputProperty(
          value,
          { doc: field?.doc ?? '', replaceOnChanges: false },
          field,
          source,
          types,
        );
      }
      const doc = interfaceDoc(reference, source);
      types[resourceToken(name)] = {
        type: 'object',
        ...(doc ? { description: doc } : {}),
        properties,
        required: json.required ?? [],
      };
      return { $ref: `#/types/${resourceToken(name)}` };
    }
    default:
      throw new Error(`${source.file.fileName}: no schema type for ${JSON.stringify(json)}`);
  }
}

function interfaceDoc(interfaceName: string, source: ResourceSource): string {
  const declaration = source.file.statements.find(
    (statement): statement is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(statement) && statement.name.text === interfaceName,
  );
  return declaration ? nodeDoc(declaration) : '';
}

/** The file a resource's class and `Args` are declared in: `CspPolicy` in `provider/resources/csp-policy.ts`. */
export function resourceFile(resource: string): string {
  return resource.replace(/(?<=[a-z])(?=[A-Z])/g, '-').toLowerCase();
}

/** One resource of the schema: its inputs from the runtime, their docs from `Args`, its outputs from the class. */
export function resourceSchema(
  runtime: Runtime<object, object>,
  source: ResourceSource,
  types: PackageSchema['types'],
): SchemaObject {
  const json = inputJsonSchema(runtime);
  const replacing = new Set<string>(runtime.replaceOnChanges);
  const inputProperties: Record<string, SchemaProperty> = {};
  for (const [name, value] of Object.entries(json.properties!)) {
    const declared = source.args.find((arg) => arg.name === name);
    inputProperties[name] = inputProperty(
      value,
      { doc: declared?.doc ?? '', replaceOnChanges: replacing.has(name) },
      declared,
      source,
      types,
    );
  }
  const properties: Record<string, SchemaProperty> = {};
  for (const output of source.outputs) {
    const input = inputProperties[output.name];
    const doc = output.doc || input?.description || '';
    const typed = input ? { ...input } : propertyOfTypeNode(output.type, source);
    delete typed.default;
    delete typed.description;
    properties[output.name] = { ...typed, ...(doc ? { description: doc } : {}) };
  }
  return {
    description: source.classDoc,
    properties,
    required: source.outputs.filter((output) => !output.optional).map((output) => output.name),
    inputProperties,
    requiredInputs: json.required ?? [],
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

/** The package schema of `version`, from the runtimes and the sources under `root`. */
export function generateSchema(root: string, version: string): PackageSchema {
  const settings: Record<string, SchemaProperty> = {};
  for (const name of Object.keys(SETTINGS) as SettingName[]) settings[SETTINGS[name].key] = settingProperty(name);
  const types: PackageSchema['types'] = {};
  const resources: PackageSchema['resources'] = {};
  for (const [token, { runtime }] of PLUGIN_RESOURCES)
    resources[token] = resourceSchema(
      runtime,
      readResourceSource(root, resourceFile(runtime.resource), runtime.resource),
      types,
    );
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
  fs.writeFileSync(target, `${JSON.stringify(generateSchema(root, version), null, 2)}\n`);
}
