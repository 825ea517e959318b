/**
 * The one retry policy of the code base, as a pure function (modelled on the vendor SDK's
 * `shouldRetry` and its back-off calculation): given how an attempt failed and what happened
 * before, whether to try again, after how long, and whether to look for what an earlier attempt
 * created first. `HttpClient.send` applies its decisions; nothing else sleeps or retries.
 */

/** How one attempt failed, as far as the policy cares. */
export type AttemptFailure =
  /** The service answered with a failure status. */
  | { kind: 'status'; status: number; /** The `Retry-After` header, if any. */ retryAfter?: string | string[] }
  /** No answer within the attempt's timeout. */
  | { kind: 'timeout' }
  /** No answer: the connection failed. `code` is the system error code (`ECONNRESET`, `ECONNREFUSED`, ...). */
  | { kind: 'connection'; code?: string };

/** The limits of the policy; `HttpOptions` gives their defaults. */
export interface RetryPolicy {
  /** Attempts per request, counting the first. */
  maxAttempts: number;
  /** Back-off: `baseMs * 2^(attempt-1)` with jitter, at most `capMs`. */
  backoff: { baseMs: number; capMs: number };
  /** How long 429s may keep a request waiting in all, in ms. */
  maxRateLimitWaitMs: number;
}

/** What a request has been through so far. */
export interface RetryState {
  /** The attempt that just failed, counting from 1. Waiting out a 429 does not count. */
  attempt: number;
  /** An earlier failure may have been applied by the service (a lost write). */
  ambiguous: boolean;
  /** Time already spent waiting out 429s, in ms. */
  rateLimitWaitedMs: number;
}

/** The state of a request whose first attempt just failed. */
export const FIRST_ATTEMPT: RetryState = { attempt: 1, ambiguous: false, rateLimitWaitedMs: 0 };

/** The decision on one failure. */
export type RetryDecision =
  | { kind: 'fail' }
  /**
   * Wait `afterMs`, then send again with `next` as the state. With `recover-then-retry`, first
   * look for the object an earlier attempt may have created, and return it if found.
   */
  | { kind: 'retry' | 'recover-then-retry'; afterMs: number; next: RetryState };

/**
 * Connection failures that come from no service listening or no such host rather than from a
 * flaky link: nothing was sent, and trying for half a minute would only delay the message that
 * says where to look. They get one more attempt (a service restarting), not the whole budget.
 */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
/** Attempts for an unreachable service, counting the first. */
export const UNREACHABLE_ATTEMPTS = 2;

const FAIL: RetryDecision = { kind: 'fail' };

/** What {@link decideRetry} needs besides the failure and the state. */
export interface RetryContext {
  /** The request is a create that can look up what it made (`RequestSpec.recover`). */
  recoverable: boolean;
  policy: RetryPolicy;
  /** The jitter source, in [0, 1). */
  random: () => number;
  /** The time now, for a `Retry-After` that is an HTTP date. */
  nowMs: number;
}

/**
 * Whether and when to try a failed attempt again. A 2xx never comes here.
 *
 * - 400, 401, 403, 404 and other 4xx fail: asking again gets the same answer.
 * - 429 waits `Retry-After` (or the back-off) without spending an attempt, until the waits in all
 *   would pass `maxRateLimitWaitMs`.
 * - 408, 409, 5xx, timeouts and connection failures retry after the back-off while attempts are
 *   left; an unreachable service ({@link UNREACHABLE}) gets {@link UNREACHABLE_ATTEMPTS}.
 * - A create (`recoverable`: it can look up what it made) fails on a first 409, a real conflict
 *   with someone else's object; adopting it would hand that object to this stack. Once a failure
 *   was ambiguous (no answer, 408, 5xx, a 409 after one of those), every retry of a create looks
 *   for what the earlier attempt made before sending again.
 */
export function decideRetry(failure: AttemptFailure, state: RetryState, context: RetryContext): RetryDecision {
  const { policy } = context;
  const retry = (afterMs: number, next: RetryState): RetryDecision => ({
    kind: context.recoverable && next.ambiguous ? 'recover-then-retry' : 'retry',
    afterMs,
    next,
  });

  if (failure.kind === 'status' && failure.status === 429) {
    const waitMs =
      retryAfterMs(failure.retryAfter, context.nowMs) ?? backoffMs(state.attempt, policy.backoff, context.random);
    const waited = state.rateLimitWaitedMs + waitMs;
    if (waited > policy.maxRateLimitWaitMs) return FAIL;
    return retry(waitMs, { ...state, rateLimitWaitedMs: waited });
  }
  if (failure.kind === 'status' && !RETRYABLE_STATUS(failure.status)) return FAIL;
  const unreachable = failure.kind === 'connection' && failure.code !== undefined && UNREACHABLE.has(failure.code);
  const attempts = unreachable ? Math.min(UNREACHABLE_ATTEMPTS, policy.maxAttempts) : policy.maxAttempts;
  if (state.attempt >= attempts) return FAIL;
  if (context.recoverable && !state.ambiguous && failure.kind === 'status' && failure.status === 409) return FAIL;
  return retry(backoffMs(state.attempt, policy.backoff, context.random), {
    ...state,
    attempt: state.attempt + 1,
    // After a 408, 409 or 5xx, or without an answer, the write may have landed; an unreachable
    // service received nothing.
    ambiguous: state.ambiguous || !unreachable,
  });
}

/** 408 (request timeout), 409 (a lock or a lost write), 429 (rate limit) and every 5xx. */
const RETRYABLE_STATUS = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/** The pause after failed attempt `attempt`: a ceiling of `baseMs * 2^(attempt-1)`, at most `capMs`, jittered into [ceiling/2, ceiling]. */
export function backoffMs(attempt: number, backoff: RetryPolicy['backoff'], random: () => number): number {
  const ceiling = Math.min(backoff.capMs, backoff.baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** A `Retry-After` header (seconds or an HTTP date), in ms from `nowMs`; `undefined` if absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, nowMs = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
