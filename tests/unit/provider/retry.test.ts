import {
  backoffMs,
  decideRetry,
  FIRST_ATTEMPT,
  type AttemptFailure,
  type RetryDecision,
  type RetryPolicy,
  type RetryState,
} from '../../../provider/client/retry';

/**
 * The retry policy as a pure function: each row is a failure, what the request went through
 * before, and the exact decision. The jitter source returns 0 unless a row says otherwise, so a
 * back-off is the lower end of its range, `baseMs * 2^(attempt-1) / 2`.
 */

const POLICY: RetryPolicy = { maxAttempts: 8, backoff: { baseMs: 250, capMs: 8_000 }, maxRateLimitWaitMs: 300_000 };
const NOW = Date.parse('2026-11-21T08:00:00Z');

const status = (code: number, retryAfter?: string): AttemptFailure => ({
  kind: 'status',
  status: code,
  ...(retryAfter !== undefined ? { retryAfter } : {}),
});
const timeout: AttemptFailure = { kind: 'timeout' };
const connection = (code?: string): AttemptFailure => ({ kind: 'connection', ...(code !== undefined ? { code } : {}) });

const fail: RetryDecision = { kind: 'fail' };
const retry = (afterMs: number, next: Partial<RetryState>): RetryDecision => ({
  kind: 'retry',
  afterMs,
  next: { ...FIRST_ATTEMPT, ...next },
});
const recoverThenRetry = (afterMs: number, next: Partial<RetryState>): RetryDecision => ({
  kind: 'recover-then-retry',
  afterMs,
  next: { ...FIRST_ATTEMPT, ...next },
});

interface Row {
  failure: AttemptFailure;
  /** What happened before; default: the first attempt just failed. */
  before?: Partial<RetryState>;
  /** A create with a recover lookup. */
  create?: boolean;
  policy?: Partial<RetryPolicy>;
  expected: RetryDecision;
}

