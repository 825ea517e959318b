import * as fs from 'node:fs';
import * as path from 'node:path';
import { runToEnd } from '../../helpers/process';
import { REPO } from '../../helpers/repo';

/**
 * The built `edgeguard-audit`'s arguments, before it opens any stack: its usage with the meaning of
 * each exit status, and arguments it refuses with exit 2. (Audits of real stacks:
 * tests/engine/audit/audit.test.ts.)
 */

const CLI = path.join(REPO, 'dist', 'provider', 'cli', 'audit.js');

beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npm run build)`);
});

test('--help: the usage, with what each exit status means', async () => {
  const run = await runToEnd(process.execPath, [CLI, '--help']);
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(
    /^usage: edgeguard-audit \[--cwd DIR\] \[--stack NAME\] \[--markdown FILE\] \[--json FILE\] \[--html FILE\]\n/,
  );
  expect(run.stdout).toMatch(
    /\n {2}0 {2}every script seen on the payment pages is authorized, none changed and none malicious;\n/,
  );
  expect(run.stdout).toContain('unpinned scripts (authorized by an entry without a hash) are allowed');
  expect(run.stdout).toMatch(/\n {2}1 {2}a script is unauthorized/);
  expect(run.stdout).toContain(
    'or, whatever its integrity, a script is\n     classified malicious (js_integrity_score below 10) or reported malicious;\n     each is named on stderr',
  );
  expect(run.stdout).toMatch(/\n {2}2 {2}the audit could not be done/);
});

test.each([
  [['--markdown', '-', '--html', '-'], 'only one output can go to stdout; --markdown and --html are -'],
  [['--pdf', 'x'], "Unknown option '--pdf'"],
  [['extra'], "Unexpected argument 'extra'"],
])('%j: exit 2 with the reason and the usage', async (args, reason) => {
  const run = await runToEnd(process.execPath, [CLI, ...args]);
  expect(run.status).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.startsWith(`edgeguard-audit: ${reason}`)).toBe(true);
  expect(run.stderr).toContain('usage: edgeguard-audit');
});
