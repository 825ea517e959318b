import { Agent, errors as undiciErrors, request, type Dispatcher } from 'undici';
import { z } from 'zod';
import { fieldPath } from '../../rules/zod';
import type { Settings } from '../settings';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIResponseError,
  RateLimitError,
  type RequestDescription,
} from './errors';
import {
  ApiBudget,
  budgetReport,
  type CallBudget,
  Pacer,
  pollIntervalFloorMs,
  rateLimitWaitAllowanceMs,
  type PaceLimit,
} from './pacing';
import { decideRetry, FIRST_ATTEMPT, type AttemptFailure, type RetryPolicy } from './retry';
import { parseJsonBody } from './json-body';

/**
 * The one HTTP layer of the client: a keep-alive connection pool shared by the whole process
 * (one dynamic-provider process serves every resource of a deployment), every response parsed
 * with zod, every request paced by its credential's API budget (`ApiBudget` in `pacing.ts`, which
 * learns from each answer's headers), and the one retry policy of the code base (its decisions in
 * `retry.ts`). Nothing else sleeps or retries.
 */

/**
 * Spec 2.1 `result_info`. Every field is read when it is there and none is required: the vendor's
 * schema declares them all optional numbers on most lists (its custom hostnames, pools and alert
 * policies have no `total_pages`), so paging ends on what is known ({@link HttpClient.pages}).
 */
export const resultInfoSchema = z.object({
  page: z.number().optional(),
  per_page: z.number().optional(),
  count: z.number().optional(),
  total_count: z.number().optional(),
  total_pages: z.number().optional(),
});
export type ResultInfo = z.output<typeof resultInfoSchema>;

/**
 * The `result` of a delete, whichever the dialect: `{id}` (the contract's, or the vendor's bare
 * custom hostname delete), null, or nothing ({@link RequestSpec.acknowledgement}).
 */
export const deletedSchema = z.looseObject({ id: z.string().optional() }).nullish();

const errorEntry = z.object({ code: z.number().int(), message: z.string() });
const failureEnvelope = z.object({ success: z.literal(false), errors: z.array(errorEntry) });

/** Options of the retry policy and the pool; every one has a default. */
export interface HttpOptions {
  /**
   * Attempts per request, counting the first. Default 8: when a quarter of attempts fail (20%
   * 5xx plus 5% resets, the fault budget EdgeGuard is tested under) a request fails with
   * probability 0.24^8 ≈ 1e-5, so a deployment of a few dozen requests almost never does (with
   * 5 attempts, 0.24^5 ≈ 8e-4: about one deployment in 50). A lasting failure surfaces after at
   * most ~24 s of back-off. A service that cannot be reached at all (connection refused, no such
   * host) gets at most 2 attempts.
   */
  maxAttempts?: number;
  /** Timeout of one attempt, in ms. Default 30,000. */
  timeoutMs?: number;
  /** Back-off: `baseMs * 2^(attempt-1)` with jitter, at most `capMs`. Defaults 250 and 8,000. */
  backoff?: { baseMs: number; capMs: number };
  /**
   * How long 429s may keep a request waiting in all, in ms, before it fails. Default: two windows
   * of the API limit and a minute (`rateLimitWaitAllowanceMs`), from the window the service
   * reported, else its documented 300 s: 660,000. It covers a whole block and another drawn
   * right after by other processes on the same credential.
   */
  maxRateLimitWaitMs?: number;
  /**
   * The API budget of the client's credential ({@link ApiBudget}), which paces every request.
   * Clients of one credential must share one (the process's clients do: `shared.ts`). Default:
   * a budget of this client alone, on its `sleep` and `now`, telling its wait on stderr.
   */
  budget?: CallBudget;
  /** Replaces the process-wide pool (tests, benchmarks). */
  dispatcher?: Dispatcher;
  /** Replaces the real sleep (tests of the policy). */
  sleep?: (ms: number) => Promise<void>;
  /** Replaces the real clock of {@link HttpClient.poll}, of `Retry-After` dates and of the default pacer (tests). */
  now?: () => number;
  /**
   * Paces the requests that ask for it ({@link RequestSpec.pace}). Clients that send for the same
   * keys (a process's clients of one account) must share one. Default: a pacer of this client
   * alone, on its `sleep` and `now`.
   */
  pacer?: Pacer;
}

/**
 * Options of {@link HttpClient.poll}, for values of type `T`. No pause is shorter than a tenth of
 * the API budget's pace (`pollIntervalFloorMs`: 2,500 ms under the default 1,200 calls per 300 s).
 */