const ROWS: Record<string, Row> = {
  // What asking again cannot change.
  '400 fails': { failure: status(400), expected: fail },
  '401 fails': { failure: status(401), expected: fail },
  '403 fails': { failure: status(403), expected: fail },
  '404 fails': { failure: status(404), expected: fail },
  'another 4xx (422) fails': { failure: status(422), expected: fail },
  // send returns a 2xx without asking; should one come here, it is not retried either.
  'a 2xx is not retried': { failure: status(200), expected: fail },
  '400 fails on a create too': {
    failure: status(400),
    create: true,
    before: { attempt: 3, ambiguous: true },
    expected: fail,
  },

  // Retried after the back-off; without an answer (or with 408, 409, 5xx) the write may have landed.
  '408 retries': { failure: status(408), expected: retry(125, { attempt: 2, ambiguous: true }) },
  '409 retries (a lock)': { failure: status(409), expected: retry(125, { attempt: 2, ambiguous: true }) },
  '500 retries': { failure: status(500), expected: retry(125, { attempt: 2, ambiguous: true }) },
  '503 retries': { failure: status(503), expected: retry(125, { attempt: 2, ambiguous: true }) },
  '504 at attempt 3 retries after 500 ms': {
    failure: status(504),
    before: { attempt: 3 },
    expected: retry(500, { attempt: 4, ambiguous: true }),
  },
  'a timeout retries': { failure: timeout, expected: retry(125, { attempt: 2, ambiguous: true }) },
  'a reset connection (ECONNRESET) retries': {
    failure: connection('ECONNRESET'),
    expected: retry(125, { attempt: 2, ambiguous: true }),
  },
  'a connection failure without a code retries': {
    failure: connection(),
    expected: retry(125, { attempt: 2, ambiguous: true }),
  },
  'a reset at attempt 7 of 8 still retries': {
    failure: connection('ECONNRESET'),
    before: { attempt: 7 },
    expected: retry(4_000, { attempt: 8, ambiguous: true }),
  },

  // The last attempt.
  '503 on the last attempt fails': { failure: status(503), before: { attempt: 8 }, expected: fail },
  'a timeout on the last attempt fails': { failure: timeout, before: { attempt: 8 }, expected: fail },
  'a reset on the last attempt fails': { failure: connection('ECONNRESET'), before: { attempt: 8 }, expected: fail },
  'maxAttempts 1: a 503 fails at once': { failure: status(503), policy: { maxAttempts: 1 }, expected: fail },

  // Creates.
  "a create's first 409 is a real conflict and fails": { failure: status(409), create: true, expected: fail },
  "a create's 409 after a 503 is its own write: recover first": {
    failure: status(409),
    create: true,
    before: { attempt: 2, ambiguous: true },
    expected: recoverThenRetry(250, { attempt: 3, ambiguous: true }),
  },
  'a create after a 503 recovers first': {
    failure: status(503),
    create: true,
    expected: recoverThenRetry(125, { attempt: 2, ambiguous: true }),
  },
  'a create after a timeout recovers first': {
    failure: timeout,
    create: true,
    expected: recoverThenRetry(125, { attempt: 2, ambiguous: true }),
  },
  'a create after a reset recovers first': {
    failure: connection('ECONNRESET'),
    create: true,
    expected: recoverThenRetry(125, { attempt: 2, ambiguous: true }),
  },
  'a create after a 408 recovers first': {
    failure: status(408),
    create: true,
    expected: recoverThenRetry(125, { attempt: 2, ambiguous: true }),
  },
  'a create on its last attempt fails, however ambiguous': {
    failure: status(503),
    create: true,
    before: { attempt: 8, ambiguous: true },
    expected: fail,
  },
  'a create refused with 429 retries without a lookup': {
    failure: status(429, '30'),
    create: true,
    expected: retry(30_000, { rateLimitWaitedMs: 30_000 }),
  },
  'a create refused with 429 after an ambiguous failure still looks first': {
    failure: status(429, '30'),
    create: true,
    before: { attempt: 2, ambiguous: true },
    expected: recoverThenRetry(30_000, { attempt: 2, ambiguous: true, rateLimitWaitedMs: 30_000 }),
  },

  // 429: the service's wait, not an attempt, within a total budget.
  '429 waits Retry-After in seconds without spending an attempt': {
    failure: status(429, '30'),
    before: { attempt: 3 },
    expected: retry(30_000, { attempt: 3, rateLimitWaitedMs: 30_000 }),
  },
  '429 waits Retry-After as an HTTP date': {
    failure: status(429, 'Sat, 21 Nov 2026 08:00:30 GMT'),
    expected: retry(30_000, { rateLimitWaitedMs: 30_000 }),
  },
  'Retry-After 0 retries at once': { failure: status(429, '0'), expected: retry(0, {}) },
  '429 without Retry-After waits the back-off of the attempt': {
    failure: status(429),
    before: { attempt: 3 },
    expected: retry(500, { attempt: 3, rateLimitWaitedMs: 500 }),
  },
  '429 with an unreadable Retry-After waits the back-off': {
    failure: status(429, 'soon'),
    expected: retry(125, { rateLimitWaitedMs: 125 }),
  },
  '429 on the last attempt still waits': {
    failure: status(429, '30'),
    before: { attempt: 8 },
    expected: retry(30_000, { attempt: 8, rateLimitWaitedMs: 30_000 }),
  },
  '429 adds to the time already waited': {
    failure: status(429, '30'),
    before: { rateLimitWaitedMs: 240_000 },
    expected: retry(30_000, { rateLimitWaitedMs: 270_000 }),
  },
  '429 whose wait reaches the budget exactly waits': {
    failure: status(429, '30'),
    before: { rateLimitWaitedMs: 270_000 },
    expected: retry(30_000, { rateLimitWaitedMs: 300_000 }),
  },
  '429 whose wait would pass the budget fails': {
    failure: status(429, '30'),
    before: { rateLimitWaitedMs: 270_001 },
    expected: fail,
  },
  '429 whose first wait alone passes the budget fails': {
    failure: status(429, '30'),
    policy: { maxRateLimitWaitMs: 10_000 },
    expected: fail,
  },

  // An unreachable service (nothing listens, no such host): one more try after a short pause, and
  // nothing was sent, so a create has nothing to look for.
  'ECONNREFUSED retries once': { failure: connection('ECONNREFUSED'), expected: retry(125, { attempt: 2 }) },
  'ECONNREFUSED on the second attempt fails': {
    failure: connection('ECONNREFUSED'),
    before: { attempt: 2 },
    expected: fail,
  },
  'ENOTFOUND retries once': { failure: connection('ENOTFOUND'), expected: retry(125, { attempt: 2 }) },
  'ENOTFOUND on the second attempt fails': { failure: connection('ENOTFOUND'), before: { attempt: 2 }, expected: fail },
  'EAI_AGAIN on the second attempt fails': { failure: connection('EAI_AGAIN'), before: { attempt: 2 }, expected: fail },
  'ECONNREFUSED after resets fails': {
    failure: connection('ECONNREFUSED'),
    before: { attempt: 4, ambiguous: true },
    expected: fail,
  },
  'ECONNREFUSED with maxAttempts 1 fails': {
    failure: connection('ECONNREFUSED'),
    policy: { maxAttempts: 1 },
    expected: fail,
  },
  'a create refused a connection retries without a lookup': {
    failure: connection('ECONNREFUSED'),
    create: true,
    expected: retry(125, { attempt: 2 }),
  },
};

test.each(Object.entries(ROWS))('%s', (_, row) => {
  const decision = decideRetry(
    row.failure,
    { ...FIRST_ATTEMPT, ...row.before },
    { recoverable: row.create ?? false, policy: { ...POLICY, ...row.policy }, random: () => 0, nowMs: NOW },
  );
  expect(decision).toEqual(row.expected);
});

// Back-off: baseMs * 2^(attempt-1), capped at capMs, jittered into [ceiling/2, ceiling].
test.each([
  [1, 125, 250],
  [2, 250, 500],
  [3, 500, 1_000],
  [4, 1_000, 2_000],
  [5, 2_000, 4_000],
  [6, 4_000, 8_000],
  [7, 4_000, 8_000],
])('the back-off after attempt %p lies in [%p, %p] ms', (attempt, low, high) => {
  expect(backoffMs(attempt, POLICY.backoff, () => 0)).toBe(low);
  expect(backoffMs(attempt, POLICY.backoff, () => 0.5)).toBe(Math.round((low + high) / 2));
  expect(backoffMs(attempt, POLICY.backoff, () => 0.999_999)).toBe(high);
  const decision = decideRetry(
    status(503),
    { ...FIRST_ATTEMPT, attempt },
    { recoverable: false, policy: POLICY, random: () => 0.5, nowMs: NOW },
  );
  expect(decision).toEqual(retry(Math.round((low + high) / 2), { attempt: attempt + 1, ambiguous: true }));
});

test('the jitter spreads the back-off over its whole range', () => {
  const draws = [0, 0.25, 0.5, 0.75].map((r) => backoffMs(4, POLICY.backoff, () => r));
  expect(draws).toEqual([1_000, 1_250, 1_500, 1_750]);
});
