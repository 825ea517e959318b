import { EdgeGuardError } from '../client/errors';

/**
 * A create or update whose object exists on the service but did not reach the declared state.
 * Thrown from a dynamic provider method, an error with an `id` becomes the engine's
 * `ErrorResourceInitFailed`: the engine records the resource with `properties` (so nothing the
 * step did is forgotten or orphaned), fails the step with the message, and updates the resource
 * on the next `pulumi up`.
 */
export class PartialFailure extends EdgeGuardError {
  override name = 'PartialFailure';
  /** The outputs to record, with the serialized provider the engine needs for later steps. */
  readonly properties: Record<string, unknown>;
  /** Recorded by the engine as the resource's initialization errors. */
  readonly reasons: string[];

  constructor(
    message: string,
    /** The id the engine records. */
    readonly id: string,
    outputs: object,
    /** The inputs the method received, which carry the serialized provider. */
    inputs: Record<string, unknown>,
    options: {
      /** Recorded by the engine as the resource's initialization errors. Default: the message. */
      reasons?: string[];
      /** The failure that stopped the step. */
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.reasons = options.reasons ?? [message];
    // The engine stores a partial failure's properties as given; without the provider, a later
    // refresh or destroy of this resource could not run.
    this.properties = { ...outputs, ...(inputs.__provider !== undefined ? { __provider: inputs.__provider } : {}) };
  }
}
