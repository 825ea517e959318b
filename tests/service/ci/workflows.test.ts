import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';
import { GENERATED_SECTIONS, WORKFLOWS } from '../../../scripts/docs';
import { runToEnd } from '../../helpers/process';
import { REPO } from '../../helpers/repo';

/**
 * The CI workflows a team copies as they are (`examples/ci/github/`, issue 31, item 2): each
 * passes actionlint (built by scripts/setup-actionlint.sh, with shellcheck on the `run:` steps
 * when it is installed), every `edgeguard-*` command and flag they run is one the built tool's
 * usage names, and the guides show each file (their generated sections, checked by
 * tests/unit/docs/reference-pages.test.ts).
 */

const ACTIONLINT = path.join(REPO, '.tools', 'actionlint', 'actionlint');
const DIR = path.join(REPO, WORKFLOWS);
const FILES = fs.readdirSync(DIR).filter((file) => file.endsWith('.yml'));

beforeAll(() => {
  if (!fs.existsSync(ACTIONLINT))
    throw new Error(`${ACTIONLINT} is missing: run bash scripts/setup-actionlint.sh (npm test and test:service do)`);
});

test('the three workflows: pull request, nightly drift, weekly evidence', () => {
  expect(FILES.sort()).toEqual(['nightly-drift.yml', 'pull-request.yml', 'weekly-evidence.yml']);
});

test.each(FILES)('%s passes actionlint', (file) => {
  const run = spawnSync(ACTIONLINT, ['-no-color', path.join(DIR, file)], { encoding: 'utf8' });
  expect(run.stdout + run.stderr).toBe('');
  expect(run.status).toBe(0);
});

test('actionlint finds what is wrong in a workflow: the test can fail', () => {
  const broken = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-actionlint-')), 'broken.yml');
  try {
    fs.writeFileSync(
      broken,
      fs
        .readFileSync(path.join(DIR, 'pull-request.yml'), 'utf8')
        .replace('steps.review.outputs', 'steps.reviw.outputs'),
    );
    const run = spawnSync(ACTIONLINT, ['-no-color', broken], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('reviw');
  } finally {
    fs.rmSync(path.dirname(broken), { recursive: true, force: true });
  }
});

/** Every `edgeguard-*` command line of the workflows' `run:` steps: the tool and the flags it is given. */
function commands(): Array<{ file: string; tool: string; flags: string[] }> {
  const found: Array<{ file: string; tool: string; flags: string[] }> = [];
  for (const file of FILES) {
    const workflow = parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as {
      jobs: Record<string, { steps: Array<{ run?: string }> }>;
    };
    for (const step of Object.values(workflow.jobs).flatMap((job) => job.steps))
      for (const line of (step.run ?? '').split('\n'))
        for (const match of line.matchAll(/\b(edgeguard-[a-z]+)((?:\s+[^\s;&|]+)*)/g))
          found.push({
            file,
            tool: match[1]!,
            flags: (match[2] ?? '').split(/\s+/).filter((word) => word.startsWith('--')),
          });
  }
  return found;
}

test("every edgeguard-* command and flag the workflows run is one of the built tools' usage", async () => {
  const bins = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { bin: Record<string, string> })
    .bin;
  const used = commands();
  expect([...new Set(used.map((command) => command.tool))].sort()).toEqual([
    'edgeguard-audit',
    'edgeguard-probe',
    'edgeguard-review',
  ]);
  const usage = new Map<string, Set<string>>();
  for (const { file, tool, flags } of used) {
    expect([file, tool, bins[tool] !== undefined]).toEqual([file, tool, true]);
    if (!usage.has(tool)) {
      const help = await runToEnd(process.execPath, [path.join(REPO, bins[tool]!), '--help']);
      expect(help.status).toBe(0);
      usage.set(tool, new Set(help.stdout.match(/--[a-z][a-z-]*/g)));
    }
    const known = usage.get(tool)!;
    expect([file, tool, flags.filter((flag) => !known.has(flag))]).toEqual([file, tool, []]);
  }
});

test('the guides show every workflow from its file', () => {
  for (const file of FILES)
    expect(GENERATED_SECTIONS.some((section) => section.name === `workflow-${path.basename(file, '.yml')}`)).toBe(true);
});
