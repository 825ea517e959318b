/**
 * The emulator's clock. No rule reads `Date.now()` directly: rate windows, blocks and the 7-day
 * rule all go through a `Clock`, which the control API moves forward.
 */
export interface Clock {
  /** Milliseconds since the epoch, as the emulator sees it. */
  nowMs(): number;
}

/** Real time plus an offset that only grows (the control API's `advance_seconds`). */
export class OffsetClock implements Clock {
  constructor(
    private offset = 0,
    private readonly realNow: () => number = Date.now,
  ) {}

  nowMs(): number {
    return this.realNow() + this.offset;
  }

  /** The offset from real time, kept in the durable state so a restart keeps the same "now". */
  get offsetMs(): number {
    return this.offset;
  }

  set offsetMs(value: number) {
    this.offset = value;
  }
}

/** Contract: timestamps are ISO 8601 UTC with milliseconds and `Z`. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
