import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO } from '../../helpers/repo';

/**
 * The Pulumi CLI scripts/setup-pulumi.sh builds, run for real. Its two copies of zxcvbn-go (the
 * password-strength estimator behind `pulumi config set`'s "looks like a secret") are patched by
 * tools/pulumi/cli/lazy-zxcvbn.pl to decode their word lists at first use: unpatched, every
 * `pulumi` command decoded them at start-up (37 MB allocated; `pulumi version` 0.41 CPU s here,
 * 0.23 patched). The engine tests run this CLI hundreds of times; the demo and users' runs of the
 * set-up's CLI too.
 */

const PULUMI = path.join(REPO, '.tools', 'pulumi', 'bin', 'pulumi');

function pulumi(args: string[], cwd: string, env: Record<string, string> = {}) {
  const run = spawnSync(PULUMI, [...args, '--non-interactive'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: 'true', ...env },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

test('the built CLI starts without decoding zxcvbn-go’s word lists: their packages allocate next to nothing at start-up', () => {
  const run = pulumi(['version'], REPO, { GODEBUG: 'inittrace=1' });
  expect(run.status).toBe(0);
  // `init <package> @<t> ms, <d> ms clock, <bytes> bytes, <n> allocs`, one line a package.
  const allocated = Object.fromEntries(
    [...run.stderr.matchAll(/^init (\S*zxcvbn-go\/(?:frequency|matching)) @.* (\d+) bytes, \d+ allocs$/gm)].map(
      (match) => [match[1]!, Number(match[2])],
    ),
  );
  // Both modules' packages are linked (and so initialised); before the patch each allocated 8 to 10 MB.
  expect(Object.keys(allocated).sort()).toEqual([
    'github.com/ccojocar/zxcvbn-go/frequency',
    'github.com/ccojocar/zxcvbn-go/matching',
    'github.com/nbutton23/zxcvbn-go/frequency',
    'github.com/nbutton23/zxcvbn-go/matching',
  ]);
  for (const [name, bytes] of Object.entries(allocated))
    expect({ name, bytes: Math.min(bytes, 100_000) }).toEqual({ name, bytes });
});

test('`pulumi config set` still tells a secret from a word: the lists load when a value is judged', () => {
  fs.mkdirSync(path.join(REPO, '.edgeguard'), { recursive: true });
  const dir = fs.mkdtempSync(path.join(REPO, '.edgeguard', 'pulumi-cli-'));
  try {
    fs.writeFileSync(path.join(dir, 'Pulumi.yaml'), 'name: zxcvbn-check\nruntime: yaml\n');
    fs.mkdirSync(path.join(dir, 'backend'));
    const env = {
      PULUMI_BACKEND_URL: `file://${path.join(dir, 'backend')}`,
      PULUMI_CONFIG_PASSPHRASE: 'not-a-secret',
      PULUMI_HOME: path.join(dir, 'home'),
    };
    expect(pulumi(['stack', 'init', 'check'], dir, env).status).toBe(0);
    // `password1` is in the lists (a dictionary word and a digit): low entropy, taken as plain text.
    // Judged without them, its 9 characters of letters and digits would be flagged (46 bits, over 3 a character).
    const word = pulumi(['config', 'set', 'dbPassword', 'password1'], dir, env);
    expect({ status: word.status, stderr: word.stderr }).toEqual({ status: 0, stderr: '' });
    const secret = pulumi(['config', 'set', 'dbPassword', 'Xq7#pL9$wZ2!mK4@vB'], dir, env);
    expect(secret.status).not.toBe(0);
    expect(secret.stderr).toContain("config value for 'zxcvbn-check:dbPassword' looks like a secret");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
