import * as fs from 'node:fs';
import { OwnMessageError, shown, shownLines } from '../format/escape';

/**
 * The one runner of the package's tools (`edgeguard-review`, `-audit`, `-probe`, `-csp`, `-import`,
 * `-inventory`), and the one place that writes to the terminal: their usage on `--help` and after
 * bad usage, their outputs to files or stdout, their messages on stderr (data from the service
 * escaped, `../format/escape.ts`), and their exit status. Each tool is a thin file that parses its
 * arguments and does its work through it. It loads nothing but `node:fs` and the escaping, so a
 * tool that runs no preview does not load the review's modules through it.
 */

/** A tool of the package. */
export interface Tool<Arguments> {
  /** The tool's name, which begins each line it writes to stderr. */
  name: string;
  /** Its usage, printed by `--help` and after bad usage. */
  usage: string;
  /** Its arguments, or `'help'` for `--help`; throws on bad usage, with the reason. */
  parse: (argv: string[]) => Arguments | 'help';
  /** Does the work; its exit status. */
  run: (args: Arguments) => Promise<number>;
  /**
   * What a throw from `run` means: its exit status and the line said on stderr. The tools that work
   * on a stack say `the <work> could not be done: <reason>` and exit 2 ({@link couldNotBeDone}).
   */
  failure: { status: number; message: (error: unknown) => string };
}

/**
 * The failure of a tool whose `work` (`review` in "the review could not be done") could not be
 * done: exit 2, with `reasonOf` the reason. The package's own words ({@link OwnMessageError}: what is
 * missing and how to get it) keep their lines; any other reason may quote the service or the
 * engine, and is shown on one line, nothing in it a terminal acts on.
 */
export function couldNotBeDone(
  work: string,
  reasonOf: (error: unknown) => string = (error) => (error as Error).message,
): Tool<unknown>['failure'] {
  return {
    status: 2,
    message: (error) => {
      const reason = reasonOf(error);
      return `the ${work} could not be done: ${error instanceof OwnMessageError ? shownLines(reason) : shown(reason)}`;
    },
  };
}

/** The failure of a tool for which a throw is a bug: exit `status`, with the error's stack. */
export function unexpectedFailure(status: number): Tool<unknown>['failure'] {
  return {
    status,
    message: (error) =>
      shownLines(`unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  };
}

/**
 * A tool's messages on stderr, after its name. They quote the service (an error's message, a
 * URL): their lines are theirs, and no other character a terminal acts on gets through.
 */
export const sayAs =
  (tool: string) =>
  (message: string): void => {
    process.stderr.write(`${tool}: ${shownLines(message)}\n`);
  };

/** Refuses, naming the flags, more than one of `outputs` (flag to target) going to stdout (`-`). */
export function checkOneStdout(outputs: Readonly<Record<string, string | undefined>>): void {
  const toStdout = Object.entries(outputs).filter(([, target]) => target === '-');
  if (toStdout.length > 1)
    throw new Error(`only one output can go to stdout; ${toStdout.map(([name]) => `--${name}`).join(' and ')} are -`);
}

/** Writes `text` to the file `target`, or to stdout (ending in a newline) when `target` is `-`; throws when the file cannot be written. */
export function writeOutput(target: string, text: string): void {
  if (target === '-') process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  else fs.writeFileSync(target, text);
}

/** Writes a tool's program to `out`, else stdout; `false`, said, when the file cannot be written. */
export function writeProgram(out: string | undefined, text: string, say: (message: string) => void): boolean {
  if (out === undefined) {
    process.stdout.write(text);
    return true;
  }
  try {
    fs.writeFileSync(out, text);
    return true;
  } catch (error) {
    say(`cannot write --out ${out}: ${(error as Error).message}`);
    return false;
  }
}

/** The engine's own output, relayed as it comes to `stream` (`edgeguard-review` shows its preview). */
export function relayEngine(text: string, stream: 'stdout' | 'stderr'): void {
  process[stream].write(text);
}

/**
 * Runs `tool` on the process's arguments and sets the process's exit status: bad usage exits 2
 * with the reason and the usage on stderr; `--help` prints the usage and exits 0; otherwise the
 * status `run` gives, or the tool's failure when it throws.
 */
export function runTool<Arguments>(tool: Tool<Arguments>): void {
  usageThenRun(tool).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${tool.name}: ${tool.failure.message(error)}\n`);
      process.exitCode = tool.failure.status;
    },
  );
}

async function usageThenRun<Arguments>(tool: Tool<Arguments>): Promise<number> {
  let args: Arguments | 'help';
  try {
    args = tool.parse(process.argv.slice(2));
  } catch (error) {
    sayAs(tool.name)(`${(error as Error).message}\n${tool.usage}`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(`${tool.usage}\n`);
    return 0;
  }
  return tool.run(args);
}
