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
