import { z } from 'zod';

/**
 * Pacing under a limit the service enforces per key (spec 8: 15 certificate issuances per zone
 * per 60 s, counting only creates it accepted): a sliding window of the sends made through one
 * pacer, so that one deployment never trips the limit by itself. The clients that send for the
 * same keys share one pacer (`HttpOptions.pacer`).
 *
 * A send holds a slot from before it leaves until its answer settles it. An accepted send is
 * stamped with the time its answer arrived, which is no earlier than the service counted it, so
 * the window here never ends before the service's; a refused send (the service did not count it)
 * gives its slot back. A small margin covers the clocks of two machines.
 */

/** At most `limit` sends per `windowMs` for `key`. */
export interface PaceLimit {
  key: string;
  limit: number;
  windowMs: number;
}

/** A held slot: settle it once the answer is known. */
export interface PaceSlot {
  /** `counted`: the service may have counted the send (accepted, or no answer); `refused`: it did not. */
  settle(outcome: 'counted' | 'refused'): void;
}

/** Kept on top of the service's window, for clocks that differ between client and service. */
const MARGIN_MS = 1_000;

interface Entry {
  /** When the slot counts from; a slot still in flight counts until it settles. */
  at: number;
  inFlight: boolean;
}

/** Paces sends per key; see the module's comment. */
export class Pacer {
  private readonly entries = new Map<string, Entry[]>();
  private readonly queues = new Map<string, Promise<unknown>>();

  /**
   * @param sleep - Waits while the window is full. Default: a real timer.
   * @param now - The clock of the window. Default: `Date.now`.
   */
  constructor(
    private readonly sleep: (ms: number) => Promise<void> = (ms) =>
      new Promise<void>((resolve) => setTimeout(resolve, ms)),
    private readonly now: () => number = Date.now,
  ) {}

  /** Waits until a send for `limit.key` fits the window, then holds a slot for it. Callers queue in order. */
  acquire(limit: PaceLimit): Promise<PaceSlot> {
    const previous = this.queues.get(limit.key) ?? Promise.resolve();
    const turn = previous.then(() => this.waitForRoom(limit));
    this.queues.set(
      limit.key,
      turn.catch(() => undefined),
    );
    return turn;
  }

  private async waitForRoom(limit: PaceLimit): Promise<PaceSlot> {
    for (;;) {
      const now = this.now();
      const window = limit.windowMs + MARGIN_MS;
      const live = (this.entries.get(limit.key) ?? []).filter((entry) => entry.inFlight || entry.at > now - window);
      this.entries.set(limit.key, live);
      if (live.length < limit.limit) {
        const entry: Entry = { at: now, inFlight: true };
        live.push(entry);
        return {
          settle: (outcome) => {
            entry.inFlight = false;
            entry.at = this.now();
            if (outcome === 'refused') {
              const list = this.entries.get(limit.key) ?? [];
              this.entries.set(
                limit.key,
                list.filter((other) => other !== entry),
              );
            }
          },
        };
      }
      // Every slot is taken: wait for the oldest settled one to leave the window, or briefly for one in flight.
      const settled = live.filter((entry) => !entry.inFlight).map((entry) => entry.at);
      const wait = settled.length > 0 ? Math.min(...settled) + window - now + 1 : 100;
      await this.sleep(Math.max(wait, 1));
    }
  }
}

/**
 * The service's API limit (contract, "API rate limit"): calls per window per credential, for all
 * of a user's tools together. Every answer reports the budget left (`Ratelimit: "default";r=<left>;
 * t=<seconds>`) and the limit (`Ratelimit-Policy: "default";q=<limit>;w=<window seconds>`); an
 * {@link ApiBudget} learns from them and spaces the calls of its credential so that a run alone
 * never draws a 429. Other processes on the same credential spend the same budget unseen until
 * the next answer: their 429s are waited out by the retry policy (`retry.ts`).
 */

/** A limit of `limit` calls per `windowMs`. */
export interface ApiPolicy {
  limit: number;
  windowMs: number;
}

/** The service's documented limit, assumed until an answer says otherwise: 1,200 calls per 300 s. */
export const DEFAULT_API_POLICY: ApiPolicy = { limit: 1200, windowMs: 300_000 };

/** What one answer said of its credential's budget. */
export interface BudgetReport {
  /** Calls left in the window after this one (`r`). */
  remaining: number;
  /** Whole seconds until the window resets or the block ends (`t`). */
  resetSeconds: number;
  /** The limit (`Ratelimit-Policy`), when the answer carried it. */
  policy: ApiPolicy | undefined;
}

const wholeNumber = z
  .string()
  .regex(/^\d{1,9}$/)
  .transform(Number);

/** `"name";k=v;k=v` (a structured header's item and its parameters) as its parameters. */
const parameters = (text: string) =>
  Object.fromEntries(
    text
      .split(';')
      .slice(1)
      .map((part) => part.trim().split('=', 2)),
  ) as Record<string, string | undefined>;

