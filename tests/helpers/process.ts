import { spawn } from 'node:child_process';

/** How a command ended, and what it printed. */
export interface Finished {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `command` to its end and collects what it printed, asynchronously, since the test's
 * emulator answers from this process. The command gets this process's environment without its
 * `EDGEGUARD_*` variables (none leak in from the shell), then `env`; `onStdout` hears its standard
 * output as it comes.
 */
export function runToEnd(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; onStdout?: (text: string) => void } = {},
): Promise<Finished> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EDGEGUARD_')));
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...inherited, ...options.env },
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      options.onStdout?.(text);
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
