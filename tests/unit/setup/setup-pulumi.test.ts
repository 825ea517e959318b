import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO } from '../../helpers/repo';

/**
 * scripts/setup-pulumi.sh decides what to build from the stamps beside what it built: each build
 * (the CLI with the Node.js host, the YAML host, edgeguard-sdkgen) runs only when the checksum of
 * the files it is built from changed. Run from a copy of the repository's set-up (its own `.tools/`)
 * with a `go` on PATH that records each build and writes its output instead of compiling, and no
 * `pulumi` on PATH, so what the script decides is seen without minutes of builds. The fake's module
 * cache holds the two zxcvbn-go modules the CLI is built with, shaped as their releases are where
 * tools/pulumi/cli/lazy-zxcvbn.pl patches them.
 */

const ZXCVBN = ['github.com/nbutton23/zxcvbn-go', 'github.com/ccojocar/zxcvbn-go'];

/** The parts of a zxcvbn-go module's two files that the patch changes, as its releases have them. */
function zxcvbnModule(dir: string, module: string): void {
  fs.mkdirSync(path.join(dir, 'frequency'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'matching'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'frequency', 'frequency.go'),
    `package frequency\n\nimport (\n\t"encoding/json"\n\t"log"\n\n\t"${module}/data"\n)\n\n` +
      `var Lists = make(map[string]List)\n\nfunc init() {\n\tLists["English"] = getStringListFromAsset(getAsset("data/English.json"), "English")\n}\n`,
  );
  fs.writeFileSync(
    path.join(dir, 'matching', 'matching.go'),
    `package matching\n\nimport (\n\t"sort"\n\n\t"${module}/frequency"\n)\n\nfunc init() {\n\tloadFrequencyList()\n}\n\n` +
      `func Omnimatch(password string) (matches []match.Match) {\n\tif dictionaryMatchers == nil || adjacencyGraphs == nil {\n\t\tloadFrequencyList()\n\t}\n\treturn matches\n}\n\n` +
      `func loadFrequencyList() {\n\tfor n, list := range frequency.Lists {\n\t}\n}\n`,
  );
}

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
  const modules = path.join(root, 'go-modules');
  for (const module of ZXCVBN) zxcvbnModule(path.join(modules, module), module);
  // `go env GOVERSION` answers; `go mod download -json M...` gives each module's folder in the fake
  // cache, as \`go\` prints it; `go build ... -o OUT PKG` records the module folder, flags and
  // package (and its GOFLAGS in go-flags), and writes an executable OUT.
  fs.writeFileSync(
    path.join(fakeBin, 'go'),
    `#!/bin/sh
if [ "$1" = env ]; then echo go1.26.8; exit 0; fi
if [ "$1" = mod ] && [ "$2" = download ] && [ "$3" = -json ]; then
  shift 3
  for m in "$@"; do printf '{\\n\\t"Path": "%s",\\n\\t"Version": "v1.0.0",\\n\\t"Dir": "%s/%s",\\n\\t"Sum": "h1:x="\\n}\\n' "$m" ${JSON.stringify(modules)} "$m"; done
  exit 0
fi
echo "$(basename "$PWD") $*" >> ${JSON.stringify(calls)}
echo "$(basename "$PWD") $GOFLAGS" >> ${JSON.stringify(calls + '-flags')}
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
  fs.rmSync(`${calls}-flags`, { force: true });
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

test('the CLI is built with go.mod replacing zxcvbn-go’s two modules by copies that load their lists at first use', () => {
  expect(setup([]).status).toBe(0);
  const folder = path.join(root, '.tools', 'pulumi-cli-modules');
  const flags = fs.readFileSync(`${calls}-flags`, 'utf8').trim().split('\n');
  expect(flags[0]).toBe(`cli -mod=readonly -modfile=${path.join(folder, 'go.mod')}`);
  // The other builds keep their own go.mod.
  expect(flags[1]).toBe('language-nodejs -mod=readonly');
  const modfile = fs.readFileSync(path.join(folder, 'go.mod'), 'utf8');
  expect(modfile.startsWith(fs.readFileSync(path.join(root, 'tools', 'pulumi', 'cli', 'go.mod'), 'utf8'))).toBe(true);
  for (const module of ZXCVBN) {
    const copy = path.join(folder, module.replaceAll('/', '_'));
    expect(modfile).toContain(`\nreplace ${module} => ${copy}\n`);
    expect(fs.readFileSync(path.join(copy, 'go.mod'), 'utf8')).toBe(`module ${module}\n`);
    const frequency = fs.readFileSync(path.join(copy, 'frequency', 'frequency.go'), 'utf8');
    expect(frequency).not.toContain('func init()');
    expect(frequency).toContain('\t"sync"\n');
    expect(frequency).toContain('func Load() { loadOnce.Do(load) }\n\nfunc load() {\n\tLists["English"]');
    const matching = fs.readFileSync(path.join(copy, 'matching', 'matching.go'), 'utf8');
    expect(matching).not.toContain('func init()');
    expect(matching).toContain('\tloadOnce.Do(loadFrequencyList)\n\treturn matches');
    expect(matching).toContain('func loadFrequencyList() {\n\tfrequency.Load()\n');
  }
  // The module cache's own files are left as they were.
  expect(fs.readFileSync(path.join(root, 'go-modules', ZXCVBN[0]!, 'frequency', 'frequency.go'), 'utf8')).toContain(
    'func init()',
  );
});

test('a zxcvbn-go release without the code the patch changes fails the set-up, naming the file, and builds nothing', () => {
  const file = path.join(root, 'go-modules', ZXCVBN[1]!, 'matching', 'matching.go');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('func init() {\n\tloadFrequencyList()\n}\n', ''));
  const run = setup([]);
  expect(run.status).not.toBe(0);
  expect(run.stderr).toContain('matching/matching.go has no');
  expect(run.stderr).toContain('the module changed, update this patch');
  expect(run.builds).toEqual([]);
});

test('an unknown option is refused, naming it', () => {
  const run = setup(['--everything']);
  expect(run.status).toBe(1);
  expect(run.stderr).toContain('unknown option --everything');
  expect(run.builds).toEqual([]);
});
