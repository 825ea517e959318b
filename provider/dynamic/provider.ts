import type * as pulumi from '@pulumi/pulumi';
import { checkRuntime } from '../runtime/check';
import { parsedInputs, type Runtime } from '../runtime/contract';
import { decideDiff, deleteLive, engineCall, readLive } from '../runtime/host';
import { PartialFailure } from '../runtime/partial';
import { configure, dynamicContext } from './context';

/**
 * The dynamic host: a runtime as the provider object of `pulumi.dynamic`, which the engine's
 * `pulumi-nodejs` plugin loads from the module text stored with every dynamic resource
 * (provider/resources/registration.ts): each runtime module exports `provider`, made here.
 */

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
      Promise.resolve(checkRuntime(runtime, news)),

    diff: (_id: string, olds: O, news: I) => {
      const decided = decideDiff(runtime, olds, news);
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