export interface PollOptions<T = unknown> {
  /** How long to wait in all, in ms. */
  timeoutMs: number;
  /** The first pause between reads, in ms; each next pause doubles, up to `maxIntervalMs`. Default 2,500 (the floor). */
  intervalMs?: number;
  /** The longest pause between reads, in ms. Default 10,000. */
  maxIntervalMs?: number;
  /**
   * Called after every read with what it read and how long the wait has lasted, in ms, so that a
   * caller can show its progress. Default: nothing is shown.
   */
  onRead?: (value: T, waitedMs: number) => void;
}

/** One request. */
export interface RequestSpec<S extends z.ZodType> {
  /** What a user would call it, for messages: `create CSP policy`. */
  operation: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Below the base address, without a leading slash. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Schema of the envelope's `result`. */
  result: S;
  /**
   * For a create (a POST that is not idempotent): called before repeating the request after an
   * ambiguous failure — no response, a timeout, a 5xx, a 409 — since the service may have applied
   * it. What it finds is returned instead of creating a second object.
   */
  recover?: () => Promise<z.output<S> | undefined>;
  /** Pace the request under a rate limit shared by the process (custom hostname issuance). */
  pace?: PaceLimit;
  /**
   * The request only needs to hear that it was done (a delete). Besides the envelope, the answers
   * the vendor's schema gives such operations are read as done: no body at all (HTTP 204, its
   * policy delete), an envelope without `result` (its alert policy delete), or a bare JSON object
   * without the envelope (its custom hostname delete answers `{id}`). `result` then parses what
   * came: the envelope's `result`, the bare object, or `undefined`.
   */
  acknowledgement?: true;
}

/** A parsed answer. */
export interface Answer<T> {
  result: T;
  resultInfo: ResultInfo | undefined;
}

let sharedDispatcher: Dispatcher | undefined;

/** The process-wide keep-alive pool. */
export function processDispatcher(): Dispatcher {
  sharedDispatcher ??= new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 32 });
  return sharedDispatcher;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How {@link HttpClient.pages} reads a paged list, beside `prefetch`. */
export interface PageOptions {
  /** Each next page asked for as soon as a page arrives ({@link HttpClient.pages}). */
  prefetch?: boolean;
  /** Called as each page is asked for, before its request is sent (its retries not counted again). */
  asked?: () => void;
  /** Once aborted, no next page is asked for: the list ends with the signal's reason. */
  signal?: AbortSignal;
  /** The first page asked for, 1 unless the pages before it were read already (by another process). */
  firstPage?: number;
}

/** The HTTP layer bound to one set of settings. */
export class HttpClient {
  private readonly policy: Omit<RetryPolicy, 'maxRateLimitWaitMs'>;
  private readonly timeoutMs: number;
  private readonly dispatcher: Dispatcher;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly pacer: Pacer;
  /** The API budget that paces this client's calls ({@link HttpOptions.budget}). */
  readonly budget: CallBudget;
  private readonly maxRateLimitWaitMs: number | undefined;

  constructor(
    readonly settings: Settings,
    options: HttpOptions = {},
  ) {
    this.policy = {
      maxAttempts: options.maxAttempts ?? 8,
      backoff: options.backoff ?? { baseMs: 250, capMs: 8_000 },
    };
    this.maxRateLimitWaitMs = options.maxRateLimitWaitMs;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.dispatcher = options.dispatcher ?? processDispatcher();
    this.sleep = options.sleep ?? realSleep;
    this.now = options.now ?? Date.now;
    this.pacer = options.pacer ?? new Pacer(this.sleep, this.now);
    this.budget = options.budget ?? new ApiBudget(this.sleep, this.now);
  }

  /** Sends `spec` under the retry policy and returns its parsed result. */
  async send<S extends z.ZodType>(spec: RequestSpec<S>): Promise<Answer<z.output<S>>> {
    const description: RequestDescription = {
      operation: spec.operation,
      method: spec.method,
      path: withQuery(spec.path, spec.query),
    };
    let state = FIRST_ATTEMPT;
    for (;;) {
      let failure: APIError | APIConnectionError;
      try {
        return await this.pacedAttempt(spec, description);
      } catch (error) {
        if (!(error instanceof APIError || error instanceof APIConnectionError)) throw error;
        failure = error;
      }
      const policy: RetryPolicy = {
        ...this.policy,
        maxRateLimitWaitMs: this.maxRateLimitWaitMs ?? rateLimitWaitAllowanceMs(this.budget.policy),
      };
      const decision = decideRetry(attemptFailure(failure), state, {
        recoverable: spec.recover !== undefined,
        policy,
        random: Math.random,
        nowMs: this.now(),
      });
      if (decision.kind === 'fail') throw failure;
      // A 429 of the API limit leaves nothing in the budget; one of another limit (issuance) does.
      if (failure instanceof RateLimitError && budgetReport(failure.headers)?.remaining === 0) {
        this.budget.waiting(decision.afterMs);
      }
      await this.sleep(decision.afterMs);
      state = decision.next;
      if (decision.kind === 'recover-then-retry') {
        const found = await spec.recover?.();
        if (found !== undefined) return { result: found, resultInfo: undefined };
      }
    }
  }

