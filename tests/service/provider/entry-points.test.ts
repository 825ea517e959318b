import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';
import { REPO } from '../../helpers/repo';
import { RUNTIMES as RUNTIME_TABLE } from '../../../provider/runtime/table';
import { RUNTIME_OF } from '../../helpers/runtimes';

/**
 * What loading the package costs, in its compiled form and by its name, as a Pulumi program and
 * the engine's provider process load it (a Node process started in the repository, where
 * `pulumi-edgeguard` resolves through the package's own `exports`; not jest's module registry).
 *
 * - The root entry point loads no more than the resource classes do: neither undici nor zod, which
 *   the read helpers load at their first call (provider/helpers/lazy-client.ts).
 * - `pulumi-edgeguard/client` holds the API client and the settings table.
 * - Every runtime turns on Node's compile cache before it loads its dependencies
 *   (provider/runtime/compile-cache.ts).
 */

const run = promisify(execFile);

/**
 * Runs `script` in a Node process in the repository; its standard output is parsed as JSON. Without
 * `NODE_COMPILE_CACHE`, with which Node would turn the cache on by itself.
 */
async function inNode<T>(script: string, env: Record<string, string> = {}): Promise<T> {
  const { NODE_COMPILE_CACHE: _set, ...inherited } = process.env;
  const { stdout } = await run(process.execPath, ['-e', script], {
    cwd: REPO,
    env: { ...inherited, ...env },
  });
  return JSON.parse(stdout) as T;
}

/** Script text: the packages whose modules were loaded since `before` (a set of require.cache keys). */
const PACKAGES_SINCE = `(before) => [...new Set(Object.keys(require.cache).filter((k) => !before.has(k))
  .map((k) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(k)?.[1]).filter(Boolean))].sort()`;

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
  await emu.control('POST', 'seed', {
    pools: ['eu-west', 'ap-south'].map((name) => ({ account_id: ACCOUNT_ID, name })),
  });
});
afterAll(async () => emu.close());

test('the root entry point loads neither undici nor zod, and a read helper loads the client at its first call', async () => {
  const result = await inNode<{
    atLoad: string[];
    exports: string[];
    pools: string[];
    afterRead: string[];
    errorTree: boolean;
  }>(`
    const packagesSince = ${PACKAGES_SINCE};
    require('@pulumi/pulumi');
    const before = new Set(Object.keys(require.cache));
    const edgeguard = require('pulumi-edgeguard');
    const atLoad = packagesSince(before);
    const exports = Object.keys(edgeguard).sort();
    edgeguard.listPools(${JSON.stringify(ACCOUNT_ID)}, { baseUrl: ${JSON.stringify(emu.baseUrl)}, apiToken: ${JSON.stringify(TEST_TOKEN)} })
      .then(async (pools) => {
        const refused = await edgeguard.getScript('c0000000000000000000000000000001', 'a'.repeat(32), { baseUrl: 'http://127.0.0.1:1/client/v4', apiToken: 'x' }).catch((e) => e);
        console.log(JSON.stringify({ atLoad, exports, pools: pools.map((p) => p.name), afterRead: packagesSince(before),
          errorTree: refused instanceof edgeguard.APIConnectionError && refused instanceof edgeguard.EdgeGuardError }));
      });
  `);
  expect(result.atLoad).not.toContain('undici');
  expect(result.atLoad).not.toContain('zod');
  expect(result.exports).toEqual(
    expect.arrayContaining([
      'CspPolicy',
      'CustomHostname',
      'CustomHostnameValidation',
      'HealthNotification',
      'PageSecuritySetting',
      'PoolNotificationMigration',
      'listScripts',
      'maliciousScripts',
      'listPools',
      'stackReadSettings',
      'emulatorDnsAvailable',
      'EdgeGuardError',
      'APIConnectionError',
      'NotFoundError',
    ]),
  );
  expect(result.exports).not.toContain('HttpClient');
  expect(result.pools).toEqual(['ap-south', 'eu-west']);
  expect(result.afterRead).toEqual(expect.arrayContaining(['undici', 'zod']));
  // The helpers' failures are of the error tree the root exports, not of a second copy of it.
  expect(result.errorTree).toBe(true);
});

test('pulumi-edgeguard/client holds the API client, the settings table and the factory', async () => {
  const exports = await inNode<string[]>(
    `console.log(JSON.stringify(Object.keys(require('pulumi-edgeguard/client')).sort()))`,
  );
  expect(exports).toEqual(
    expect.arrayContaining([
      'HttpClient',
      'pageSecurity',
      'customHostnames',
      'loadBalancing',
      'notifications',
      'SETTINGS',
      'resolveSettings',
      'SettingsError',
      'clientFrom',
      'EdgeGuardError',
    ]),
  );
});

const RUNTIMES = Object.values(RUNTIME_OF);

test('every runtime of the package is in the table the tests use, and has its dynamic provider', () => {
  const providers = fs
    .readdirSync(path.join(REPO, 'provider', 'dynamic', 'runtime'))
    .map((file) => file.replace(/\.ts$/, ''));
  expect(providers.sort()).toEqual([...RUNTIMES].sort());
  expect(Object.keys(RUNTIME_TABLE).sort()).toEqual([...RUNTIMES].sort());
});

test.each(RUNTIMES)('runtime %s turns on the compile cache before it loads undici and zod', async (runtime) => {
  // Node's default cache folder is in the temporary folder: a fresh one, so every entry is this run's.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-compile-cache-'));
  try {
    const loaded = await inNode<{ dir: string | undefined; heavy: number }>(
      `
      const { provider } = require('pulumi-edgeguard/runtime/${runtime}');
      if (typeof provider.read !== 'function') throw new Error('no provider');
      console.log(JSON.stringify({
        dir: require('node:module').getCompileCacheDir(),
        heavy: Object.keys(require.cache).filter((k) => /node_modules\\/(undici|zod)\\//.test(k)).length,
      }));
    `,
      { TMPDIR: tmp },
    );
    expect(loaded.dir).toContain(path.join(tmp, 'node-compile-cache'));
    // Node writes an entry per module it compiled with the cache on, at exit; every module of
    // undici and zod has one only if the cache was on before the first of them loaded.
    const entries = fs.readdirSync(loaded.dir!).length;
    expect(loaded.heavy).toBeGreaterThan(150);
    expect(entries).toBeGreaterThanOrEqual(loaded.heavy);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
