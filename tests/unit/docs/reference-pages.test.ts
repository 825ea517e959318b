import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import {
  EXAMPLE_FILES,
  GENERATED_SECTIONS,
  RESOURCE_EXAMPLES,
  RESOURCE_PAGES,
  fillSection,
  generatedPages,
  resourceName,
} from '../../../scripts/docs';
import { generateSchema, type SchemaObject } from '../../../scripts/schema';
import { REPO } from '../../helpers/repo';

/**
 * The reference pages are what `npm run docs` (scripts/docs.ts) writes from the plugin's schema
 * and the settings table today, and the examples they show name only what the schema has. The
 * schema is generated in memory, as `npm run build` writes it, so this needs no build.
 */

const { version } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
const schema = generateSchema(version);
const resources = Object.keys(schema.resources).map(resourceName);

test('every generated page is as `npm run docs` writes it now', () => {
  const pages = generatedPages(schema, REPO);
  expect([...pages.keys()].filter((page) => page.startsWith(RESOURCE_PAGES)).sort()).toEqual(
    resources.map((name) => path.join(RESOURCE_PAGES, `${name}.md`)).sort(),
  );
  const stale = [...pages].filter(([page, text]) => {
    const file = path.join(REPO, page);
    return !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text;
  });
  // The pages' names and what to do, rather than two long texts.
  if (stale.length > 0)
    throw new Error(
      `${stale.map(([page]) => page).join(', ')} differ from what the schema and the settings table give now: run \`npm run docs\``,
    );
  // No page of a resource the schema no longer has.
  expect(
    fs
      .readdirSync(path.join(REPO, RESOURCE_PAGES))
      .map((file) => path.join(RESOURCE_PAGES, file))
      .filter((page) => !pages.has(page)),
  ).toEqual([]);
});

test("the README's table of resources links every resource's page", () => {
  const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
  expect(resources.filter((name) => !readme.includes(`| [${name}](docs/resources/${name}.md) |`))).toEqual([]);
});

