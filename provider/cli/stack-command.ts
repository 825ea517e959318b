import * as fs from 'node:fs';
import { shown, shownLines } from '../format/escape';

/**
 * The command line of the tools that work on a stack, `edgeguard-review` and `edgeguard-audit`,
 * written once: their usage, the outputs they write, and the exit status 2 with the reason when
 * the work could not be done. It loads nothing but `node:fs` and the escaping of terminal text, so
 * the audit, which runs no preview, does not load the review's policy pack modules through it.
 */

/** A command that works on a stack. */
export interface StackCommand<Arguments> {
  /** The command's name, which begins each line it writes to stderr. */
  name: string;
  /** Its work, as its failure names it: `review` in "the review could not be done". */
  work: string;
  /** Its usage, printed by `--help` and after bad usage. */
  usage: string;
  /** Its arguments, or `'help'` for `--help`; throws on bad usage, with the reason. */
  parse: (argv: string[]) => Arguments | 'help';
  /** Does the work; its exit status. */
  run: (args: Arguments) => Promise<number>;
  /** Why the work could not be done, in a line, from what `run` threw; default the error's message. */
  reasonOf?: (error: unknown) => string;
}

/** The `parseArgs` options every stack command takes: the project's folder, the stack, and `--help`. */
export const STACK_OPTIONS = {
  cwd: { type: 'string' },
  stack: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Refuses, naming the flags, more than one of `outputs` (flag to target) going to stdout (`-`). */
export function checkOneStdout(outputs: Readonly<Record<string, string | undefined>>): void {
  const toStdout = Object.entries(outputs).filter(([, target]) => target === '-');
  if (toStdout.length > 1)
    throw new Error(`only one output can go to stdout; ${toStdout.map(([name]) => `--${name}`).join(' and ')} are -`);
}

/** Writes `text` to the file `target`, or to stdout (ending in a newline) when `target` is `-`. */
export function writeOutput(target: string, text: string): void {
  if (target === '-') process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  else fs.writeFileSync(target, text);
}

/**
 * Runs `command` on the process's arguments and sets the process's exit status: bad usage exits 2
 * with the reason and the usage on stderr; `--help` prints the usage and exits 0; otherwise the
 * status `run` gives, or 2 when it throws, with `<name>: the <work> could not be done: <reason>`
 * on stderr.
 */
export function runStackCommand<Arguments>(command: StackCommand<Arguments>): void {
  const reasonOf = command.reasonOf ?? ((error: unknown) => (error as Error).message);
  usageThenRun(command).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // The reason may quote the service or the engine: one line, nothing a terminal acts on.
      process.stderr.write(`${command.name}: the ${command.work} could not be done: ${shown(reasonOf(error))}\n`);
      process.exitCode = 2;
    },
  );
}

async function usageThenRun<Arguments>(command: StackCommand<Arguments>): Promise<number> {
  let args: Arguments | 'help';
  try {
    args = command.parse(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${command.name}: ${shownLines((error as Error).message)}\n${command.usage}\n`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(`${command.usage}\n`);
    return 0;
  }
  return command.run(args);
}
