import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type * as clients from '../clients';
import type { Settings } from '../settings';
import type * as settings from '../settings';
import type * as plan from './plan';
import type { ConnectionsJob, ConnectionsJudge, ConnectionsJudged } from './plan';

/**
 * The policy pack's connections, listed and judged in a worker thread while the pack's main thread
 * lists and judges the scripts. The engine waits idle during the stack validation, so the two
 * kinds use both cores: at 50,000 scripts + 50,000 connections the pack's read and judgement took
 * about 0.65 s of CPU on one thread (bench/RESULTS.md, issue 20). The thread starts once the
 * engine has configured the pack (`warmReview`), so its modules load while the program runs.
 *
 * What crosses between the threads is plain data: the job (`./plan.ts`'s {@link ConnectionsJob},
 * with the client's settings), then the judged impacts, whose samples are bounded; each thread
 * holds a page or two of its own lists, so memory stays flat with the number of detections.
 */

/** What tells this module, run as a worker, that it is the connections' thread. */
const ROLE = 'edgeguard-review-connections';

interface Request {
  id: number;
  settings: Settings;
  job: ConnectionsJob;
}

type Reply = { id: number; judged: ConnectionsJudged } | { id: number; error: string };

/* eslint-disable @typescript-eslint/no-require-imports -- loaded in the worker alone, not by the pack's main thread at its start */
function serve(port: NonNullable<typeof parentPort>): void {
  const { judgeConnections } = require('./plan') as typeof plan;
  const { clientFor } = require('../clients') as typeof clients;
  const { withSettingHint } = require('../settings') as typeof settings;
  port.on('message', ({ id, settings: given, job }: Request) => {
    judgeConnections(clientFor(given), job).then(
      (judged) => port.postMessage({ id, judged } satisfies Reply),
      (error: unknown) => {
        withSettingHint(error);
        port.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies Reply);
      },
    );
  });
}
/* eslint-enable @typescript-eslint/no-require-imports */

if (!isMainThread && parentPort !== null && workerData === ROLE) serve(parentPort);

interface Thread {
  worker: Worker;
  pending: Map<number, { resolve: (judged: ConnectionsJudged) => void; reject: (error: Error) => void }>;
  next: number;
}

let thread: Thread | undefined;

/** The thread, started at the first call; a thread that failed is replaced at the next. */
function started(): Thread {
  if (thread !== undefined) return thread;
  const worker = new Worker(__filename, { workerData: ROLE });
  // The pack's process ends when the engine is done with it, whatever this thread does.
  worker.unref();
  const current: Thread = { worker, pending: new Map(), next: 0 };
  worker.on('message', (reply: Reply) => {
    const waiting = current.pending.get(reply.id);
    current.pending.delete(reply.id);
    if ('error' in reply) waiting?.reject(new Error(reply.error));
    else waiting?.resolve(reply.judged);
  });
  const fail = (error: Error) => {
    if (thread === current) thread = undefined;
    for (const waiting of current.pending.values()) waiting.reject(error);
    current.pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the review's connections thread ended (exit code ${code})`)));
  thread = current;
  return current;
}

/** Starts the connections' thread now, so that its modules load before the first job. */
export function startConnectionsThread(): void {
  started();
}

/** Judges a zone's connections in the connections' thread, with the client's settings. */
export const judgeConnectionsInThread: ConnectionsJudge = (client, job) => {
  const current = started();
  const id = current.next++;
  return new Promise<ConnectionsJudged>((resolve, reject) => {
    current.pending.set(id, { resolve, reject });
    current.worker.postMessage({ id, settings: client.settings, job } satisfies Request);
  });
};
