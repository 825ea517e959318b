import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO } from '../../helpers/repo';

/**
 * The npm scripts take their arguments: `scripts/with-env.sh` appends what follows its command line
 * to it, each word quoted as given, as npm appends what follows `--` to a script. Run for real:
 * the wrapper, `npm run test:unit -- ...` listing its tests, and the benchmarks' command line
 * selecting one group (`--list`: what it would run, without running it).
 */

/** Runs `command` with `args` in the repository; its exit status and output. */
function run(command: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(command, args, { cwd: REPO, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The command line an npm script hands to with-env.sh. */
function commandLineOf(script: string): string {
  const scripts = (
    JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const match = /^bash scripts\/with-env\.sh (?:--node-only )?'([^']*)'$/.exec(scripts[script] ?? '');
  if (match === null) throw new Error(`npm script "${script}" is not one with-env.sh command line: ${scripts[script]}`);
  return match[1]!;
}

test('with-env.sh hands the words after its command line to it intact: spaces, quotes, $ and empty words', () => {
  const words = ['a', 'b c', '$HOME', "it's", '', '; echo injected'];
  const result = run('bash', ['scripts/with-env.sh', "printf '<%s>\\n'", ...words]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toBe(words.map((word) => `<${word}>\n`).join(''));
});

test('with-env.sh without arguments runs its command line as it is', () => {
  const result = run('bash', ['scripts/with-env.sh', 'echo "$((6 * 7))"']);
  expect(result.status).toBe(0);
  expect(result.stdout).toBe('42\n');
});

test('`npm run test:unit -- <jest arguments>` runs jest with them, inside the unit tier', () => {
  const result = run('npm', ['run', '--silent', 'test:unit', '--', '--listTests', 'tests/unit/rules']);
  expect(result.status).toBe(0);
  const listed = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('/'))
    .map((file) => path.relative(REPO, file))
    .sort();
  const rules = fs
    .readdirSync(path.join(REPO, 'tests', 'unit', 'rules'))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => path.join('tests', 'unit', 'rules', name))
    .sort();
  expect(listed).toEqual(rules);
});

test('`npm run bench -- payment --rounds=3` selects the payment group with three rounds; no group selects all', () => {
  // The bench script's last command is the benchmarks' entry point, which is given the arguments;
  // it is run here from its source, as the unit tier has no build.
  expect(commandLineOf('bench')).toMatch(/ && node dist\/bench\/run\.js$/);
  const bench = 'ts-node --transpile-only bench/run.ts';
  const one = run('bash', ['scripts/with-env.sh', bench, 'payment', '--rounds=3', '--list']);
  expect(one.stderr).toBe('');
  expect(one.stdout).toBe('groups: payment\nsizes: rounds 3\n');
  const all = run('bash', ['scripts/with-env.sh', bench, '--list']);
  expect(all.stdout).toBe('groups: emulator, provider, engine, review, payment, vendor\nsizes: the defaults\n');
  const vendor = run('bash', ['scripts/with-env.sh', bench, 'vendor', '--scripts=5000,50000', '--list']);
  expect(vendor.stdout).toBe('groups: vendor\nsizes: scripts 5000,50000\n');
});

test('with-env.sh --node-only takes the flag for itself and hands on the command line and its words', () => {
  const result = run('bash', ['scripts/with-env.sh', '--node-only', "printf '<%s>\\n'", 'a b', '--node-only']);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toBe('<a b>\n<--node-only>\n');
});

test('`npm test -- <jest arguments>` and the tiers hand their arguments to jest: the last command of each takes them', () => {
  expect(commandLineOf('test')).toMatch(/(^| && )bash scripts\/test\.sh$/);
  // The script's one use of its arguments: jest, the last command of the set-up's chain.
  const script = fs.readFileSync(path.join(REPO, 'scripts', 'test.sh'), 'utf8');
  expect(script.match(/"\$@"/g)).toHaveLength(1);
  expect(script).toMatch(/^ *jest "\$@"$/m);
  for (const tier of ['unit', 'service', 'engine', 'browser'])
    expect(commandLineOf(`test:${tier}`)).toMatch(new RegExp(`(^| && )bash scripts/jest-tier\\.sh ${tier}$`));
});

test('a script that takes no arguments refuses them rather than dropping them', () => {
  for (const script of ['build.sh', 'demo.sh', 'setup-plugins.sh']) {
    const result = run('bash', [path.join('scripts', script), 'payment']);
    expect({ script, status: result.status, stderr: result.stderr }).toEqual({
      script,
      status: 2,
      stderr: `${script}: takes no arguments (got: payment)\n`,
    });
  }
});
