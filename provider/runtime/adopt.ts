import { EdgeGuardError, NotFoundError } from '../client/errors';
import { hexIdSchema } from './check';
import type { RuntimeContext } from './contract';

/**
 * Adoption: a create that takes over an object that already exists instead of making a new one,
 * when the resource's `adoptId` is set. Pulumi cannot import dynamic resources (pulumi/pulumi#3550
 * and #16175), so this is how an object made in the dashboard or by a script comes under a stack
 * without being deleted and made again (a custom hostname made again gets a new ownership token;
 * a CSP policy deleted leaves the pages it covered unprotected meanwhile).
 *
 * Every adopting runtime takes the same steps, written once here: read the object where the
 * resource says it is (its zone or account), refuse it with a message that says what to change if
 * it is not there or can never be the declared resource, write the declared state over it only
 * where it differs (one write, or none), and say in the engine's output that it was adopted.
 */

/**
 * The `adoptId` input of a resource that can adopt: the existing object's id. It matters only when
 * the resource is created (metadata `createOnly`, which its documentation says); the runtimes'
 * `diff` does not compare it, so changing or removing it later is no change. The resource's
 * runtime adds its description.
 */
export function adoptIdField(what: string, form: typeof hexIdSchema = hexIdSchema) {
  return form(`the id of the existing ${what} to adopt`).optional().meta({ createOnly: true });
}

/** An object that cannot be adopted as declared. Nothing was written. */
export class AdoptionError extends EdgeGuardError {
  override name = 'AdoptionError';
}

/** How one resource adopts its kind of object (`L`, the object as the client reads it). */
export interface Adoption<L> {
  /** The resource, as in `CspPolicy`. */
  resource: string;
  /** What the object is called in messages, as in `CSP policy`. */
  noun: string;
  /** Where the resource declares the object is. */
  owner: { kind: 'zone' | 'account'; id: string };
  /** The `adoptId`. */
  id: string;
  /** Reads the object through its owner's path: a `NotFoundError` when the owner has no such object. */
  read(): Promise<L>;
  /** The object in a few words for messages, such as its hostname in quotes. */
  describe(live: L): string;
  /**
   * Why the object can never be the declared resource, each as what to change (a property the
   * service cannot change in place, another kind of object); empty when it can be.
   */
  conflicts(live: L): string[];
  /** The declared properties whose values differ from the object's. */
  differences(live: L): string[];
  /** The one write that puts the declared state over the object; the object as written. */
  write(live: L): Promise<L>;
}

/**
 * Adopts the object `adoption` describes: reads it, refuses it (an {@link AdoptionError}, nothing
 * written) when its owner has no such object or it conflicts with the declaration, makes the one
 * write when a declared property differs, and reports the adoption. Returns the object as it now is.
 */
export async function adopt<L>(ctx: RuntimeContext, adoption: Adoption<L>): Promise<L> {
  const { resource, noun, owner, id } = adoption;
  const where = `${owner.kind} ${owner.id}`;
  let live: L;
  try {
    live = await adoption.read();
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    throw new AdoptionError(
      `${resource} cannot adopt ${noun} ${id}: ${where} has no ${noun} with that id (it does not exist, or it belongs to another ${owner.kind}: ` +
        `the service shows an object only under its own ${owner.kind}). Check adoptId and ${owner.kind}Id, or leave adoptId out to create a new ${noun}. ` +
        `Nothing was written. (${error.message})`,
      { cause: error },
    );
  }
  const described = `${noun} ${id} (${adoption.describe(live)}) in ${where}`;
  const conflicts = adoption.conflicts(live);
  if (conflicts.length > 0) {
    throw new AdoptionError(
      `${resource} cannot adopt ${described}: ${conflicts.join('; ')}. Nothing was written. ` +
        `To create a new ${noun} instead (a replacement is a create too), leave adoptId out.`,
    );
  }
  const changed = adoption.differences(live);
  const result = changed.length > 0 ? await adoption.write(live) : live;
  // The line names the object and its owner: the engine does not say which resource it is about.
  ctx.show(
    changed.length > 0
      ? `${resource}: adopted ${described}, not created; updated ${changed.join(', ')} to the declared value`
      : `${resource}: adopted ${described}, not created; it was as declared, nothing written`,
  );
  return result;
}
