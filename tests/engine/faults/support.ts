import type { LoggedRequest } from '../../../emulator/core/request-log';
import type { TestEmulator } from '../../helpers/emulator';

/**
 * What the fault tests share: counting the faults the emulator injected (from its request log),
 * and reading what the emulator holds with a token it accepts.
 */

/** The methods that can change state. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The path below `/client/v4/`, and the query if any: `zones/<id>/custom_hostnames`. */
export function apiPath(entry: Pick<LoggedRequest, 'path'>): string {
  return entry.path.replace(/^\/client\/v4\//, '');
}

/** Injected faults in a stretch of the log: 5xx answers, and resets (status `null`). */
export interface FaultCount {
  /** Requests served in the stretch. */
  requests: number;
  /** Answered with an injected 503. */
  errors: number;
  /** Connection reset after the request was handled (the response was lost). */
  resets: number;
  /** Of the resets, those on a write (the service applied it and the client never heard). */
  lostWrites: number;
}

export function countFaults(entries: readonly LoggedRequest[]): FaultCount {
  return {
    requests: entries.length,
    errors: entries.filter((e) => e.status === 503).length,
    resets: entries.filter((e) => e.status === null).length,
    lostWrites: entries.filter((e) => e.status === null && WRITE_METHODS.has(e.method)).length,
  };
}

/** The `result` of a GET through the vendor API with `token`; fails the test on anything but 200. */
export async function read<T = any>(emu: TestEmulator, token: string, path: string): Promise<T> {
  const reply = await emu.api('GET', path, { headers: { authorization: `Bearer ${token}` } });
  if (reply.status !== 200) throw new Error(`GET ${path}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.result as T;
}

/** Resolves after `ms`. */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds since `startMs`, one decimal, for the figures a test prints. */
export const secondsSince = (startMs: number) => Math.round((Date.now() - startMs) / 100) / 10;
