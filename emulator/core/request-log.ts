/** One API request as the control API's `GET /__emulator/requests` shows it. */
export interface LoggedRequest {
  /** Position in the log, from 1; `?since=` takes the entries after a position. */
  seq: number;
  method: string;
  /** The API path below the base address, like `/client/v4/zones/<id>/page_security`. */
  path: string;
  query: Record<string, string | string[]>;
  /** HTTP status sent; `null` when the connection was reset instead (an injected fault). */
  status: number | null;
  /** Emulator clock time the request arrived. */
  time: string;
  duration_ms: number;
  /** Which kind of credential was presented, never the credential itself. */
  credential: 'token' | 'key' | 'none';
  /** The request's `Content-Type` header as sent; `null` without one. */
  content_type: string | null;
  /**
   * The request's JSON body as parsed; `null` without one (or when the request was refused or
   * reset before its body was read), so a test can check afterwards what a run sent.
   */
  body: unknown;
}

/**
 * The request log, bounded so a long-running emulator does not grow without end: the newest
 * `capacity` entries are kept. Older ones are dropped in batches, once as many have piled up as the
 * log keeps, so that a request costs the same whatever the log holds (dropping one entry at a time
 * moved every kept entry at every request: a run of 50,000 reads on a full log took 20 s, not 4).
 */
export class RequestLog {
  private entries: LoggedRequest[] = [];
  /** Entries before this index are dropped, not yet removed. */
  private start = 0;
  private next = 1;

  constructor(private readonly capacity = 200_000) {}

  add(entry: Omit<LoggedRequest, 'seq'>): void {
    this.entries.push({ seq: this.next++, ...entry });
    if (this.entries.length - this.start > this.capacity) this.start = this.entries.length - this.capacity;
    if (this.start >= this.capacity) {
      this.entries = this.entries.slice(this.start);
      this.start = 0;
    }
  }

  /** Entries after position `since` (0: all kept). */
  since(since = 0): LoggedRequest[] {
    const kept = this.entries.length - this.start;
    // Positions are consecutive: the first entry after `since` is found without a scan.
    const first = this.next - kept;
    return this.entries.slice(this.start + Math.min(kept, Math.max(0, since + 1 - first)));
  }

  /** The position of the newest entry, for a later `since`. */
  get last(): number {
    return this.next - 1;
  }

  clear(): void {
    this.entries = [];
    this.start = 0;
  }
}
