import { z } from 'zod';

/**
 * A resource is described once, in its runtime: the zod schema of its inputs (what `check`
 * accepts) gives each input's type, whether it is required and its default, and its zod metadata
 * (`.meta({ ... })`, zod's global registry) what the input means and what a change of it does; the
 * runtime's `outputs` schema does the same for the outputs that are not inputs. Everything else is
 * derived from them: the resource class and its `Args` (provider/resources/, written by
 * scripts/resources.ts), the plugin's schema and so every SDK (scripts/schema.ts), and which
 * changes replace the resource in every diff (host.ts).
 */

declare module 'zod/v4/core' {
  /** The metadata an EdgeGuard input may carry besides zod's own `description` (see {@link InputMeta}). */
  interface GlobalMeta {
    replaces?: boolean;
    createOnly?: boolean;
    output?: string;
  }
}

/**
 * What an input says of itself, as zod metadata. Its documentation is the description followed by
 * what zod and this metadata say: required, its default or optional, and what a change does.
 */
const inputMetaSchema = z.strictObject({
  /** What the input means, in Markdown (paragraphs apart by a blank line, list items on lines of their own). */
  description: z.string().trim().min(1),
  /** A change replaces the resource, because the service cannot change it in place. */
  replaces: z.boolean().optional(),
  /** It matters only at create (`adoptId`): it is no output, and changing or removing it later is no change. */
  createOnly: z.boolean().optional(),
  /** What the output of the same name is, when the input's description does not say it (as the service stores it). */
  output: z.string().trim().min(1).optional(),
});

/** What an input says of itself (see `inputMetaSchema`). */
export type InputMeta = z.output<typeof inputMetaSchema>;

/** An output that is not an input says only what it is. */
const outputMetaSchema = z.strictObject({ description: z.string().trim().min(1) });

/** One input, or one field of an input that is an object, as its runtime describes it. */
export interface InputField {
  name: string;
  /** Its zod schema, as the inputs' schema holds it. */
  schema: z.ZodType;
  meta: InputMeta;
  /** A program must give it: it has no default and is not optional. */
  required: boolean;
  /** The value `check` gives it when it is left out, if any. */
  default?: unknown;
  /** The fields of an input that is an object, or a list of objects ({@link objectOf}). */
  fields?: InputField[];
}

/** One output that is not an input. */
export interface OutputField {
  name: string;
  schema: z.ZodType;
  description: string;
  /** The fields of an output that is an object, or a list of objects ({@link objectOf}), each described. */
  fields?: OutputField[];
}

/**
 * The object whose fields a field holds: the field itself when it is an object, its items when it
 * is a list of objects (`ScriptInventory`'s `scripts`); each becomes a nested type of its own.
 */
export function objectOf(schema: z.ZodType): z.ZodObject | undefined {
  // An optional list of objects (`ScriptInventory`'s `frames`) is one too.
  if (schema instanceof z.ZodOptional) return objectOf(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodObject) return schema;
  if (schema instanceof z.ZodArray && schema.element instanceof z.ZodObject) return schema.element;
  return undefined;
}

/** A shape whose metadata is read: `where` names it in errors, such as `CspPolicy.enabled`. */
function metaOf<S extends z.ZodType>(schema: z.ZodType, parser: S, where: string): z.output<S> {
  const parsed = parser.safeParse(z.globalRegistry.get(schema) ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'metadata'}: ${issue.message}`);
  throw new Error(`${where}: its zod metadata is not a description (${problems.join('; ')})`);
}

/** The fields of an object schema (zod types a shape it does not know as `any`). */
function shapeOf(object: z.ZodObject): Array<[string, z.ZodType]> {
  const shape: Record<string, z.ZodType> = object.shape;
  return Object.entries(shape);
}

function fieldsOf(object: z.ZodObject, where: string): InputField[] {
  return shapeOf(object).map(([name, schema]) => {
    const path = `${where}.${name}`;
    const nested = objectOf(schema);
    return {
      name,
      schema,
      meta: metaOf(schema, inputMetaSchema, path),
      required: !schema.safeParse(undefined).success,
      ...(schema instanceof z.ZodDefault ? { default: (schema.def as { defaultValue: unknown }).defaultValue } : {}),
      ...(nested !== undefined ? { fields: fieldsOf(nested, path) } : {}),
    };
  });
}

const describedInputs = new WeakMap<z.ZodObject, InputField[]>();

/** The inputs of `resource` as its schema `inputs` describes them, in the schema's order. */
export function inputFields(resource: string, inputs: z.ZodObject): InputField[] {
  let fields = describedInputs.get(inputs);
  if (fields === undefined) {
    fields = fieldsOf(inputs, resource);
    describedInputs.set(inputs, fields);
  }
  return fields;
}

/** The names of the inputs whose change replaces the resource. */
export function replacingInputs(resource: string, inputs: z.ZodObject): string[] {
  return inputFields(resource, inputs)
    .filter((field) => field.meta.replaces === true)
    .map((field) => field.name);
}

/** The outputs of `resource` that are not inputs, as its schema `outputs` describes them. */
export function outputFields(resource: string, outputs: z.ZodObject): OutputField[] {
  return shapeOf(outputs).map(([name, schema]) => {
    const nested = objectOf(schema);
    return {
      name,
      schema,
      description: markdown(metaOf(schema, outputMetaSchema, `${resource} output ${name}`).description),
      ...(nested !== undefined ? { fields: outputFields(`${resource} output ${name}`, nested) } : {}),
    };
  });
}

/**
 * A description as it is shown: each paragraph's lines joined into one (a description written over
 * several source lines), list items (`- `) kept on lines of their own, paragraphs apart by a blank line.
 */
export function markdown(text: string): string {
  return text
    .trim()
    .split(/\n\s*\n/)
    .map((paragraph) =>
      paragraph
        .split('\n')
        .map((line) => line.trim())
        .reduce<string[]>((lines, line) => {
          const last = lines.at(-1);
          return last === undefined || line.startsWith('- ')
            ? [...lines, line]
            : [...lines.slice(0, -1), `${last} ${line}`];
        }, [])
        .join('\n'),
    )
    .join('\n\n');
}

/**
 * The documentation of an input: its description, then whether it is required (or its default, or
 * optional) and what a change does, so that these are said the same way for every input and can
 * never disagree with what `check` and `diff` do.
 */
export function inputDoc(field: InputField): string {
  const presence = field.required
    ? 'Required'
    : field.default !== undefined
      ? `Default \`${JSON.stringify(field.default)}\``
      : 'Optional';
  const change = field.meta.createOnly
    ? 'it matters only at create, so changing or removing it later is no change'
    : field.meta.replaces
      ? 'a change replaces the resource'
      : 'a change updates in place';
  return `${markdown(field.meta.description)} ${presence}; ${change}.`;
}

/** The documentation of the output of an input: what the input is, or what its metadata says of the output. */
export function inputOutputDoc(field: InputField): string {
  return markdown(field.meta.output ?? field.meta.description);
}
