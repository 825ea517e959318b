import { NotFoundError } from '../client/errors';
import { withSettingHint } from '../settings';
import type { Runtime, RuntimeContext, RuntimeDiff } from './contract';
import { replacingInputs } from './describe';
import { withDerived } from './check';
import { changedInputs } from './wire';

/**
 * The steps of a runtime's call that every host takes the same way: the dynamic host
 * (provider/dynamic/provider.ts) and the provider plugin (provider/plugin/server.ts) both call these, so what a
 * 404 means or what a refused connection tells the user is decided once.
 */

/**
 * Runs one call of a runtime, its error as the engine should show it: a refused or lost
 * connection names the setting to check (the client itself knows nothing of Pulumi settings).
 */
export async function engineCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw withSettingHint(error);
  }
}

/**
 * What `diff` decides: the runtime's changed properties, those of them whose metadata says a change
 * replaces the resource, and whether the old object goes first, if the runtime says.
 */
export function decideDiff<I extends object, O extends object>(runtime: Runtime<I, O>, olds: O, news: I): RuntimeDiff {
  const changed = runtime.diff === undefined ? changedInputs(runtime, olds, news) : runtime.diff(olds, news);
  const replacing = replacingInputs(runtime.resource, runtime.inputs);
  const replaces = changed.filter((name) => replacing.includes(name));
  return runtime.deleteBeforeReplace === undefined
    ? { changed, replaces }
    : { changed, replaces, deleteBeforeReplace: runtime.deleteBeforeReplace(replaces) };
}

/** The live object, or `undefined` when the service no longer has it (a 404 on read means gone). */
export function readLive<I extends object, O extends object>(
  runtime: Runtime<I, O>,
  ctx: RuntimeContext,
  id: string,
  props: Partial<O>,
): Promise<{ props: O; inputs: I } | undefined> {
  return engineCall(async () => {
    try {
      const live = await runtime.read(ctx, id, props);
      return { props: live.props, inputs: withDerived(runtime, live.inputs) };
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  });
}

/** Deletes the object; one the service no longer has (a 404) is deleted already, which is success. */
export function deleteLive<I extends object, O extends object>(
  runtime: Runtime<I, O>,
  ctx: RuntimeContext,
  id: string,
  props: O,
): Promise<void> {
  return engineCall(async () => {
    try {
      await runtime.delete(ctx, id, props);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  });
}
