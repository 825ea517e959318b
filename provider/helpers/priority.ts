import * as fs from 'node:fs';
import * as os from 'node:os';

/**
 * The argument that keeps the read ahead's child process at its parent's priority (`priority` of
 * `ReadAhead` in `../impact/read-ahead.ts`).
 */
export const USUAL_PRIORITY_ARG = '--usual-priority';

/**
 * Every thread of this process at the lowest priority (nice 19), as the read ahead's child process
 * lists (`../impact/read-ahead-child.ts`). On Linux a priority is a thread's, not the process's:
 * lowered for the main thread alone, V8's threads that collect the listing's garbage kept the
 * usual one. Where there is no `/proc`, the process's. A system that refuses, or a thread that
 * ends meanwhile, keeps its own.
 */
export function lowerPriority(): void {
  let threads = [0];
  try {
    threads = fs.readdirSync('/proc/self/task').map(Number);
  } catch {
    // No /proc: the process.
  }
  for (const thread of threads) {
    try {
      os.setPriority(thread, 19);
    } catch {
      // Refused, or ended.
    }
  }
}