test('a page states what the schema says of each property', () => {
  const page = generatedPages(schema, REPO).get(path.join(RESOURCE_PAGES, 'CspPolicy.md'))!;
  expect(page).toMatch(/^# CspPolicy$/m);
  expect(page).toContain('| `zoneId` | string | yes |  | yes | The zone the policy belongs to');
  expect(page).toContain('| `enabled` | boolean |  | `true` |  | Whether the policy is in force.');
  expect(page).toContain('| `adoptId` | string |  |  |  | The id of an existing policy');
  expect(page).toContain('pulumi import edgeguard:index:CspPolicy <name> <zoneId>/<policyId>');
  expect(page).toMatch(/## Outputs[^]*\| `policyId` \| string \| The id the service gave the policy/);
  const hostname = generatedPages(schema, REPO).get(path.join(RESOURCE_PAGES, 'CustomHostname.md'))!;
  expect(hostname).toContain('| `ssl` | [CustomHostnameSsl](#customhostnamessl) | yes |');
  expect(hostname).toMatch(/### CustomHostnameSsl[^]*\| `certificateAuthority` \| string \| {2}\| `""` \|/);
  expect(hostname).toContain('| `verificationErrors` | list of string |');
  const migration = generatedPages(schema, REPO).get(path.join(RESOURCE_PAGES, 'PoolNotificationMigration.md'))!;
  expect(migration).toContain(
    '`pulumi import` refuses it, and so does the `import` resource option: a PoolNotificationMigration is an action',
  );
});

test("either of the schema's replace flags marks an input as replacing", () => {
  const withFlag = (flags: object): typeof schema => {
    const policy = schema.resources['edgeguard:index:CspPolicy']!;
    const description = { ...policy.inputProperties!.description!, ...flags };
    const changed: SchemaObject = { ...policy, inputProperties: { ...policy.inputProperties, description } };
    return { ...schema, resources: { ...schema.resources, 'edgeguard:index:CspPolicy': changed } };
  };
  for (const flags of [{ replaceOnChanges: true }, { willReplaceOnChanges: true }])
    expect(generatedPages(withFlag(flags), REPO).get(path.join(RESOURCE_PAGES, 'CspPolicy.md'))).toContain(
      '| `description` | string | yes |  | yes |',
    );
});

test('a generated section needs its two markers once each, and keeps the text around them', () => {
  const begin = '<!-- generated: settings (scripts/docs.ts; run `npm run docs`) -->';
  const end = '<!-- end generated: settings -->';
  expect(fillSection(`before\n${begin}\nold\n${end}\nafter`, 'settings', 'new', 'page.md')).toBe(
    `before\n${begin}\nnew\n${end}\nafter`,
  );
  expect(() => fillSection('no markers', 'settings', 'new', 'page.md')).toThrow(
    /page.md must hold the lines "<!-- generated: settings .*" and "<!-- end generated: settings -->" once each/,
  );
  expect(() => fillSection(`${begin}\n${end}\n${begin}\n${end}`, 'settings', 'new', 'page.md')).toThrow(/once each/);
  for (const { page, name } of GENERATED_SECTIONS)
    expect(fs.readFileSync(path.join(REPO, page), 'utf8')).toContain(`<!-- end generated: ${name} -->`);
});

describe.each(resources)('the example of %s', (name) => {
  const folder = path.join(REPO, RESOURCE_EXAMPLES, name);

  test('is there in TypeScript, YAML and Go, and declares the resource', () => {
    for (const { file } of EXAMPLE_FILES) expect(fs.existsSync(path.join(folder, file))).toBe(true);
    // The TypeScript is type-checked by `tsc` (tsconfig.json includes examples/), the Go by `go vet`
    // (tests/engine/examples/resource-examples-go.test.ts).
    expect(fs.readFileSync(path.join(folder, 'index.ts'), 'utf8')).toContain(`new edgeguard.${name}(`);
    expect(fs.readFileSync(path.join(folder, 'main.go'), 'utf8')).toContain(`edgeguard.New${name}(`);
  });

  test("in YAML names only the schema's types, inputs and outputs", () => {
    const program = parse(fs.readFileSync(path.join(folder, 'Pulumi.yaml'), 'utf8')) as {
      runtime: string;
      resources: Record<string, { type: string; properties?: Record<string, unknown> }>;
      outputs?: unknown;
    };
    expect(program.runtime).toBe('yaml');
    const declared = new Map<string, SchemaObject>();
    for (const [resource, { type, properties = {} }] of Object.entries(program.resources)) {
      // YAML takes the short token (`edgeguard:CspPolicy`) or the full one.
      const token = type.replace(/^edgeguard:(?!index:)/, 'edgeguard:index:');
      const spec = schema.resources[token];
      if (spec === undefined)
        throw new Error(`${name}/Pulumi.yaml: ${resource} has the type ${type}, not in the schema`);
      declared.set(resource, spec);
      const inputs = spec.inputProperties ?? {};
      expect({ resource, unknown: Object.keys(properties).filter((input) => !(input in inputs)) }).toEqual({
        resource,
        unknown: [],
      });
      expect({ resource, missing: (spec.requiredInputs ?? []).filter((input) => !(input in properties)) }).toEqual({
        resource,
        missing: [],
      });
      for (const [input, value] of Object.entries(properties)) {
        const ref = inputs[input]!.$ref;
        if (ref === undefined || typeof value !== 'object' || value === null) continue;
        const nested = schema.types[ref.replace('#/types/', '')]!;
        expect({ input, unknown: Object.keys(value).filter((field) => !(field in nested.properties)) }).toEqual({
          input,
          unknown: [],
        });
      }
    }
    expect([...declared.values()]).toContain(schema.resources[`edgeguard:index:${name}`]);
    // Every `${resource.output}` the program reads is an output of that resource.
    const text = JSON.stringify([program.resources, program.outputs ?? null]);
    for (const [, resource, output] of text.matchAll(/\$\{([\w-]+)\.(\w+)\}/g))
      expect({ resource, output, known: output! in (declared.get(resource!)?.properties ?? {}) }).toEqual({
        resource,
        output,
        known: true,
      });
  });
});
