import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO } from '../../helpers/repo';
import { startTestEmulator, TEST_TOKEN, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { packageVersion, PLUGIN_BUILD, pluginArchive } from '../../helpers/languages';
import { runToEnd, type Finished } from '../../helpers/process';

/**
 * The plugin as a user gets it: the release archive that `npm run build` writes, installed with
 * `pulumi plugin install resource edgeguard <version> --file <archive>` into a fresh PULUMI_HOME
 * (never the project's plugin cache), then run by the engine from there with no `node` on PATH:
 * the single executable carries its own. A YAML program (its language host is Go, beside the
 * `pulumi` binary) deploys and destroys a CspPolicy through it against the emulator.
 */

const VERSION = packageVersion();
const ARCHIVE = pluginArchive();
const PULUMI = path.join(REPO, '.tools', 'pulumi', 'bin', 'pulumi');

let work: string;
let home: string;
/** An empty folder: the whole PATH of every command here, so nothing finds a `node`. */
let noTools: string;
let emu: TestEmulator;

beforeAll(async () => {
  if (!fs.existsSync(ARCHIVE)) throw new Error(`${ARCHIVE} is missing: run "npm run build" first (npm test does)`);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-plugin-install-'));
  home = path.join(work, 'pulumi-home');
  noTools = path.join(work, 'no-tools');
  fs.mkdirSync(noTools);
  fs.mkdirSync(path.join(work, 'state'));
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** Runs the engine with nothing on PATH, the test's PULUMI_HOME and a file backend. */
function pulumi(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Finished> {
  return runToEnd(PULUMI, [...args, '--non-interactive'], {
    ...options,
    env: {
      PATH: noTools,
      PULUMI_HOME: home,
      PULUMI_BACKEND_URL: `file://${path.join(work, 'state')}`,
      PULUMI_CONFIG_PASSPHRASE: 'install-test-not-a-secret',
      PULUMI_SKIP_UPDATE_CHECK: 'true',
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true',
      ...options.env,
    },
  });
}

function succeeded(finished: Finished): void {
  if (finished.status !== 0) throw new Error(`exit ${finished.status}\n${finished.stdout}\n${finished.stderr}`);
}

test('the archive holds the one executable, which installs into a fresh PULUMI_HOME', async () => {
  const listed = await runToEnd('tar', ['-tzf', ARCHIVE]);
  expect(listed.stdout.trim().split('\n')).toEqual(['pulumi-resource-edgeguard']);
  succeeded(await pulumi(['plugin', 'install', 'resource', 'edgeguard', VERSION, '--file', ARCHIVE]));
  const installed = path.join(home, 'plugins', `resource-edgeguard-v${VERSION}`, 'pulumi-resource-edgeguard');
  expect(fs.statSync(installed).mode & 0o111).not.toBe(0);
});

test('the installed plugin answers GetSchema with the generated schema, with no node on PATH', async () => {
  const printed = await pulumi(['package', 'get-schema', `edgeguard@${VERSION}`]);
  succeeded(printed);
  const generated: unknown = JSON.parse(fs.readFileSync(path.join(PLUGIN_BUILD, 'schema.json'), 'utf8'));
  expect(JSON.parse(printed.stdout)).toEqual(generated);
});

test('a NODE_OPTIONS that breaks node does not reach the plugin', async () => {
  const breaking = { NODE_OPTIONS: `--require ${path.join(work, 'not-there.js')}` };
  const node = await runToEnd(process.execPath, ['-e', '0'], { env: breaking });
  expect(node.status).not.toBe(0);
  succeeded(await pulumi(['package', 'get-schema', `edgeguard@${VERSION}`], { env: breaking }));
});

test('a YAML program deploys and destroys a CspPolicy through the installed plugin, with no node on PATH', async () => {
  const project = path.join(work, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(project, 'Pulumi.yaml'),
    [
      'name: plugin-install',
      'runtime: yaml',
      'resources:',
      '  policy:',
      '    type: edgeguard:index:CspPolicy',
      '    properties:',
      `      zoneId: ${ZONE_ID}`,
      '      description: through the installed plugin',
      '      action: log',
      '      expression: http.host eq "www.example.com"',
      "      value: script-src 'self' cdn.example.com",
      'outputs:',
      '  policyId: ${policy.policyId}',
      '',
    ].join('\n'),
  );
  const settings = { EDGEGUARD_BASE_URL: emu.baseUrl, EDGEGUARD_API_TOKEN: TEST_TOKEN };
  succeeded(await pulumi(['stack', 'init', 'test'], { cwd: project }));
  succeeded(await pulumi(['up', '--yes', '--skip-preview'], { cwd: project, env: settings }));
  const output = await pulumi(['stack', 'output', 'policyId'], { cwd: project });
  const policyId = output.stdout.trim();
  const live = await emu.api('GET', `zones/${ZONE_ID}/page_security/policies/${policyId}`);
  expect(live.status).toBe(200);
  expect(live.body.result.description).toBe('through the installed plugin');
  succeeded(await pulumi(['destroy', '--yes', '--skip-preview'], { cwd: project, env: settings }));
  expect((await emu.api('GET', `zones/${ZONE_ID}/page_security/policies/${policyId}`)).status).toBe(404);
}, 120_000);
