import { isDeepStrictEqual } from 'node:util';
import type { Runtime } from './contract';
import { inputFields } from './describe';

/**
 * An object's inputs as the service's record holds them, derived from the runtime's description
 * rather than written field by field: its request body, and its live record read back as inputs.
 * A runtime says only what is special about its record: the inputs that address the object
 * instead of travelling in its body (the zone or account, in the path), and the inputs the
 * service stores in another form (`enabled` as the string `"true"` or `"false"`). Every other
 * input but the create-only ones travels as it is, under its own name: adding an input to the
 * description adds it to the body, to the live inputs and to the diff.
 */
export interface Wire<I extends object> {
  /** The inputs that address the object (in the request's path), not in its body. */
  addresses: ReadonlyArray<keyof I & string>;
  /** Inputs the service stores in another form: to the record's form, and back. */
  forms?: { [K in keyof I]?: { toWire: (value: I[K]) => unknown; fromWire: (value: unknown) => I[K] } };
}

/** The names of the inputs that travel in the body: every input but the addressing and create-only ones. */
function bodyInputs<I extends object, O extends object>(
  runtime: Runtime<I, O>,
  wire: Wire<I>,
): Array<keyof I & string> {
  return inputFields(runtime.resource, runtime.inputs)
    .filter((field) => field.meta.createOnly !== true && !wire.addresses.includes(field.name as keyof I & string))
    .map((field) => field.name as keyof I & string);
}

/** The request body of `inputs`: each body input under its name, in the record's form. */
export function wireBody<I extends object, O extends object>(
  runtime: Runtime<I, O>,
  wire: Wire<I>,
  inputs: I,
): Record<string, unknown> {
  return Object.fromEntries(
    bodyInputs(runtime, wire).map((name) => {
      const form = wire.forms?.[name];
      return [name, form === undefined ? inputs[name] : form.toWire(inputs[name])];
    }),
  );
}

/** The live `record` as inputs (so that a change made outside the stack shows as drift): `addressed` gives the addressing inputs. */
export function liveInputsOf<I extends object, O extends object>(
  runtime: Runtime<I, O>,
  wire: Wire<I>,
  record: Record<string, unknown>,
  addressed: Partial<I>,
): I {
  const body = bodyInputs(runtime, wire).map((name) => {
    const form = wire.forms?.[name];
    return [name, form === undefined ? record[name] : form.fromWire(record[name])];
  });
  return { ...addressed, ...Object.fromEntries(body) } as I;
}

/**
 * The inputs that differ between the old outputs and the new inputs, as the description says:
 * every input but the create-only ones, compared whole, or by the runtime's `same` for an input
 * that can be written differently with the same meaning. The default `diff` of every runtime.
 */
export function changedInputs<I extends object, O extends object>(
  runtime: Runtime<I, O>,
  olds: Partial<O>,
  news: I,
): string[] {
  return inputFields(runtime.resource, runtime.inputs)
    .filter((field) => field.meta.createOnly !== true)
    .map((field) => field.name)
    .filter((name) => {
      const same = (runtime.same as Record<string, ((a: unknown, b: unknown) => boolean) | undefined> | undefined)?.[
        name
      ];
      const old = (olds as Record<string, unknown>)[name];
      const value = (news as Record<string, unknown>)[name];
      return !(same ?? isDeepStrictEqual)(old, value);
    });
}
