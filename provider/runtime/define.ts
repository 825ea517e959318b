import type * as pulumi from '@pulumi/pulumi';
import type { z } from 'zod';
import { EdgeGuardError } from '../client/errors';
import { fieldPath } from '../../rules/zod';
import { checkInputs } from './check';
import { configure, dynamicContext, type RuntimeContext } from './context';
import { deleteLive, engineCall, readLive } from './host';
import { PartialFailure } from './partial';

/**
 * The one shape of every resource's runtime: typed inputs (the zod schema `check` applies) and
 * typed outputs, and the steps every resource takes the same way written once here.
 */

/**
 * What `diff` decided, property by property: the dynamic host reduces it to "changes" and the
 * replacing names; the provider plugin shows each property in `pulumi preview --diff`.
 */
export interface RuntimeDiff {
  /**
   * Every property that changes, by name. A change that only an output reveals (a hostname the
   * service reports `moved`, pools that carry an e-mail again) is named on that output.
   */
  changed: string[];
  /** Those of `changed` that replace the resource (always among the runtime's `replaceOnChanges`). */
  replaces: string[];
  /** Delete the old object before creating its replacement (default: create first). */
  deleteBeforeReplace?: boolean;
}

/** What a resource's runtime provides; {@link defineRuntime} turns it into the engine's provider. */
export interface Runtime<I extends object, O extends object> {
  /** The resource's name in messages and type tokens, such as `CspPolicy`. */
  resource: string;
  /** The inputs as `check` accepts them: parses the program's values into `I`, defaults applied. */
  inputs: z.ZodType<I>;
  /** The inputs whose change replaces the object (the service cannot change them in place). */
  replaceOnChanges: ReadonlyArray<keyof I & string>;
  /**
   * What changes between the old outputs and the new inputs, and what replaces. During a preview,
   * values not known yet are the engine's unknown marker (see `check.ts`).
   */
  diff(olds: O, news: I): RuntimeDiff;
  create(ctx: RuntimeContext, inputs: I): Promise<{ id: string; outs: O }>;
  /**
   * The live object, as outputs and as inputs (so a refresh shows drift). A `NotFoundError` means
   * it is gone. `props` may hold no more than the owner (`zoneId` or `accountId`): an import.
   */
  read(ctx: RuntimeContext, id: string, props: Partial<O>): Promise<{ props: O; inputs: I }>;
  /** The new outputs. */
  update(ctx: RuntimeContext, id: string, olds: O, news: I): Promise<O>;
  /** Deletes the object; a `NotFoundError` means it was gone already, which is success. */
  delete(ctx: RuntimeContext, id: string, props: O): Promise<void>;
}

/**
 * A runtime cannot act on what the engine gave it: inputs that `check` would not accept (a bug),
 * or a stored resource without the zone or account it belongs to.
 */
export class ResourceStateError extends EdgeGuardError {
  override name = 'ResourceStateError';
}

/** The inputs the engine hands to create and update, which `check` produced, parsed into their type. */
export function parsedInputs<I>(resource: string, schema: z.ZodType<I>, raw: Record<string, unknown>): I {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.map((issue) => `${fieldPath(issue.path, 'inputs')}: ${issue.message}`).join('; ');
  throw new ResourceStateError(`${resource} inputs are invalid: ${detail}`);
}

/**
 * The zone or account a stored resource belongs to. A resource read with `get` and no arguments
 * has none, and nothing can be found without it.
 */
export function ownerOf(
  resource: string,
  id: string,
  props: Partial<Record<'zoneId' | 'accountId', unknown>> | undefined,
  key: 'zoneId' | 'accountId',
): string {
  const value = props?.[key];
  if (typeof value !== 'string' || value === '') {
    const what = key === 'zoneId' ? 'zone' : 'account';
    throw new ResourceStateError(
      `${resource} ${id}: its ${what} is not known; pass ${key} in the resource's arguments (with get, in its state argument) to read it`,
    );
  }
  return value;
}

/**
 * A partial failure carries the serialized provider in its properties: the engine records them as
 * given, and could not refresh or delete the resource without it.
 */
async function dynamicCall<T>(call: () => Promise<T>, raw: Record<string, unknown>): Promise<T> {
  try {
    return await engineCall(call);
  } catch (error) {
    if (error instanceof PartialFailure && raw.__provider !== undefined) error.properties.__provider = raw.__provider;
    throw error;
  }
}

/** The dynamic provider of `runtime`: the object the stored provider module loads (provider/resources/registration.ts). */
export function defineRuntime<I extends object, O extends object>(
  runtime: Runtime<I, O>,
): Required<Omit<pulumi.dynamic.ResourceProvider, 'checkConfig' | 'diffConfig'>> & pulumi.dynamic.ResourceProvider {
  const inputs = (raw: Record<string, unknown>) => parsedInputs(runtime.resource, runtime.inputs, raw);
  return {
    configure,

    check: (_olds: Record<string, unknown>, news: Record<string, unknown>) =>
      Promise.resolve(checkInputs(runtime.inputs, news)),

    diff: (_id: string, olds: O, news: I) => {
      const decided = runtime.diff(olds, news);
      return Promise.resolve({
        changes: decided.changed.length > 0,
        replaces: decided.replaces,
        ...(decided.deleteBeforeReplace === undefined ? {} : { deleteBeforeReplace: decided.deleteBeforeReplace }),
      });
    },

    create: (raw: Record<string, unknown>) => dynamicCall(() => runtime.create(dynamicContext(), inputs(raw)), raw),

    read: async (id: string, props?: Partial<O>) => {
      const live = await readLive(runtime, dynamicContext(), id, props ?? {});
      return live === undefined ? {} : { id, props: live.props, inputs: live.inputs };
    },

    update: (id: string, olds: O, raw: Record<string, unknown>) =>
      dynamicCall(async () => ({ outs: await runtime.update(dynamicContext(), id, olds, inputs(raw)) }), raw),

    delete: (id: string, props: O) => deleteLive(runtime, dynamicContext(), id, props),
  };
}
