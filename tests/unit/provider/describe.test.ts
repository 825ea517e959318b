import { z } from 'zod';
import type { Runtime } from '../../../provider/runtime/contract';
import { inputDoc, inputFields, markdown, outputFields, replacingInputs } from '../../../provider/runtime/describe';
import { decideDiff } from '../../../provider/runtime/host';

/**
 * How a runtime's zod schemas describe a resource (provider/runtime/describe.ts), and the diff
 * every host derives from that description (`decideDiff`): which changes replace is read from the
 * inputs' metadata, not restated by the runtime.
 */

const inputs = z.object({
  zoneId: z.string().meta({ description: 'The zone.', replaces: true }),
  name: z.string().meta({ description: 'The name.' }),
  enabled: z.boolean().default(true).meta({ description: 'Whether it is on.' }),
  tags: z
    .array(z.string())
    .transform((tags) => tags.sort())
    .default([])
    .meta({ description: 'Its tags.' }),
  note: z.string().optional().meta({ description: 'A note.', output: 'The note as stored.' }),
  adoptId: z.string().optional().meta({ createOnly: true }).meta({ description: 'What to adopt.' }),
  ssl: z
    .object({
      method: z.enum(['txt', 'http']).meta({ description: 'How.' }),
      authority: z.string().default('').meta({ description: 'Who.' }),
    })
    .meta({ description: 'The settings.' }),
});

describe('inputFields', () => {
  const fields = inputFields('Thing', inputs);

  test('every input, in the schema’s order, with what zod says of it', () => {
    expect(fields.map((field) => [field.name, field.required, field.default])).toEqual([
      ['zoneId', true, undefined],
      ['name', true, undefined],
      ['enabled', false, true],
      ['tags', false, []],
      ['note', false, undefined],
      ['adoptId', false, undefined],
      ['ssl', true, undefined],
    ]);
  });

  test('metadata set on a field and then on its copy is the copy’s (adoptIdField sets createOnly, the runtime the description)', () => {
    expect(fields.find((field) => field.name === 'adoptId')!.meta).toEqual({
      createOnly: true,
      description: 'What to adopt.',
    });
  });

  test('the fields of an object input', () => {
    const ssl = fields.find((field) => field.name === 'ssl')!;
    expect(ssl.fields!.map((field) => [field.name, field.required, field.default])).toEqual([
      ['method', true, undefined],
      ['authority', false, ''],
    ]);
  });

  test('the replacing inputs are those whose metadata says so', () => {
    expect(replacingInputs('Thing', inputs)).toEqual(['zoneId']);
  });

  test.each([
    ['a misspelt key', z.object({ a: z.string().meta({ description: 'A.', replace: true }) }), /Thing\.a: .*replace/],
    ['no description', z.object({ a: z.string() }), /Thing\.a: .*description/],
    ['an empty description', z.object({ a: z.string().meta({ description: ' ' }) }), /Thing\.a: .*description/],
    [
      'a nested field without one',
      z.object({ a: z.object({ b: z.string() }).meta({ description: 'A.' }) }),
      /Thing\.a\.b: .*description/,
    ],
  ])('metadata that is not a description fails, naming the field: %s', (_name, schema, message) => {
    expect(() => inputFields('Thing', schema)).toThrow(message);
  });

  test('an output that is not an input says only what it is', () => {
    expect(outputFields('Thing', z.object({ id: z.string().meta({ description: 'Its id.' }) }))).toEqual([
      { name: 'id', schema: expect.anything(), description: 'Its id.' },
    ]);
    expect(() =>
      outputFields('Thing', z.object({ id: z.string().meta({ description: 'Its id.', replaces: true }) })),
    ).toThrow(/Thing output id: .*replaces/);
  });
});

describe('inputDoc', () => {
  const doc = (name: string) => inputDoc(inputFields('Thing', inputs).find((field) => field.name === name)!);

  test.each([
    ['zoneId', 'The zone. Required; a change replaces the resource.'],
    ['name', 'The name. Required; a change updates in place.'],
    ['enabled', 'Whether it is on. Default `true`; a change updates in place.'],
    ['tags', 'Its tags. Default `[]`; a change updates in place.'],
    ['note', 'A note. Optional; a change updates in place.'],
    ['adoptId', 'What to adopt. Optional; it matters only at create, so changing or removing it later is no change.'],
  ])('%s', (name, expected) => {
    expect(doc(name)).toBe(expected);
  });
});

test('markdown: lines of a paragraph joined, list items and paragraphs kept', () => {
  expect(
    markdown(`
      First line
        continues here.

      - an item
        that goes on
      - another`),
  ).toBe('First line continues here.\n\n- an item that goes on\n- another');
});

describe('decideDiff', () => {
  type Values = z.output<typeof inputs>;
  const runtime = (deleteBeforeReplace?: Runtime<Values, Values>['deleteBeforeReplace']): Runtime<Values, Values> => ({
    resource: 'Thing',
    description: 'A thing.',
    inputs,
    outputs: z.object({}),
    // What changed is given in `news.tags`: the diff names whatever the test says.
    diff: (_olds, news) => news.tags,
    ...(deleteBeforeReplace ? { deleteBeforeReplace } : {}),
    create: () => Promise.reject(new Error('not called')),
    read: () => Promise.reject(new Error('not called')),
    update: () => Promise.reject(new Error('not called')),
    delete: () => Promise.reject(new Error('not called')),
  });
  const values = (changed: string[]) => inputs.parse({ zoneId: 'z', name: 'n', ssl: { method: 'txt' }, tags: changed });

  test('the changed inputs that replace are those whose metadata says so; an output never replaces', () => {
    expect(decideDiff(runtime(), values([]), values(['name', 'status']))).toEqual({
      changed: ['name', 'status'],
      replaces: [],
    });
    expect(decideDiff(runtime(), values([]), values(['zoneId', 'name']))).toEqual({
      changed: ['name', 'zoneId'],
      replaces: ['zoneId'],
    });
  });

  test('the runtime decides whether the old object goes first, given what replaces', () => {
    const seen: Array<readonly string[]> = [];
    const decide = runtime((replaces) => {
      seen.push(replaces);
      return replaces.length > 0;
    });
    expect(decideDiff(decide, values([]), values(['zoneId'])).deleteBeforeReplace).toBe(true);
    expect(decideDiff(decide, values([]), values(['name'])).deleteBeforeReplace).toBe(false);
    expect(seen).toEqual([['zoneId'], []]);
  });
});
