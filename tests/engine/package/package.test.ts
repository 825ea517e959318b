import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEMO } from '../../../emulator/seed/demo';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { engineStack, type EngineStack } from '../../helpers/engine';
import { REPO } from '../../helpers/repo';
import { usePluginBuild } from '../../helpers/languages';
import { runToEnd } from '../../helpers/process';

/**
 * The package as npm publishes it: `npm pack` holds what a user needs and nothing else, and its
 * tarball, installed into a new project outside the repository (from npm's cache: the
 * dependencies are those the repository installed), deploys there through the real engine: a
 * dynamic resource and, under an explicit `Provider`, the plugin's resource, from the same class.
 */

const TOKEN = 'e2e-package-token-2f8c61d0';
const POLICIES = `zones/${DEMO.zoneId}/page_security/policies`;

const PROGRAM = `const pulumi = require('@pulumi/pulumi');
const edgeguard = require('pulumi-edgeguard');

const zoneId = new pulumi.Config().require('zoneId');
const policy = (name, opts) =>
  new edgeguard.CspPolicy(
    name,
    { zoneId, description: name, action: 'log', expression: 'http.host eq "' + name + '.example.com"', value: "script-src 'self'" },
    opts,
  );
const dynamicPolicy = policy('dynamic');
const pluginPolicy = policy('plugin', { provider: new edgeguard.Provider('edgeguard') });
exports.policyIds = { dynamic: dynamicPolicy.policyId, plugin: pluginPolicy.policyId };
`;

let scratch: string;
let project: string;
let tarball: string;
let packed: string[];
let emu: TestEmulator;
let engine: EngineStack;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-package-'));
  const npm = { env: { npm_config_loglevel: 'error', npm_config_fund: 'false', npm_config_audit: 'false' } };
  const pack = await runToEnd('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: REPO, ...npm });
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
  const [result] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = path.join(scratch, result!.filename);
  packed = result!.files.map((file) => file.path);

  project = path.join(scratch, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'fresh', private: true }));
  const install = await runToEnd('npm', ['install', '--prefer-offline', tarball], { cwd: project, ...npm });
  if (install.status !== 0) throw new Error(`npm install of the tarball failed:\n${install.stderr}`);
  fs.writeFileSync(path.join(project, 'index.js'), PROGRAM);
  fs.writeFileSync(path.join(project, 'Pulumi.yaml'), 'name: fresh\nruntime: nodejs\nmain: index.js\n');
  usePluginBuild(project);

  emu = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [TOKEN] });
  engine = await engineStack({
    projectDir: project,
    inPlace: true,
    emu,
    token: TOKEN,
    config: { zoneId: { value: DEMO.zoneId } },
  });
}, 300_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

test('the tarball holds the compiled package, its command-line tools and the policy pack, and nothing else', () => {
  for (const needed of [
    'package.json',
    'README.md',
    'dist/provider/index.js',
    'dist/provider/index.d.ts',
    'dist/provider/resources/provider.js',
    'dist/provider/dynamic/runtime/csp-policy.js',
    'dist/provider/cli/import.js',
    'dist/provider/cli/review.js',
    'dist/provider/cli/audit.js',
    'dist/provider/cli/inventory.js',
    'dist/provider/cli/probe.js',
    'dist/provider/csp.js',
    'dist/provider/csp.d.ts',
    'dist/emulator/cli.js',
    'policy-pack/edgeguard-policy-pack',
  ])
    expect(packed).toContain(needed);
  const unwanted = packed.filter(
    (file) => !/^(dist\/(provider|emulator|rules)\/|policy-pack\/|package\.json$|README\.md$)/.test(file),
  );
  expect(unwanted).toEqual([]);
  // The plugin's executable ships in its release archive, not in the npm package.
  expect(packed.filter((file) => file.includes('pulumi-resource-edgeguard'))).toEqual([]);
});

/**
 * A team's own check of a policy, as it would write it: `pulumi-edgeguard/csp` imported by name,
 * type-checked against the installed package's declarations, then run.
 */
const CSP_CHECK = `import { BROWSERS, cspAllowsUrl, judgeFetch, parseCspValue } from 'pulumi-edgeguard/csp';

const policy = parseCspValue("script-src 'self' https://js.stripe.com; upgrade-insecure-requests");
if (!policy.ok) throw new Error(policy.error.message);
const page = new URL('https://shop.example.com/checkout');
const upgraded = BROWSERS.map(
  (browser) =>
    judgeFetch([{ directives: policy.value, reportOnly: false }], 'script', new URL('http://js.stripe.com/v3/'), page, browser)
      .outcome,
);
console.log(
  JSON.stringify({
    stripe: cspAllowsUrl(policy.value, 'script', new URL('https://js.stripe.com/v3/'), page),
    otherPort: cspAllowsUrl(policy.value, 'script', new URL('https://shop.example.com:8443/app.js'), page),
    upgraded,
  }),
);
`;

test("pulumi-edgeguard/csp, installed, type-checks and judges a policy in the team's own code", async () => {
  fs.writeFileSync(path.join(project, 'csp-check.ts'), CSP_CHECK);
  const tsc = path.join(REPO, 'node_modules', '.bin', 'tsc');
  const options = ['--strict', '--skipLibCheck', '--module', 'nodenext', '--target', 'es2023', '--lib', 'es2023,dom'];
  const compiled = await runToEnd(tsc, [...options, '--outDir', 'out', 'csp-check.ts'], { cwd: project });
  expect(compiled.stdout + compiled.stderr).toBe('');
  const ran = await runToEnd(process.execPath, [path.join('out', 'csp-check.js')], { cwd: project });
  expect(ran.stderr).toBe('');
  expect(JSON.parse(ran.stdout)).toEqual({ stripe: true, otherPort: false, upgraded: ['allowed', 'allowed'] });
});

test('installed into a project outside the repository, it deploys a dynamic resource and a plugin resource, and destroys them', async () => {
  const up = await engine.up();
  expect(up.summary.resourceChanges).toEqual({ create: 4 });
  const live = (await emu.api('GET', POLICIES)).body.result as Array<Record<string, string>>;
  expect(Object.fromEntries(live.map((policy) => [policy.description, policy.id]))).toEqual(
    up.outputs.policyIds!.value,
  );
  const state = JSON.parse(engine.stateText());
  const types = state.checkpoint.latest.resources.map((resource: { type: string }) => resource.type);
  expect(types).toContain('pulumi-nodejs:dynamic/edgeguard:CspPolicy');
  expect(types).toContain('edgeguard:index:CspPolicy');
  expect(types).toContain('pulumi:providers:edgeguard');

  await engine.destroy();
  expect((await emu.api('GET', POLICIES)).body.result).toEqual([]);
}, 180_000);
