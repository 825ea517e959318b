import type { z } from 'zod';
import { EdgeGuardError } from '../client/errors';
import type { HttpClient } from '../client/http';
import { fieldPath } from '../../rules/zod';

/**
 * The contract between a resource's runtime and the hosts that run it: the dynamic host
 * (provider/dynamic/) and the provider plugin (provider/plugin/). A runtime is written against
 * this module alone, and each host gives it a {@link RuntimeContext} of its own making.
 */

/**
 * What a runtime acts through: the client of its provider's settings, and the engine's output.
 * Each host makes it: the dynamic host from the stack's `edgeguard:*` configuration, the provider
 * plugin from each provider instance's own configuration, so one program can hold several accounts.
 */
export interface RuntimeContext {
  /** The client of the provider's settings (resolved when first asked for: a `SettingsError` says what to set). */
  readonly client: HttpClient;
  /**
   * Shows `line` in the engine's output (`pulumi up`, `pulumi destroy`), as it comes and again
   * under "Diagnostics". The dynamic host cannot say which resource a line is about, so the line
   * must name it.
   */
  show(line: string): void;
}

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
  /** Those of `changed` that replace the resource: the inputs whose metadata says a change replaces it. */
  replaces: string[];
  /** Delete the old object before creating its replacement (default: create first). */
  deleteBeforeReplace?: boolean;
}

/**
 * What a resource's runtime provides; each host turns it into the engine's provider. It is also the
 * resource's one description: its class, `Args` and schema are generated from `description`,
 * `inputs` and `outputs` (describe.ts).
 */
export interface Runtime<I extends object, O extends object> {
  /** The resource's name in messages and type tokens, such as `CspPolicy`. */
  resource: string;
  /** What the resource is, in Markdown: the documentation of its class and of its schema. */
  description: string;
  /**
   * The inputs as `check` accepts them: parses the program's values into `I`, defaults applied.
   * Each field's zod metadata describes it (describe.ts), whether a change replaces the resource
   * among it.
   */
  inputs: z.ZodObject & z.ZodType<I>;
  /**
   * The outputs that are not inputs, each described by its zod metadata (every input is an output
   * too, but one that matters only at create). Nothing parses outputs with it: it describes them,
   * and the runtime's outputs type is made from it.
   */
  outputs: z.ZodObject;
  /**
   * How an input compares whose value can be written differently with the same meaning (a CSP
   * value's source order, a hostname's case): `true` when the old output and the new input mean
   * the same. Every other input compares whole.
   */
  same?: { [K in keyof I]?: (old: unknown, news: I[K]) => boolean };
  /**
   * The properties that change between the old outputs and the new inputs. Left out, the inputs
   * that differ as the description and `same` say (`changedInputs`, wire.ts); a runtime writes its
   * own only for what the inputs alone do not show (a change that only an output reveals). During
   * a preview, values not known yet are the engine's unknown marker (see `check.ts`). The hosts
   * decide which of them replace the resource, from the inputs' metadata (`decideDiff` in host.ts).
   */
  diff?(olds: O, news: I): string[];
  /**
   * The outputs the inputs alone decide, with no call to the service. The hosts add them to the
   * inputs `check` returns (and to those `read` returns, so a refresh sees no change in them): the
   * engine takes a changed resource's checked inputs as its outputs until the update, so a preview
   * knows these and a resource fed by one (a `CspPolicy` fed by an inventory's `cspSources`) is
   * judged at preview, not left unknown.
   */
  derived?(inputs: I): Partial<O>;
  /**
   * Whether the old object must be deleted before its replacement is created, given the inputs
   * whose change replaces it. Left out: the replacement is created first.
   */
  deleteBeforeReplace?(replaces: readonly string[]): boolean;
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
