import type { Clock } from './clock';
import { ApiError, ErrorCode } from './errors';
import { Collection, type Store } from './store';

/**
 * The vendor's global API limit (contract, "API rate limit"): every call of the API is counted
 * against its credential, in fixed windows that start with the credential's first call after the
 * previous window ended. The call past the limit is refused with 429 and starts a block of one
 * window in which every call of that credential is refused; refusals neither count nor lengthen
 * the block. Every answer carries the credential's budget in the `Ratelimit` and
 * `Ratelimit-Policy` headers.
 *
 * The counts are kept in memory, since counting durably would cost a journal write (an fsync) per
 * call, reads included; {@link ApiRateLimiter.persist} writes them to the store when the emulator
 * stops, so a restart keeps every window and block.
 */

/** A limit: `limit` calls per `windowSeconds`, and a block of `windowSeconds` past it. */
export interface ApiRateLimit {
  limit: number;
  windowSeconds: number;
}

/** Contract: "1,200 calls per 300 seconds per credential". */
export const DEFAULT_API_RATE_LIMIT: ApiRateLimit = { limit: 1200, windowSeconds: 300 };

/** The form `--api-rate-limit` and the `apiRateLimit` option take, for messages. */
export const API_RATE_LIMIT_FORM = 'REQUESTS/SECONDS (two whole numbers from 1, like 1200/300) or off';

/**
 * Reads `REQUESTS/SECONDS` or `off` (the command line's `--api-rate-limit`); throws an error that
 * names `field` and the form expected.
 */
export function parseApiRateLimit(text: string, field = '--api-rate-limit'): ApiRateLimit | 'off' {
  if (text === 'off') return 'off';
  const match = /^(\d{1,9})\/(\d{1,9})$/.exec(text);
  const limit = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (!match || limit < 1 || windowSeconds < 1) {
    throw new Error(`${field}: "${text}" must be ${API_RATE_LIMIT_FORM}`);
  }
  return { limit, windowSeconds };
}

/** The answer's budget headers, by lowercase name. */
export type BudgetHeaders = Record<'ratelimit' | 'ratelimit-policy', string>;

interface Window {
  startMs: number;
  count: number;
  /** End of the block a refused call started; `undefined` while there is none. */
  blockedUntilMs: number | undefined;
}

/** A credential's window as the store keeps it. */
interface StoredWindow {
  /** The credential's key (a hash), also the record's id. */
  credential: string;
  start_ms: number;
  count: number;
  blocked_until_ms: number | null;
}

const apiWindows = new Collection<StoredWindow>('api_rate_limit');

/** The verdict on one call: counted with the headers to answer with, or refused. */
export type RateDecision = { allowed: true; headers: BudgetHeaders } | { allowed: false; error: ApiError };

/** Counts calls per credential under one {@link ApiRateLimit}; see the module's comment. */
export class ApiRateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly windowMs: number;

  /** Starts from the windows `store` kept when the emulator last stopped. */
  constructor(
    private readonly rate: ApiRateLimit,
    private readonly clock: Clock,
    store: Store,
  ) {
    this.windowMs = rate.windowSeconds * 1000;
    for (const kept of store.list(apiWindows)) {
      this.windows.set(kept.credential, {
        startMs: kept.start_ms,
        count: kept.count,
        blockedUntilMs: kept.blocked_until_ms ?? undefined,
      });
    }
  }

  /** Writes every window to `store` in one transaction, in place of those it kept. */
  persist(store: Store): void {
    store.write((tx) => {
      for (const kept of store.list(apiWindows)) tx.delete(apiWindows, kept.credential);
      for (const [credential, window] of this.windows) {
        tx.put(apiWindows, credential, {
          credential,
          start_ms: window.startMs,
          count: window.count,
          blocked_until_ms: window.blockedUntilMs ?? null,
        });
      }
    });
  }

  /** Counts a call of `credential` (an opaque key of an authenticated credential), or refuses it. */
  decide(credential: string): RateDecision {
    const now = this.clock.nowMs();
    let window = this.windows.get(credential);
    if (window?.blockedUntilMs !== undefined && now < window.blockedUntilMs) {
      return this.refuse(Math.ceil((window.blockedUntilMs - now) / 1000));
    }
    // A block that ended, like a window that ended, leaves the next call to start a new window.
    if (window === undefined || window.blockedUntilMs !== undefined || now >= window.startMs + this.windowMs) {
      window = { startMs: now, count: 0, blockedUntilMs: undefined };
      this.windows.set(credential, window);
    }
    if (window.count >= this.rate.limit) {
      window.blockedUntilMs = now + this.windowMs;
      return this.refuse(this.rate.windowSeconds);
    }
    window.count++;
    const resetSeconds = Math.ceil((window.startMs + this.windowMs - now) / 1000);
    return { allowed: true, headers: this.headers(this.rate.limit - window.count, resetSeconds) };
  }

  /** Forgets every window and block (the control API's reset). */
  clear(): void {
    this.windows.clear();
  }

  private refuse(retryAfterSeconds: number): RateDecision {
    const seconds = Math.max(1, retryAfterSeconds);
    const error = new ApiError(
      429,
      [
        {
          code: ErrorCode.apiRateLimited,
          message: `rate limited: wait and slow down: more than ${this.rate.limit} calls in ${this.rate.windowSeconds} seconds with these credentials; every call is refused for ${seconds} more seconds`,
        },
      ],
      { 'retry-after': String(seconds), ...this.headers(0, seconds) },
    );
    return { allowed: false, error };
  }

  private headers(left: number, resetSeconds: number): BudgetHeaders {
    return {
      ratelimit: `"default";r=${left};t=${resetSeconds}`,
      'ratelimit-policy': `"default";q=${this.rate.limit};w=${this.rate.windowSeconds}`,
    };
  }
}
