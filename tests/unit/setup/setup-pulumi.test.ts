import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO } from '../../helpers/repo';

/**
 * scripts/setup-pulumi.sh decides what to build from the stamps beside what it built: each build
 * (the CLI with the Node.js host, the YAML host, edgeguard-sdkgen) runs only when the checksum of
 * the files it is built from changed. Run from a copy of the repository's set-up (its own `.tools/`)
 * with a `go` on PATH that records each build and writes its output instead of compiling, and no
 * `pulumi` on PATH, so what the script decides is seen without minutes of builds.
 */

let root: string;
let calls: string;

beforeEach(() => {
  fs.mkdirSync(path.join(REPO, '.edgeguard'), { recursive: true });
  root = fs.mkdtempSync(path.join(REPO, '.edgeguard', 'setup-pulumi-'));
  fs.mkdirSync(path.join(root, 'scripts'));
  fs.copyFileSync(path.join(REPO, 'scripts', 'setup-pulumi.sh'), path.join(root, 'scripts', 'setup-pulumi.sh'));
  fs.copyFileSync(path.join(REPO, 'package.json'), path.join(root, 'package.json'));
  fs.cpSync(path.join(REPO, 'tools', 'pulumi'), path.join(root, 'tools', 'pulumi'), { recursive: true });
  calls = path.join(root, 'go-calls');
  const fakeBin = path.join(root, 'fake-bin');
  fs.mkdirSync(fakeBin);
  // `go env GOVERSION` answers; `go build ... -o OUT PKG` records the module folder, flags and
  // package, and writes an executable OUT.
  fs.writeFileSync(
    path.join(fakeBin, 'go'),
    `#!/bin/sh
if [ "$1" = env ]; then echo go1.26.8; exit 0; fi
echo "$(basename "$PWD") $*" >> ${JSON.stringify(calls)}
while [ $# -gt 0 ]; do if [ "$1" = -o ]; then printf '#!/bin/sh\\n' > "$2"; chmod +x "$2"; fi; shift; done
`,
    { mode: 0o755 },
  );
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/**
 * Runs the copy's set-up with `options`, only the fake `go`, node and the system's tools on PATH,
 * and a `pulumi` answering `pulumiOnPath` to `pulumi version` when it is given.
 */
function setup(
  options: string[] = ['--yaml', '--sdkgen'],
  pulumiOnPath?: string,
): { status: number | null; stderr: string; builds: string[] } {
  const system = (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => !dir.startsWith(path.join(REPO, '.tools', 'pulumi')) && !fs.existsSync(path.join(dir, 'pulumi')));
  const onPath = path.join(root, 'engine-on-path');
  fs.rmSync(onPath, { recursive: true, force: true });
  if (pulumiOnPath !== undefined) {
    fs.mkdirSync(onPath);
    fs.writeFileSync(path.join(onPath, 'pulumi'), `#!/bin/sh\necho ${pulumiOnPath}\n`, { mode: 0o755 });
    system.unshift(onPath);
  }
  fs.rmSync(calls, { force: true });
  const run = spawnSync('bash', [path.join(root, 'scripts', 'setup-pulumi.sh'), ...options], {
    encoding: 'utf8',
    env: { ...process.env, PATH: [path.join(root, 'fake-bin'), ...system].join(':') },
  });
  const builds = fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n') : [];
  return { status: run.status, stderr: run.stderr, builds: builds.map((line) => line.replace(root, '<root>')) };
}

test('a first set-up with --yaml --sdkgen builds the four executables, each with its version; a second builds nothing', () => {
  const first = setup();
  expect(first.status).toBe(0);
  const packages = first.builds.map((line) => `${line.split(' ')[0]} ${line.split(' ').at(-1)}`);
  expect(packages).toEqual([
    'sdkgen .',
    'cli github.com/pulumi/pulumi/pkg/v3/cmd/pulumi',
    'language-nodejs github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs',
    'language-yaml github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml',
  ]);
  expect(first.builds[1]).toContain('-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v3.259.0');
  expect(first.builds[3]).toContain('-X github.com/pulumi/pulumi-yaml/pkg/version.Version=v1.25.0');
  const bin = path.join(root, '.tools', 'pulumi', 'bin');
  expect(fs.readdirSync(bin).sort()).toEqual([
    'pulumi',
    'pulumi-language-nodejs',
    'pulumi-language-yaml',
    'pulumi-resource-pulumi-nodejs',
  ]);
  expect(fs.existsSync(path.join(root, '.tools', 'sdkgen', 'edgeguard-sdkgen'))).toBe(true);

  const second = setup();
  expect(second).toEqual({ status: 0, stderr: '', builds: [] });
});

test('a change to one wrapper module rebuilds that executable alone', () => {
  expect(setup().status).toBe(0);
  fs.appendFileSync(path.join(root, 'tools', 'pulumi', 'language-yaml', 'go.sum'), '\n');
  const yaml = setup();
  expect(yaml.status).toBe(0);
  expect(yaml.builds.map((line) => line.split(' ')[0])).toEqual(['language-yaml']);

  fs.appendFileSync(path.join(root, 'tools', 'pulumi', 'sdkgen', 'main.go'), '\n');
  expect(setup().builds.map((line) => line.split(' ')[0])).toEqual(['sdkgen']);

  fs.appendFileSync(path.join(root, 'tools', 'pulumi', 'cli', 'go.sum'), '\n');
  expect(setup().builds.map((line) => line.split(' ')[0])).toEqual(['cli', 'language-nodejs']);
});

test("the demo's set-up (no options) builds the engine alone; --yaml and --sdkgen later build only theirs", () => {
  const demo = setup([]);
  expect(demo.status).toBe(0);
  expect(demo.builds.map((line) => line.split(' ')[0])).toEqual(['cli', 'language-nodejs']);
  expect(fs.readdirSync(path.join(root, '.tools', 'pulumi', 'bin')).sort()).toEqual([
    'pulumi',
    'pulumi-language-nodejs',
    'pulumi-resource-pulumi-nodejs',
  ]);
  expect(fs.existsSync(path.join(root, '.tools', 'sdkgen'))).toBe(false);

  expect(setup(['--yaml']).builds.map((line) => line.split(' ')[0])).toEqual(['language-yaml']);
  expect(setup(['--sdkgen']).builds.map((line) => line.split(' ')[0])).toEqual(['sdkgen']);
  expect(setup(['--yaml', '--sdkgen']).builds).toEqual([]);
});

test('a pulumi on PATH at the pinned version or newer serves, and builds nothing; an older one does not', () => {
  expect(setup([], 'v3.259.0')).toEqual({ status: 0, stderr: '', builds: [] });
  expect(setup(['--yaml'], 'v3.300.1')).toEqual({ status: 0, stderr: '', builds: [] });
  expect(setup([], 'v3.99.0').builds.map((line) => line.split(' ')[0])).toEqual(['cli', 'language-nodejs']);
});

test('an unknown option is refused, naming it', () => {
  const run = setup(['--everything']);
  expect(run.status).toBe(1);
  expect(run.stderr).toContain('unknown option --everything');
  expect(run.builds).toEqual([]);
});