const ratelimitHeader = z
  .string()
  .transform(parameters)
  .pipe(z.object({ r: wholeNumber, t: wholeNumber }));

const policyHeader = z
  .string()
  .transform(parameters)
  .pipe(z.object({ q: wholeNumber.refine((q) => q >= 1), w: wholeNumber.refine((w) => w >= 1) }));

/**
 * The budget an answer's headers report (undici's lowercase names), or `undefined` when its
 * `Ratelimit` header is missing or malformed: a service, proxy or emulator without the limit must
 * not fail a call. A malformed `Ratelimit-Policy` alone is left out.
 */
export function budgetReport(headers: Record<string, string | string[] | undefined>): BudgetReport | undefined {
  const budget = ratelimitHeader.safeParse(headers.ratelimit);
  if (!budget.success) return undefined;
  const policy = policyHeader.safeParse(headers['ratelimit-policy']);
  return {
    remaining: budget.data.r,
    resetSeconds: budget.data.t,
    policy: policy.success ? { limit: policy.data.q, windowMs: policy.data.w * 1000 } : undefined,
  };
}

/** What a budget knows at one moment: the input of {@link paceDelayMs}. */
export interface BudgetView {
  /** Calls left in the window, less those sent since the answer that said so (an estimate on the safe side). */
  left: number;
  /** When the window resets or the block ends, on the client's clock. */
  resetAtMs: number;
  policy: ApiPolicy;
  /** When this budget's last call left; `undefined` before its first. */
  lastSentMs: number | undefined;
}

/** Kept after the reset the service announced, for timers that fire a little early. */
const RESET_MARGIN_MS = 250;

/**
 * How long to wait before the next call, so the budget lasts until its reset:
 * - nothing known, or the window over: no wait (the answer will tell);
 * - nothing left: until the reset, plus {@link RESET_MARGIN_MS};
 * - less left than a tenth of the limit scaled by the share of the window still to run (the
 *   budget runs low for the time left): the calls are spaced evenly, `time left / calls left`
 *   apart (at least `window / (limit / 10)`: a tenth of the budget's pace), so that the last
 *   call is spent as the window ends and other processes on the credential keep a share;
 * - otherwise: no wait; a run that fits its budget goes at full speed.
 */
export function paceDelayMs(view: BudgetView | undefined, nowMs: number): number {
  if (view === undefined) return 0;
  const timeLeft = view.resetAtMs - nowMs;
  if (timeLeft <= 0) return 0;
  if (view.left <= 0) return timeLeft + RESET_MARGIN_MS;
  const reserve = (view.policy.limit / 10) * (timeLeft / view.policy.windowMs);
  if (view.left >= reserve || view.lastSentMs === undefined) return 0;
  return Math.max(0, Math.ceil(view.lastSentMs + timeLeft / view.left - nowMs));
}

/**
 * The shortest pause between the reads of a wait on the service's own work (`HttpClient.poll`),
 * so that a wait spends at most a tenth of the budget: `window / (limit / 10)`, 2,500 ms under the
 * default 1,200 calls per 300 s.
 */
export function pollIntervalFloorMs(policy: ApiPolicy): number {
  return Math.ceil(policy.windowMs / (policy.limit / 10));
}

/**
 * How long 429s may keep one request waiting in all, when the caller sets no limit: a whole block
 * (one window) drawn by this run, another drawn right after by other processes on the same
 * credential, and a minute of margin: 660,000 ms under the default 300 s window.
 */
export function rateLimitWaitAllowanceMs(policy: ApiPolicy): number {
  return 2 * policy.windowMs + 60_000;
}

/** A call counted against the budget: settle it with its answer's report once the answer is known. */
export interface BudgetTicket {
  /** `undefined`: no answer, or one without a budget. */
  settle(report: BudgetReport | undefined): void;
}

/** What paces a client's calls under its credential's API limit: an {@link ApiBudget}. */
export interface CallBudget {
  /** The limit the service reported last, or {@link DEFAULT_API_POLICY} before any report. */
  readonly policy: ApiPolicy;
  /** Waits until a call fits the budget, then counts it as sent. */
  take(): Promise<BudgetTicket>;
  /** Says, once, that a call waits `ms` for the API limit. */
  waiting(ms: number): void;
}

/**
 * Reports in a window differ by the rounding of `t` (a second) and the time answers take; a report
 * more than this later than the known reset is of a later window (or a block).
 */
const SAME_WINDOW_MS = 2_000;

/** A wait shorter than this is not worth a line. */
const NOTICE_AFTER_MS = 1_000;

/**
 * The API budget of one credential on one service, as this process knows it; see the module's
 * comment on the API limit. The process's clients of one credential share one
 * (`HttpOptions.budget`), so what one learns paces them all. Until the service has answered once,
 * one call goes at a time: other jobs on the credential may have spent most of the window, and the
 * first answer says what they left.
 */
