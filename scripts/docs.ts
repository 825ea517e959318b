import * as fs from 'node:fs';
import * as path from 'node:path';
import { idForm } from '../provider/plugin/ids';
import { PLUGIN_RESOURCES } from '../provider/plugin/resources';
import { PACK_POLICIES } from '../provider/pack/policies';
import { policyHelp } from '../provider/review/policy-help';
import { SETTINGS, type SettingName } from '../provider/settings';
import type { PackageSchema, SchemaObject, SchemaProperty } from './schema';

/**
 * `npm run docs`: the reference pages generated from what the code says, as Terraform's
 * `tfplugindocs` and Pulumi's registry do it.
 *
 * - `docs/resources/<Resource>.md`, one page per resource of the provider plugin's schema
 *   (`dist/plugin/schema.json`, which `npm run build` writes with scripts/schema.ts): its
 *   description, its inputs (type, required or default, whether a change replaces the resource)
 *   and outputs, its nested types, its import id (the plugin's resource table), and an example in
 *   TypeScript, YAML and Go taken from `examples/resources/<Resource>/` (`index.ts`,
 *   `Pulumi.yaml`, `main.go`), which the tests check against the package and the schema.
 * - Generated sections inside hand-written pages, between `<!-- generated: NAME -->` and
 *   `<!-- end generated: NAME -->`: the settings table of `provider/settings.ts` in
 *   docs/configuration.md, the import ids in docs/guides/adopting.md, the pack's policies in
 *   docs/guides/reviewing.md (`provider/review/policy-help.ts`), and the CI workflows of
 *   examples/ci/ in the guides that show them.
 *
 * The pages read the schema, not the runtimes' zod schemas, so that they say what every SDK and
 * `pulumi package get-schema` say. tests/unit/docs.test.ts regenerates everything in memory and
 * fails when a checked-in page differs.
 */

/** The repository, found by the package's own name, so from the sources as from `dist/`. */
export const ROOT = path.dirname(require.resolve('pulumi-edgeguard/package.json'));

/** Where the pages and the examples they show are, from the repository root. */
export const RESOURCE_PAGES = path.join('docs', 'resources');
export const RESOURCE_EXAMPLES = path.join('examples', 'resources');

/** The files of a resource's example, in the order the page shows them, with their code block's language. */
export const EXAMPLE_FILES = [
  { file: 'index.ts', title: 'TypeScript', fence: 'ts' },
  { file: 'Pulumi.yaml', title: 'YAML', fence: 'yaml' },
  { file: 'main.go', title: 'Go', fence: 'go' },
] as const;

/** The resource's name in its token: `edgeguard:index:CspPolicy` -> `CspPolicy`. */
export function resourceName(token: string): string {
  return token.split(':').at(-1)!;
}

/** Text for a Markdown table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

/** `text` with its first letter in upper case. */
function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A property's type as the page shows it; a nested type links to its section on the page. */
function typeText(property: SchemaProperty): string {
  if (property.$ref !== undefined) {
    const name = resourceName(property.$ref);
    return `[${name}](#${name.toLowerCase()})`;
  }
  if (property.type === 'array') return `list of ${property.items ? typeText(property.items) : 'any'}`;
  if (property.type === 'object')
    return `map of ${property.additionalProperties ? typeText(property.additionalProperties) : 'any'}`;
  return property.type ?? 'any';
}

/**
 * Whether a change of the input replaces the resource, by either of the schema's flags: Pulumi's
 * schema names `willReplaceOnChanges` on inputs and `replaceOnChanges` on properties, and
 * scripts/schema.ts writes the latter on both.
 */
function replaces(resource: SchemaObject, name: string): boolean {
  const input: (SchemaProperty & { willReplaceOnChanges?: boolean }) | undefined = resource.inputProperties?.[name];
  return Boolean(input?.replaceOnChanges || input?.willReplaceOnChanges || resource.properties[name]?.replaceOnChanges);
}

