/**
 * Pacing under a limit the service enforces per key (spec 8: 15 certificate issuances per zone
 * per 60 s): a sliding window of the sends this process made, shared by every client in the
 * process, so that one deployment never trips the limit by itself.
 */

/** At most `limit` sends per `windowMs` for `key`. */
export interface PaceLimit {
  key: string;
  limit: number;
  windowMs: number;
}

export class Pacer {
  private static shared: Pacer | undefined;
  private readonly sent = new Map<string, number[]>();
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly sleep: (ms: number) => Promise<void>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The process-wide pacer. */
  static forProcess(sleep: (ms: number) => Promise<void>): Pacer {
    Pacer.shared ??= new Pacer(sleep);
    return Pacer.shared;
  }

  /** Waits until a send for `limit.key` fits the window, then records it. Callers queue in order. */
  acquire(limit: PaceLimit): Promise<void> {
    const previous = this.queues.get(limit.key) ?? Promise.resolve();
    const turn = previous.then(() => this.waitForRoom(limit));
    this.queues.set(limit.key, turn.catch(() => undefined));
    return turn;
  }

  private async waitForRoom(limit: PaceLimit): Promise<void> {
    for (;;) {
      const now = this.now();
      const times = (this.sent.get(limit.key) ?? []).filter((t) => t > now - limit.windowMs);
      if (times.length < limit.limit) {
        times.push(now);
        this.sent.set(limit.key, times);
        return;
      }
      this.sent.set(limit.key, times);
      await this.sleep(times[0]! + limit.windowMs - now + 1);
    }
  }
}