export class ApiBudget implements CallBudget {
  private view: BudgetView | undefined;
  /** Counts the windows seen, so an answer to a call sent in an earlier one is known for stale. */
  private epoch = 0;
  private inFlight = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private told = false;
  /** Whether a call has settled: its answer reported the budget, or said nothing of it. */
  private answered = false;
  private heard: () => void = () => undefined;
  /** Settles when the first call settles: what the calls behind the process's first wait for. */
  private readonly firstAnswer = new Promise<void>((resolve) => {
    this.heard = resolve;
  });

  /**
   * @param sleep - Waits between calls. Default: a real timer.
   * @param now - The clock of the budget. Default: `Date.now`.
   * @param notice - Where the one line about waiting goes. Default: stderr.
   */
  constructor(
    private readonly sleep: (ms: number) => Promise<void> = (ms) =>
      new Promise<void>((resolve) => setTimeout(resolve, ms)),
    private readonly now: () => number = Date.now,
    private readonly notice: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
  ) {}

  /** The limit the service reported last, or {@link DEFAULT_API_POLICY} before any report. */
  get policy(): ApiPolicy {
    return this.view?.policy ?? DEFAULT_API_POLICY;
  }

  /** Waits until a call fits the budget ({@link paceDelayMs}), then counts it as sent. Callers queue in order. */
  take(): Promise<BudgetTicket> {
    const turn = this.queue.then(() => this.waitForRoom());
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Says, once for the life of the budget, that a call waits `ms` for the API limit (the pacing
   * here, or a 429's `Retry-After` in the retry policy). Later waits say nothing: a long run would
   * otherwise print a line per call.
   */
  waiting(ms: number): void {
    if (this.told || ms < NOTICE_AFTER_MS) return;
    this.told = true;
    const { limit, windowMs } = this.policy;
    // A wait that spaces the calls left in the window is the first of many: say how long they go on.
    const resetSeconds = this.view === undefined ? 0 : Math.ceil((this.view.resetAtMs - this.now()) / 1000);
    const spaced =
      resetSeconds > Math.ceil(ms / 1000)
        ? `; its window resets in ${resetSeconds} s, and until then the calls are spaced to fit it`
        : '';
    this.notice(
      `edgeguard: waiting ${Math.ceil(ms / 1000)} s for the service's API limit (${limit} calls per ${windowMs / 1000} s ` +
        `per credential, shared by every tool and job using these credentials)${spaced}; later waits for it are not reported`,
    );
  }

  private async waitForRoom(): Promise<BudgetTicket> {
    for (;;) {
      // Nothing known and a call on its way: its answer tells what the budget is.
      if (this.view === undefined && !this.answered && this.inFlight > 0) {
        await this.firstAnswer;
        continue;
      }
      const now = this.now();
      if (this.view !== undefined && now >= this.view.resetAtMs) this.newWindow(now);
      const delay = paceDelayMs(this.view, now);
      if (delay <= 0) break;
      this.waiting(delay);
      await this.sleep(delay);
    }
    if (this.view !== undefined) {
      this.view.left--;
      this.view.lastSentMs = this.now();
    }
    this.inFlight++;
    const epoch = this.epoch;
    let settled = false;
    return {
      settle: (report) => {
        if (settled) return;
        settled = true;
        this.inFlight--;
        if (report !== undefined) this.learn(report, epoch);
        if (!this.answered) {
          // Without a report (a service without the limit, or no answer), nothing is paced.
          this.answered = true;
          this.heard();
        }
      },
    };
  }

  /**
   * The window the service announced is over: until an answer says more, assume the whole limit
   * and a window starting now, which ends no earlier than the service's.
   */
  private newWindow(now: number): void {
    const policy = this.policy;
    this.view = { left: policy.limit, resetAtMs: now + policy.windowMs, policy, lastSentMs: undefined };
    this.epoch++;
  }

  /**
   * Learns from an answer to a call sent in window `epoch`. The calls still in flight may have
   * been counted before it or not: they are taken as spent.
   */
  private learn(report: BudgetReport, epoch: number): void {
    const now = this.now();
    const policy = report.policy ?? this.policy;
    const resetAtMs = now + report.resetSeconds * 1000;
    const left = report.remaining - this.inFlight;
    const view = this.view;
    const later = view === undefined || resetAtMs > view.resetAtMs + SAME_WINDOW_MS;
    const earlier = view !== undefined && resetAtMs < view.resetAtMs - SAME_WINDOW_MS;
    if (earlier && epoch !== this.epoch) return;
    if (view === undefined || later || earlier) {
      // A later window or a block; or, for a call sent in this window, the service's window began
      // before this process assumed it did (another process called first).
      if (later) this.epoch++;
      this.view = { left, resetAtMs, policy, lastSentMs: view?.lastSentMs };
      return;
    }
    view.left = Math.min(view.left, left);
    view.resetAtMs = Math.max(view.resetAtMs, resetAtMs);
    view.policy = policy;
  }
}