/** A property's default as the page shows it: its JSON, as code. */
function defaultText(property: SchemaProperty): string {
  return property.default === undefined ? '' : `\`${JSON.stringify(property.default)}\``;
}

/** The inputs of `object` as a table: type, required, default, whether a change replaces, description. */
function inputTable(object: SchemaObject, inputs: Record<string, SchemaProperty>, required: string[]): string[] {
  const rows = Object.entries(inputs).map(
    ([name, property]) =>
      `| \`${name}\` | ${typeText(property)} | ${required.includes(name) ? 'yes' : ''} | ${defaultText(property)} | ${replaces(object, name) ? 'yes' : ''} | ${cell(property.description ?? '')} |`,
  );
  return [
    '| input | type | required | default | replaces | description |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ];
}

/** The outputs of a resource as a table. */
function outputTable(outputs: Record<string, SchemaProperty>): string[] {
  const rows = Object.entries(outputs).map(
    ([name, property]) => `| \`${name}\` | ${typeText(property)} | ${cell(property.description ?? '')} |`,
  );
  return ['| output | type | description |', '| --- | --- | --- |', ...rows];
}

/** The nested types `properties` name, by token, in the order they are named. */
function nestedTypes(properties: Record<string, SchemaProperty>): string[] {
  const refs = Object.values(properties).flatMap((property) =>
    [property, property.items, property.additionalProperties].flatMap((p) => (p?.$ref ? [p.$ref] : [])),
  );
  return [...new Set(refs.map((ref) => ref.replace(/^#\/types\//, '')))];
}

/** The nested type `type` of the resource `token`, or an error naming both when the schema lacks it. */
function nestedType(schema: PackageSchema, token: string, type: string): PackageSchema['types'][string] {
  const nested = schema.types[type];
  if (nested === undefined) throw new Error(`${token} names the type ${type}, which the schema does not define`);
  return nested;
}

/** A resource's example files, read from `examples/resources/<Resource>/`; a missing one is an error naming it. */
export function readExamples(root: string, resource: string): Record<(typeof EXAMPLE_FILES)[number]['file'], string> {
  const examples = {} as Record<(typeof EXAMPLE_FILES)[number]['file'], string>;
  for (const { file } of EXAMPLE_FILES) {
    const where = path.join(RESOURCE_EXAMPLES, resource, file);
    if (!fs.existsSync(path.join(root, where)))
      throw new Error(`${where} is missing: every resource's page shows an example in TypeScript, YAML and Go`);
    examples[file] = fs.readFileSync(path.join(root, where), 'utf8');
  }
  return examples;
}

/** The import section of a resource: its id form in the plugin, or why it cannot be imported. */
function importSection(token: string): string[] {
  const entry = PLUGIN_RESOURCES.get(token);
  if (entry === undefined) throw new Error(`${token} is in the schema but not in the plugin's resource table`);
  const name = resourceName(token);
  if (entry.noImport !== undefined)
    return [`\`pulumi import\` refuses it, and so does the \`import\` resource option: ${entry.noImport}.`];
  const form = idForm(entry);
  return [
    `In the provider plugin a ${name}'s id, and its import id, is \`${form}\`:`,
    '',
    '```sh',
    `pulumi import ${token} <name> ${form}`,
    '```',
    '',
    `or the \`import\` resource option. Declare the object as it is on the service, and the preview after the import shows no change ([what to declare](../guides/adopting.md#what-to-declare-when-importing)). The dynamic resources cannot be imported: they adopt instead ([adopting](../guides/adopting.md#adopting-with-adoptid)).`,
  ];
}

/** The reference page of the resource `token`, from the schema and its examples. */
export function resourcePage(
  schema: PackageSchema,
  token: string,
  examples: Record<(typeof EXAMPLE_FILES)[number]['file'], string>,
): string {
  const resource = schema.resources[token];
  if (resource === undefined) throw new Error(`no resource ${token} in the schema`);
  const name = resourceName(token);
  const lines = [
    `<!-- Generated by scripts/docs.ts from the provider's schema and ${RESOURCE_EXAMPLES}/${name}/: edit the resource's runtime or the examples, then run \`npm run docs\`. -->`,
    '',
    `# ${name}`,
    '',
    `\`${token}\` in the provider plugin (\`edgeguard:${name}\` in YAML); \`${name}\` of \`pulumi-edgeguard\` in TypeScript, a dynamic resource unless given a \`Provider\` ([which to choose](../guides/provider-plugin.md#when-to-choose-which)).`,
    '',
    resource.description?.trim() ?? '',
    '',
    '## Example',
    '',
  ];
  for (const { file, title, fence } of EXAMPLE_FILES)
    lines.push(`### ${title}`, '', `\`\`\`${fence}`, examples[file].trimEnd(), '```', '');
  lines.push(
    '## Inputs',
    '',
    ...inputTable(resource, resource.inputProperties ?? {}, resource.requiredInputs ?? []),
    '',
  );
  const inputTypes = nestedTypes(resource.inputProperties ?? {});
  for (const type of inputTypes) {
    const nested = nestedType(schema, token, type);
    lines.push(`### ${resourceName(type)}`, '');
    if (nested.description) lines.push(nested.description.trim(), '');
    lines.push(...inputTable(nested, nested.properties, nested.required ?? []), '');
  }
  lines.push('## Outputs', '', ...outputTable(resource.properties), '');
  // A type only the outputs name (ScriptInventory's `detected`) has fields no program sets: an output table.
  for (const type of nestedTypes(resource.properties).filter((name) => !inputTypes.includes(name))) {
    const nested = nestedType(schema, token, type);
    lines.push(`### ${resourceName(type)}`, '');
    if (nested.description) lines.push(nested.description.trim(), '');
    lines.push(...outputTable(nested.properties), '');
  }
  lines.push('## Import', '', ...importSection(token), '');
  return lines.join('\n');
}

/** The settings table of `provider/settings.ts` as Markdown. */
export function settingsTable(): string {
  const rows = (Object.keys(SETTINGS) as SettingName[]).map((name) => {
    const spec: { key: string; env: string; about: string; secret?: true; fallback?: string | number } = SETTINGS[name];
    const fallback = spec.fallback === undefined ? '' : `\`${String(spec.fallback)}\``;
    return `| \`${spec.key}\` | \`edgeguard:${spec.key}\` | \`${spec.env}\` | ${fallback} | ${spec.secret ? 'yes' : ''} | ${cell(capitalized(spec.about))} |`;
  });
  return [
    '| setting | stack config | environment | default | secret | meaning |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** The plugin's id of each resource, which is also its import id, linking to the resource's page. */
export function importIdTable(): string {
  const rows = [...PLUGIN_RESOURCES.values()]
    .sort((a, b) => a.runtime.resource.localeCompare(b.runtime.resource))
    .map((entry) => {
      const name = entry.runtime.resource;
      const id = `\`${idForm(entry)}\`${entry.noImport !== undefined ? ' (not importable)' : ''}`;
      return `| [${name}](../resources/${name}.md#import) | ${id} |`;
    });
  return ['| resource | id |', '| --- | --- |', ...rows].join('\n');
}

/** The pack's policies, their default enforcement level and what each reports (`provider/review/policy-help.ts`, which the SARIF's help also reads). */
function policiesTable(): string {
  const rows = PACK_POLICIES.map(
    (policy) =>
      `| \`${policy.name}\` | ${policy.enforcementLevel ?? 'advisory'} | ${policyHelp(policy.name).reports} |`,
  );
  return ['| policy | default | reports |', '|---|---|---|', ...rows].join('\n');
}

/** The CI workflows a team copies as they are, which the guides show from their files. */
export const WORKFLOWS = path.join('examples', 'ci', 'github');

/** A workflow of {@link WORKFLOWS} as a guide shows it: where it is, then the file itself. */
function workflowSection(file: string): () => string {
  return () => {
    const text = fs.readFileSync(path.join(ROOT, WORKFLOWS, file), 'utf8');
    return `[\`${WORKFLOWS}/${file}\`](../../${WORKFLOWS}/${file}), to copy into \`.github/workflows/\`:\n\n\`\`\`yaml\n${text}\`\`\``;
  };
}

/** The generated sections of hand-written pages: the page, the section's name, its content. */
export const GENERATED_SECTIONS = [
  { page: path.join('docs', 'configuration.md'), name: 'settings', render: settingsTable },
  { page: path.join('docs', 'guides', 'adopting.md'), name: 'import-ids', render: importIdTable },
  { page: path.join('docs', 'guides', 'reviewing.md'), name: 'policies', render: policiesTable },
  {
    page: path.join('docs', 'guides', 'reviewing.md'),
    name: 'workflow-pull-request',
    render: workflowSection('pull-request.yml'),
  },
  {
    page: path.join('docs', 'guides', 'reviewing.md'),
    name: 'workflow-nightly-drift',
    render: workflowSection('nightly-drift.yml'),
  },
  {
    page: path.join('docs', 'guides', 'payment-pages.md'),
    name: 'workflow-nightly-drift',
    render: workflowSection('nightly-drift.yml'),
  },
  {
    page: path.join('docs', 'guides', 'payment-pages.md'),
    name: 'workflow-weekly-evidence',
    render: workflowSection('weekly-evidence.yml'),
  },
] as const;

/**
 * `page` with the section `name` replaced by `content`; an error when the page does not hold the
 * section's two markers exactly once.
 */
export function fillSection(page: string, name: string, content: string, where: string): string {
  const begin = `<!-- generated: ${name} (scripts/docs.ts; run \`npm run docs\`) -->`;
  const end = `<!-- end generated: ${name} -->`;
  const [before, rest, ...more] = page.split(begin);
  const [, after, ...moreEnds] = (rest ?? '').split(end);
  if (rest === undefined || after === undefined || more.length > 0 || moreEnds.length > 0)
    throw new Error(`${where} must hold the lines "${begin}" and "${end}" once each, around the generated ${name}`);
  return `${before}${begin}\n${content}\n${end}${after}`;
}

/**
 * Every generated page, by its path from `root`, as it should be now: the resource pages of
 * `schema` and the hand-written pages with their generated sections filled in.
 */
export function generatedPages(schema: PackageSchema, root: string = ROOT): Map<string, string> {
  const pages = new Map<string, string>();
  for (const token of Object.keys(schema.resources)) {
    const name = resourceName(token);
    pages.set(path.join(RESOURCE_PAGES, `${name}.md`), resourcePage(schema, token, readExamples(root, name)));
  }
  for (const { page, name, render } of GENERATED_SECTIONS) {
    const current = pages.get(page) ?? fs.readFileSync(path.join(root, page), 'utf8');
    pages.set(page, fillSection(current, name, render(), page));
  }
  return pages;
}

if (require.main === module) {
  if (process.argv.length > 2) {
    process.stderr.write(`docs: takes no arguments (got: ${process.argv.slice(2).join(' ')})\n`);
    process.exit(2);
  }
  const schemaFile = path.join(ROOT, 'dist', 'plugin', 'schema.json');
  const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8')) as PackageSchema;
  const pages = generatedPages(schema);
  // A resource no longer in the schema loses its page.
  fs.mkdirSync(path.join(ROOT, RESOURCE_PAGES), { recursive: true });
  for (const file of fs.readdirSync(path.join(ROOT, RESOURCE_PAGES), { withFileTypes: true }))
    if (file.isFile() && !pages.has(path.join(RESOURCE_PAGES, file.name)))
      fs.rmSync(path.join(ROOT, RESOURCE_PAGES, file.name));
  for (const [file, text] of pages) {
    fs.mkdirSync(path.dirname(path.join(ROOT, file)), { recursive: true });
    fs.writeFileSync(path.join(ROOT, file), text);
  }
  process.stdout.write(`wrote ${[...pages.keys()].join(', ')}\n`);
}
