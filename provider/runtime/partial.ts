import { EdgeGuardError } from '../client/errors';

/**
 * A create or update whose object exists on the service but did not reach the declared state.
 * Thrown from a dynamic provider method, an error with an `id` becomes the engine's
 * `ErrorResourceInitFailed`: the engine records the resource with `properties` (so nothing the
 * step did is forgotten or orphaned), fails the step with the message, and updates the resource
 * on the next `pulumi up`. The dynamic host (provider/dynamic/provider.ts) adds the serialized
 * provider to `properties`, which the engine stores as given and needs for any later refresh or
 * destroy.
 */
export class PartialFailure extends EdgeGuardError {
  override name = 'PartialFailure';
  /** The outputs to record. */
  readonly properties: Record<string, unknown>;
  /** Recorded by the engine as the resource's initialization errors. */
  readonly reasons: string[];

  constructor(
    message: string,
    /** The id the engine records. */
    readonly id: string,
    outputs: object,
    options: {
      /** Recorded by the engine as the resource's initialization errors. Default: the message. */
      reasons?: string[];
      /** The failure that stopped the step. */
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.reasons = options.reasons ?? [message];
    this.properties = { ...outputs };
  }
}
