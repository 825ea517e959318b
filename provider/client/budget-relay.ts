import type { MessagePort } from 'node:worker_threads';
import { DEFAULT_API_POLICY, type ApiPolicy, type BudgetReport, type BudgetTicket, type CallBudget } from './pacing';

/**
 * A worker thread's calls paced by its process's API budget: the service counts a credential's
 * calls whoever sends them, and a process's clients of one credential share one budget
 * (`shared.ts`), so a thread that sends for the process asks that budget for each call over a
 * message port ({@link RelayedBudget}) and tells it what the answer said ({@link relayBudget}).
 */

/** What a relayed budget sends to the process's. */
type Asked =
  | { kind: 'take'; id: number }
  | { kind: 'settle'; id: number; report: BudgetReport | undefined }
  | { kind: 'waiting'; ms: number };

/** What the process's budget answers: a call may go, under this policy. */
interface Granted {
  id: number;
  policy: ApiPolicy;
}

/**
 * Answers a {@link RelayedBudget} on the other end of `port` with `budget`, until the port closes,
 * calling `granted` as each call is let go. The port does not keep the process alive. When the
 * other end goes (the thread ended or was terminated), the calls it was granted and did not settle
 * are settled unanswered, and a call granted after is settled at once: none stays in flight, which
 * would lower every later budget by as many calls and, before a first answer, hold every call.
 */
export function relayBudget(port: MessagePort, budget: CallBudget, granted: () => void = () => undefined): void {
  const tickets = new Map<number, BudgetTicket>();
  let closed = false;
  port.on('close', () => {
    closed = true;
    for (const ticket of tickets.values()) ticket.settle(undefined);
    tickets.clear();
  });
  port.on('message', (asked: Asked) => {
    if (asked.kind === 'waiting') budget.waiting(asked.ms);
    else if (asked.kind === 'settle') {
      tickets.get(asked.id)?.settle(asked.report);
      tickets.delete(asked.id);
    } else {
      void budget.take().then((ticket) => {
        if (closed) {
          ticket.settle(undefined);
          return;
        }
        tickets.set(asked.id, ticket);
        granted();
        port.postMessage({ id: asked.id, policy: budget.policy } satisfies Granted);
      });
    }
  });
  port.unref();
}

/** A worker thread's side of {@link relayBudget}: the process's budget, asked over `port`. */
export class RelayedBudget implements CallBudget {
  private granted: ApiPolicy = DEFAULT_API_POLICY;
  private next = 0;
  private readonly waitingFor = new Map<number, (ticket: BudgetTicket) => void>();

  constructor(private readonly port: MessagePort) {
    port.on('message', ({ id, policy }: Granted) => {
      this.granted = policy;
      const resolve = this.waitingFor.get(id);
      this.waitingFor.delete(id);
      resolve?.({ settle: (report) => this.send({ kind: 'settle', id, report }) });
    });
    port.unref();
  }

  /** The limit the process's budget knew when it last let a call go. */
  get policy(): ApiPolicy {
    return this.granted;
  }

  take(): Promise<BudgetTicket> {
    const id = this.next++;
    // Kept alive while a call waits for its turn.
    this.port.ref();
    return new Promise<BudgetTicket>((resolve) => {
      this.waitingFor.set(id, (ticket) => {
        if (this.waitingFor.size === 0) this.port.unref();
        resolve(ticket);
      });
      this.send({ kind: 'take', id });
    });
  }

  waiting(ms: number): void {
    this.send({ kind: 'waiting', ms });
  }

  private send(asked: Asked): void {
    this.port.postMessage(asked);
  }
}
