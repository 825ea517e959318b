import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO } from '../../helpers/repo';
import { packageVersion } from '../../helpers/languages';
import { runToEnd } from '../../helpers/process';

/**
 * The SDKs checked in under `sdk/` are what the plugin's schema generates today (`npm run sdk`, as
 * Pulumi's providers check theirs in CI), and what can be checked of them here is: the Node.js SDK
 * type-checks, the Python SDK and the Python example compile. (The Go SDK is compiled by the Go
 * example's test.) Needs `npm run build` (the schema, dist/scripts/sdk.js) and the set-up
 * (edgeguard-sdkgen).
 */

const SDK = path.join(REPO, 'sdk');

/** Every file under `root`, as paths relative to it, sorted. */
function filesUnder(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.split(path.sep).includes('__pycache__'))
    .sort();
}

let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-sdks-'));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

test('the checked-in SDKs are what the schema generates, file for file', async () => {
  const generated = path.join(scratch, 'generated');
  const run = await runToEnd(process.execPath, [path.join(REPO, 'dist', 'scripts', 'sdk.js'), generated]);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  for (const language of ['nodejs', 'python', 'go']) {
    const want = filesUnder(path.join(generated, language));
    expect(want.length).toBeGreaterThan(5);
    expect(filesUnder(path.join(SDK, language))).toEqual(want);
    for (const file of want) {
      const checkedIn = fs.readFileSync(path.join(SDK, language, file), 'utf8');
      // A message that names the file that differs, rather than two long texts.
      if (checkedIn !== fs.readFileSync(path.join(generated, language, file), 'utf8'))
        throw new Error(`sdk/${language}/${file} differs from what the schema generates: run \`npm run sdk\``);
    }
  }
});

test('each SDK is a package of its language, for the plugin of this version', () => {
  const version = packageVersion();
  // What the engine reads to find the plugin an SDK needs: its name, version and download address.
  const plugin = { resource: true, name: 'edgeguard', version, server: 'github://api.github.com/edgeguard/pulumi-edgeguard' };
  expect(JSON.parse(fs.readFileSync(path.join(SDK, 'nodejs', 'package.json'), 'utf8')).pulumi).toEqual(plugin);
  for (const pluginFile of ['python/pulumi_edgeguard/pulumi-plugin.json', 'go/edgeguard/pulumi-plugin.json'])
    expect(JSON.parse(fs.readFileSync(path.join(SDK, pluginFile), 'utf8'))).toEqual(plugin);
  expect(fs.readFileSync(path.join(SDK, 'python', 'pyproject.toml'), 'utf8')).toMatch(
    new RegExp(`name = "pulumi_edgeguard"[^]*version = "${version.replace(/\./g, '\\.')}"`),
  );
  expect(fs.readFileSync(path.join(SDK, 'go', 'go.mod'), 'utf8')).toMatch(
    /^module github\.com\/edgeguard\/pulumi-edgeguard\/sdk\/go$/m,
  );
});

test('the Node.js SDK type-checks', async () => {
  const run = await runToEnd(path.join(REPO, 'node_modules', '.bin', 'tsc'), [
    '-p',
    path.join(SDK, 'nodejs', 'tsconfig.json'),
    '--noEmit',
  ]);
  expect(run.stdout + run.stderr).toBe('');
  expect(run.status).toBe(0);
});

test('the Python SDK and the Python example compile', async () => {
  const run = await runToEnd(
    'python3',
    ['-m', 'compileall', '-q', path.join(SDK, 'python'), path.join(REPO, 'examples', 'python')],
    // Byte code goes to the scratch folder, not beside the sources.
    { env: { PYTHONPYCACHEPREFIX: path.join(scratch, 'pycache') } },
  );
  expect(run.stdout + run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(filesUnder(path.join(scratch, 'pycache')).filter((file) => file.endsWith('.pyc')).length).toBeGreaterThan(
    10,
  );
});