  /**
   * The pages of a paged list (`page`/`per_page`), each as the array of its items, as an async
   * iterator. With `prefetch`, the next page is asked for as soon as a page arrives, while its items
   * are being consumed, so the service's time and the caller's overlap (one request ahead, never
   * past the last page; a caller that stops early leaves at most that one unused). Default: a page
   * is asked for when the caller reaches it. See {@link PageOptions} for `asked` and `signal`.
   */
  async *pages<S extends z.ZodType>(
    spec: Omit<RequestSpec<z.ZodArray<S>>, 'method' | 'recover' | 'pace'>,
    perPage: number,
    options: PageOptions = {},
  ): AsyncGenerator<Array<z.output<S>>> {
    const fetch = (page: number) => {
      // Aborted: no page asked for after; the one in flight, if any, is answered and dropped.
      options.signal?.throwIfAborted();
      options.asked?.();
      const answer = this.send({ ...spec, method: 'GET', query: { ...spec.query, page, per_page: perPage } });
      // Its failure is thrown where the page is awaited; until then it must not count as unhandled.
      answer.catch(() => undefined);
      return answer;
    };
    const first = options.firstPage ?? 1;
    let next = fetch(first);
    for (let page = first; ; page++) {
      const answer = await next;
      const last = isLastPage(answer.resultInfo, page, perPage, answer.result.length);
      if (!last && options.prefetch) next = fetch(page + 1);
      yield answer.result;
      if (last) return;
      if (!options.prefetch) next = fetch(page + 1);
    }
  }

  /** Every item of a paged list, as {@link pages} reads them. */
  async *paginate<S extends z.ZodType>(
    spec: Omit<RequestSpec<z.ZodArray<S>>, 'method' | 'recover' | 'pace'>,
    perPage: number,
    options: { prefetch?: boolean } = {},
  ): AsyncGenerator<z.output<S>> {
    for await (const page of this.pages(spec, perPage, options)) yield* page;
  }

  /**
   * Reads again until `done` or the time runs out, pausing between reads; the pauses start short
   * and double, so a quick change is seen quickly. For waiting on the service's own work (a
   * hostname's validation), which is not a retry. The caller has just read `first`.
   */
  async poll<T>(
    first: T,
    read: () => Promise<T>,
    done: (value: T) => boolean,
    options: PollOptions<T>,
  ): Promise<{ value: T; reached: boolean }> {
    const started = this.now();
    const deadline = started + options.timeoutMs;
    let interval = options.intervalMs;
    let value = first;
    while (!done(value)) {
      const left = deadline - this.now();
      if (left <= 0) return { value, reached: false };
      // The floor follows the limit the service last reported.
      const floor = pollIntervalFloorMs(this.budget.policy);
      const pause = Math.max(interval ?? floor, floor);
      await this.sleep(Math.min(pause, left));
      interval = Math.min(pause * 2, Math.max(options.maxIntervalMs ?? 10_000, floor));
      value = await read();
      options.onRead?.(value, this.now() - started);
    }
    return { value, reached: true };
  }

  private headers(hasBody: boolean): Record<string, string> {
    const credentials = this.settings.credentials;
    const headers: Record<string, string> =
      credentials.kind === 'token'
        ? { authorization: `Bearer ${credentials.token}` }
        : { 'x-auth-email': credentials.email, 'x-auth-key': credentials.key };
    if (hasBody) headers['content-type'] = 'application/json';
    headers.accept = 'application/json';
    return headers;
  }

  /** One attempt, holding a pacer slot for it when the request is paced. */
  private async pacedAttempt<S extends z.ZodType>(
    spec: RequestSpec<S>,
    description: RequestDescription,
  ): Promise<Answer<z.output<S>>> {
    if (!spec.pace) return this.attempt(spec, description);
    const slot = await this.pacer.acquire(spec.pace);
    try {
      const answer = await this.attempt(spec, description);
      slot.settle('counted');
      return answer;
    } catch (error) {
      // A 4xx was refused before it counted (spec 8: only accepted creates count); anything else
      // may have been applied.
      slot.settle(error instanceof APIError && error.status < 500 ? 'refused' : 'counted');
      throw error;
    }
  }

