import { ApiError, ErrorCode } from '../../core/errors';
import type { IssuanceState } from './records';

/**
 * The certificate issuance limit (spec 7, 8; contract "Rules"): 15 successful creates per zone in
 * any 60 s window. The create that would be the 16th is refused and starts a 30 s block in which
 * every create of the zone is refused. Refused creates do not count. Pure: the plugin reads and
 * writes the state.
 */

/** Spec 8: certificate issuances per window. */
export const ISSUANCE_LIMIT = 15;
/** Spec 8: "per minute", as a sliding window. */
export const ISSUANCE_WINDOW_MS = 60_000;
/** Spec 8: how long creates are refused after the limit is exceeded. */
export const ISSUANCE_BLOCK_MS = 30_000;

/**
 * The decision on one create: allowed, with the state to persist if the create succeeds; or
 * refused with the error to answer and, when the refusal starts a block, the state to persist.
 */
export type IssuanceDecision =
  | { allowed: true; afterCreate: IssuanceState }
  | { allowed: false; error: ApiError; blockStarted: IssuanceState | undefined };

/** Decides whether a create in `zoneId` may go ahead at `nowMs`. */
export function decideIssuance(state: IssuanceState | undefined, zoneId: string, nowMs: number): IssuanceDecision {
  if (state?.blocked_until_ms != null && nowMs < state.blocked_until_ms) {
    const seconds = Math.ceil((state.blocked_until_ms - nowMs) / 1000);
    return {
      allowed: false,
      error: rateLimited(
        seconds,
        `certificate issuance for this zone is blocked for ${seconds} more seconds after exceeding ${ISSUANCE_LIMIT} creates per ${ISSUANCE_WINDOW_MS / 1000} seconds; retry after ${seconds} seconds`,
      ),
      blockStarted: undefined,
    };
  }
  const recent = (state?.issued_at_ms ?? []).filter((at) => nowMs - at < ISSUANCE_WINDOW_MS);
  if (recent.length >= ISSUANCE_LIMIT) {
    const seconds = ISSUANCE_BLOCK_MS / 1000;
    return {
      allowed: false,
      error: rateLimited(
        seconds,
        `certificate issuance rate exceeded: at most ${ISSUANCE_LIMIT} custom hostnames may be created per zone in ${ISSUANCE_WINDOW_MS / 1000} seconds; creates in this zone are refused for ${seconds} seconds`,
      ),
      blockStarted: { zone_id: zoneId, issued_at_ms: recent, blocked_until_ms: nowMs + ISSUANCE_BLOCK_MS },
    };
  }
  return { allowed: true, afterCreate: { zone_id: zoneId, issued_at_ms: [...recent, nowMs], blocked_until_ms: null } };
}

function rateLimited(retryAfterSeconds: number, message: string): ApiError {
  return new ApiError(429, [{ code: ErrorCode.issuanceRateLimited, message }], {
    'retry-after': String(retryAfterSeconds),
  });
}
