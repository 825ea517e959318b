import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runToEnd } from '../../helpers/process';
import { REPO } from '../../helpers/repo';

/**
 * The built `edgeguard-review` before any preview: two documents refused on one stream, as the
 * audit and the probe refuse them, and a missing `pulumi` said in lines a person reads, what is
 * missing and how to get it (the audit, which opens a stack the same way, too). Reviews of real
 * stacks: tests/engine/review/.
 */

const REVIEW = path.join(REPO, 'dist', 'provider', 'cli', 'review.js');
const AUDIT = path.join(REPO, 'dist', 'provider', 'cli', 'audit.js');

beforeAll(() => {
  for (const cli of [REVIEW, AUDIT])
    if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: build first (npm run build)`);
});

test.each([
  [['--markdown', '-', '--json', '-'], '--markdown and --json'],
  [['--json', '-', '--sarif', '-'], '--json and --sarif'],
  [['--markdown', '-', '--json', '-', '--sarif', '-'], '--markdown and --json and --sarif'],
])('%j: exit 2, nothing on stdout, the reason and the usage', async (args, flags) => {
  const run = await runToEnd(process.execPath, [REVIEW, ...args]);
  expect(run.status).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.startsWith(`edgeguard-review: only one output can go to stdout; ${flags} are -\n`)).toBe(true);
  expect(run.stderr).toContain('usage: edgeguard-review');
  expect(run.stderr).toContain('At most one output may be -.');
});

/** The lines a tool says when no folder of PATH holds a `pulumi`. */
const missing = (tool: string, work: string) =>
  [
    `${tool}: the ${work} could not be done: the Pulumi CLI is missing: no \`pulumi\` on PATH, and the stack is read and previewed through it.`,
    'Install it (https://www.pulumi.com/docs/iac/download-install/), for instance with',
    '  curl -fsSL https://get.pulumi.com | sh',
    'and put the folder that holds `pulumi` (~/.pulumi/bin with that script) on PATH.',
    '',
  ].join('\n');

test.each([
  [REVIEW, 'edgeguard-review', 'review', ['--markdown', '-']],
  [AUDIT, 'edgeguard-audit', 'audit', []],
])(
  'without pulumi on PATH, %#: exit 2 saying what is missing and how to get it, in lines',
  async (cli, tool, work, args) => {
    const project = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-review-cli-'));
    try {
      fs.writeFileSync(path.join(project, 'Pulumi.yaml'), 'name: shop\nruntime: nodejs\n');
      // PATH without any folder that holds a pulumi (the repository's built engine, the machine's).
      const PATH = (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter((dir) => dir !== '' && !fs.existsSync(path.join(dir, 'pulumi')))
        .join(path.delimiter);
      const run = await runToEnd(process.execPath, [cli, '--cwd', project, '--stack', 'dev', ...args], {
        env: { PATH },
      });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(missing(tool, work));
      expect(run.stderr).not.toContain('ENOENT');
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  },
);

test.each([REVIEW, AUDIT, path.join(REPO, 'dist', 'provider', 'cli', 'probe.js')])(
  '%s loads no Pulumi SDK: it runs `pulumi` itself, and the pack, in its own process, loads the SDK',
  async (cli) => {
    // The modules the command's own code loads, after which `--help` ends it: a module a command
    // imports is loaded before it reads its flags. `@pulumi/pulumi` (the Automation API's root
    // too) and `@pulumi/policy` cost about a second of CPU in each run.
    const run = await runToEnd(process.execPath, [
      '-e',
      `process.argv = [process.argv[0], ${JSON.stringify(cli)}, '--help'];
       process.on('exit', () => console.error(JSON.stringify(Object.keys(require.cache))));
       require(${JSON.stringify(cli)});`,
    ]);
    const loaded = JSON.parse(run.stderr.trim().split('\n').at(-1)!) as string[];
    expect(loaded).toContain(cli);
    expect(loaded.filter((file) => file.includes(`${path.sep}@pulumi${path.sep}`))).toEqual([]);
  },
);
