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
}

/** The request log, bounded so a long-running emulator does not grow without end. */
export class RequestLog {
  private entries: LoggedRequest[] = [];
  private next = 1;

  constructor(private readonly capacity = 200_000) {}

  add(entry: Omit<LoggedRequest, 'seq'>): void {
    this.entries.push({ seq: this.next++, ...entry });
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  /** Entries after position `since` (0: all kept). */
  since(since = 0): LoggedRequest[] {
    return this.entries.filter((entry) => entry.seq > since);
  }

  /** The position of the newest entry, for a later `since`. */
  get last(): number {
    return this.next - 1;
  }

  clear(): void {
    this.entries = [];
  }
}
