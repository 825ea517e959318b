import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isMainThread, MessageChannel, parentPort, Worker, workerData, type MessagePort } from 'node:worker_threads';
import { RelayedBudget, relayBudget } from '../client/budget-relay';
import { HttpClient } from '../client/http';
import type { CallBudget } from '../client/pacing';
import type { Settings } from '../settings';
import { lineBytes } from './listing-file';
import { detectedPages, type DetectedKind, type DetectedStatus } from './listed';

/**
 * The review's read ahead lists in a thread of the lowest priority (bench/RESULTS.md, issue 30).
 *
 * The read ahead lists while the engine runs the program, and a TypeScript program spends that
 * time type-checking itself on every core it can get: on 2 cores, a zone of 200,000 scripts (140
 * MB of JSON parsed, its pages written to files) delayed the program by 0.8 s read on the pack's
 * own thread, and by nothing read by a process at the lowest priority, which still ended before
 * the program declared its resources. So the listings are read in a worker thread whose priority
 * is lowered to the least (`nice` 19, Linux: the thread's own, the pack's thread answers the
 * engine at its usual one): it takes what the program leaves of the cores, and all of them when
 * it leaves them idle. Elsewhere the thread keeps the process's priority.
 *
 * The thread reads with a client of its own on the same settings, paced by the process's API
 * budget for the credential (`../client/budget-relay.ts`), and sends each page as the line its
 * file keeps (`./listing-file.ts`), which the pack's thread writes: only that thread touches the
 * files. A thread at the lowest priority can wait long on a busy machine: once the review needs
 * the listings, the read ahead stops the thread and reads the rest itself (`ReadAhead.hurry`).
 */

/** One listing the thread reads. */
export interface ListingSpec {
  zoneId: string;
  hosts: string[];
  kind: DetectedKind;
  status: DetectedStatus;
}

/** What the thread is given. */
interface ThreadData {
  role: typeof ROLE;
  settings: Settings;
  perPage: number;
  listings: ListingSpec[];
  budget: MessagePort;
}

/** What the thread tells: a listing's page, end or failure, and its own priority. */
type ThreadMessage =
  | { kind: 'page'; listing: number; bytes: Uint8Array; items: number }
  | { kind: 'end'; listing: number }
  | { kind: 'failed'; listing: number; message: string }
  | { kind: 'priority'; thread: number | undefined };

const ROLE = 'edgeguard-listings';

/** The lowest priority a thread can be given (`nice` 19). */
export const LOWEST_PRIORITY = 19;

/** What a {@link ListingThread} tells its owner. */
export interface ListingThreadEvents {
  /** A page of listing `listing` (an index of the specs), as its file keeps it. */
  page(listing: number, bytes: Uint8Array, items: number): void;
  /** Listing `listing` has given its last page. */
  end(listing: number): void;
  /** Listing `listing` failed; its other pages will not come. */
  failed(listing: number, message: string): void;
  /** The thread stopped before every listing ended (it failed to start, or died). */
  stopped(): void;
}

/** The compiled module, which a thread can run; `undefined` when this one is not (ts-jest runs the sources). */
export function builtListingThread(): string | undefined {
  return __filename.endsWith('.js') ? __filename : undefined;
}

/** The read ahead's listings, read by a thread of the lowest priority; see the module's comment. */
export class ListingThread {
  private readonly worker: Worker;
  private stopped = false;
  private readonly ended = new Set<number>();
  private calls = 0;
  /** The thread's id for the system, once it has lowered its priority; `undefined` where it could not. */
  readonly threadId: Promise<number | undefined>;

  /**
   * Starts reading `listings` with `settings`, `perPage` items a request, paced by `budget`, in a
   * thread running `file` ({@link builtListingThread}).
   */
  constructor(
    file: string,
    settings: Settings,
    budget: CallBudget,
    perPage: number,
    private readonly listings: readonly ListingSpec[],
    private readonly events: ListingThreadEvents,
  ) {
    const channel = new MessageChannel();
    relayBudget(channel.port1, budget, () => (this.calls += 1));
    const data: ThreadData = { role: ROLE, settings, perPage, listings: [...listings], budget: channel.port2 };
    let priority: (thread: number | undefined) => void = () => undefined;
    this.threadId = new Promise((resolve) => (priority = resolve));
    this.worker = new Worker(file, { workerData: data, transferList: [channel.port2] });
    // The pack ends when the engine is done with it, whatever the thread is reading.
    this.worker.unref();
    this.worker.on('message', (message: ThreadMessage) => {
      if (message.kind === 'priority') return priority(message.thread);
      if (this.stopped) return;
      if (message.kind === 'page') return this.events.page(message.listing, message.bytes, message.items);
      this.ended.add(message.listing);
      if (message.kind === 'end') this.events.end(message.listing);
      else this.events.failed(message.listing, message.message);
      if (this.ended.size === this.listings.length) this.stop();
    });
    const died = () => {
      priority(undefined);
      if (this.stopped) return;
      this.stop();
      this.events.stopped();
    };
    this.worker.on('error', died);
    this.worker.on('exit', died);
  }

  /**
   * The calls the thread has been let make (`../client/budget-relay.ts`), retries included: every
   * page it has given, and those it has asked for and not given.
   */
  get requests(): number {
    return this.calls;
  }

  /** Stops the thread; nothing it reads after is told. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    void this.worker.terminate();
  }
}

/**
 * Lowers the calling thread's priority to {@link LOWEST_PRIORITY}, on Linux, where a thread has
 * its own (`/proc/thread-self` names it); returns its id, or `undefined` where it could not.
 */
function lowerThisThread(): number | undefined {
  try {
    const thread = Number(path.basename(fs.readlinkSync('/proc/thread-self')));
    os.setPriority(thread, LOWEST_PRIORITY);
    return thread;
  } catch {
    return undefined;
  }
}

/** The thread's work: every listing side by side, each page sent as its line. */
async function readListings(data: ThreadData, port: MessagePort): Promise<void> {
  const tell = (message: ThreadMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  tell({ kind: 'priority', thread: lowerThisThread() });
  const client = new HttpClient(data.settings, { budget: new RelayedBudget(data.budget) });
  await Promise.all(
    data.listings.map(async ({ zoneId, hosts, kind, status }, listing) => {
      try {
        for await (const page of detectedPages(client, zoneId, kind, status, hosts, data.perPage)) {
          const bytes = lineBytes(page);
          tell({ kind: 'page', listing, bytes, items: page.length }, [bytes.buffer as ArrayBuffer]);
        }
        tell({ kind: 'end', listing });
      } catch (error) {
        tell({ kind: 'failed', listing, message: (error as Error).message });
      }
    }),
  );
}

if (!isMainThread && parentPort !== null && (workerData as Partial<ThreadData> | undefined)?.role === ROLE) {
  void readListings(workerData as ThreadData, parentPort);
}
