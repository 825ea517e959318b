import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '../../..');

/**
 * The pack reads ahead at the lowest priority (provider/pack/pack.ts): every thread of it, V8's
 * garbage collectors among them, not its main thread alone, as a process-wide call leaves them on
 * Linux. Run in a child process, whose priority the test may lower.
 */
const onLinux = process.platform === 'linux' ? it : it.skip;

onLinux('lowers every thread of the process to nice 19', () => {
  const script = `
    const fs = require('node:fs');
    const nices = () => fs.readdirSync('/proc/self/task').map((task) => {
      const stat = fs.readFileSync('/proc/self/task/' + task + '/stat', 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    });
    const before = nices();
    require('./provider/helpers/priority').lowerPriority();
    process.stdout.write(JSON.stringify({ before, after: nices() }));
  `;
  const child = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
    cwd: REPO,
    encoding: 'utf8',
  });
  expect(child.stderr).toBe('');
  const { before, after } = JSON.parse(child.stdout) as { before: number[]; after: number[] };
  // The main thread and V8's and libuv's threads.
  expect(after.length).toBeGreaterThan(1);
  expect(before.every((nice) => nice < 19)).toBe(true);
  expect(after).toEqual(after.map(() => 19));
});