  private async attempt<S extends z.ZodType>(
    spec: RequestSpec<S>,
    description: RequestDescription,
  ): Promise<Answer<z.output<S>>> {
    const url = `${this.settings.baseUrl}/${description.path}`;
    const ticket = await this.budget.take();
    let response: Dispatcher.ResponseData;
    const chunks: Uint8Array[] = [];
    try {
      response = await request(url, {
        method: spec.method,
        dispatcher: this.dispatcher,
        headers: this.headers(spec.body !== undefined),
        ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // Kept as its chunks: a long body is parsed without being made one string (./json-body.ts).
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) chunks.push(chunk);
    } catch (error) {
      ticket.settle(undefined);
      const name = (error as Error).name;
      if (
        name === 'TimeoutError' ||
        error instanceof undiciErrors.HeadersTimeoutError ||
        error instanceof undiciErrors.BodyTimeoutError
      ) {
        throw new APIConnectionTimeoutError(
          description,
          `no answer within ${this.timeoutMs} ms`,
          this.settings.baseUrl,
        );
      }
      const code = errorCode(error);
      throw new APIConnectionError(
        description,
        code ? `${code} (${(error as Error).message})` : (error as Error).message,
        this.settings.baseUrl,
        code,
      );
    }
    ticket.settle(budgetReport(response.headers));
    let json: unknown;
    let isJson = true;
    try {
      json = parseJsonBody(chunks);
    } catch {
      json = undefined;
      isJson = false;
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const parsed = failureEnvelope.safeParse(json);
      throw APIError.of(response.statusCode, parsed.success ? parsed.data.errors : [], description, response.headers);
    }
    const envelope = (
      spec.acknowledgement && isJson ? acknowledgement(spec.result) : successEnvelope(spec.result)
    ).safeParse(json);
    if (!envelope.success) {
      const issue = envelope.error.issues[0];
      throw new APIResponseError(
        `${description.operation} (${description.method} ${description.path}): the response is not what the API promises: ${issue ? `${fieldPath(issue.path, 'body')}: ${issue.message}` : 'not JSON'}`,
      );
    }
    const data = envelope.data as { result: z.output<S>; result_info?: ResultInfo };
    return { result: data.result, resultInfo: data.result_info };
  }
}

/**
 * The success envelope around `result`, made once per result schema: zod compiles an object schema
 * when it first parses with it, which costs about 40 µs, far more than a parse (bench/RESULTS.md).
 */
const envelopes = new WeakMap<z.ZodType, z.ZodType>();
function successEnvelope(result: z.ZodType): z.ZodType {
  let envelope = envelopes.get(result);
  if (envelope === undefined) {
    envelope = z.object({ success: z.literal(true), result, result_info: resultInfoSchema.optional() });
    envelopes.set(result, envelope);
  }
  return envelope;
}

/**
 * What a done-only request may be answered with ({@link RequestSpec.acknowledgement}): nothing, an
 * envelope whose `result` may be absent, or a bare object; each read as `{result}`.
 */
const acknowledgements = new WeakMap<z.ZodType, z.ZodType>();
function acknowledgement(result: z.ZodType): z.ZodType {
  let schema = acknowledgements.get(result);
  if (schema === undefined) {
    // The bare object is what `result` reads; zod types a pipe's input as what feeds it.
    const bare = result as z.ZodType<unknown, Record<string, unknown>>;
    schema = z.union([
      z.undefined().transform(() => ({ result: undefined })),
      z.object({ success: z.literal(true), result: result.optional(), result_info: resultInfoSchema.optional() }),
      z
        .record(z.string(), z.unknown())
        .refine((body) => !('success' in body), 'an envelope must say success: true')
        .pipe(bare)
        .transform((read) => ({ result: read })),
    ]);
    acknowledgements.set(result, schema);
  }
  return schema;
}

/**
 * Whether a page is a list's last: it is empty; or `result_info` says so (`total_pages`, else
 * `total_count`); or, when it says neither, the page is short (fewer items than asked for). A list
 * answered without `result_info` is answered whole.
 */
export function isLastPage(info: ResultInfo | undefined, page: number, perPage: number, items: number): boolean {
  if (items === 0 || info === undefined) return true;
  if (info.total_pages !== undefined) return page >= info.total_pages;
  if (info.total_count !== undefined) return page * perPage >= info.total_count;
  return items < perPage;
}

function withQuery(path: string, query: RequestSpec<z.ZodType>['query']): string {
  const entries = Object.entries(query ?? {}).filter(
    (entry): entry is [string, string | number] => entry[1] !== undefined,
  );
  if (entries.length === 0) return path;
  return `${path}?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
}

/** The system error code of a failed request (undici puts it on the error or on its cause). */
function errorCode(error: unknown): string | undefined {
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  return err.code ?? err.cause?.code;
}

/** A failure as the retry policy sees it. */
function attemptFailure(failure: APIError | APIConnectionError): AttemptFailure {
  if (failure instanceof APIError)
    return { kind: 'status', status: failure.status, retryAfter: failure.headers['retry-after'] };
  if (failure instanceof APIConnectionTimeoutError) return { kind: 'timeout' };
  return { kind: 'connection', code: failure.code };
}
