import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEMO } from '../../../emulator/seed/demo';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { REPO } from '../../helpers/repo';
import { installPlugin } from '../../helpers/languages';
import { runToEnd } from '../../helpers/process';

/**
 * examples/go, the Automation API program with an inline program over the generated Go SDK,
 * through the real engine against a demo emulator: up, preview, destroy. The plugin is installed
 * from its release archive into a PULUMI_HOME of the test's own, as a user installs it. The program
 * is built once and kept under .edgeguard/ until its sources or the SDK change (a build takes one
 * to two minutes on two cores).
 */

const TOKEN = 'e2e-go-token-93f0a1c4';
const EXAMPLE = path.join(REPO, 'examples', 'go');
const BUILD = path.join(REPO, '.edgeguard', 'go-example');
const POLICIES = `zones/${DEMO.zoneId}/page_security/policies`;

/** The checksum of every file the program is built from: its module and the Go SDK. */
function sourcesChecksum(): string {
  const hash = createHash('sha256');
  for (const root of [EXAMPLE, path.join(REPO, 'sdk', 'go')]) {
    const files = (fs.readdirSync(root, { recursive: true }) as string[])
      .filter((file) => fs.statSync(path.join(root, file)).isFile())
      .sort();
    for (const file of files) hash.update(`${file}\0`).update(fs.readFileSync(path.join(root, file)));
  }
  return hash.digest('hex');
}

/** The program's executable, built with the module's checksums (-mod=readonly) unless the stamp says it is current. */
async function buildExample(): Promise<string> {
  const binary = path.join(BUILD, 'edgeguard-go');
  const stamp = path.join(BUILD, '.built');
  const want = sourcesChecksum();
  if (fs.existsSync(binary) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return binary;
  fs.mkdirSync(BUILD, { recursive: true });
  const build = await runToEnd('go', ['build', '-trimpath', '-o', binary, '.'], {
    cwd: EXAMPLE,
    env: { CGO_ENABLED: '0', GOFLAGS: '-mod=readonly', GOTOOLCHAIN: 'local' },
  });
  if (build.status !== 0) throw new Error(`go build of examples/go failed:\n${build.stderr}`);
  fs.writeFileSync(stamp, want);
  return binary;
}

let emu: TestEmulator;
let binary: string;
let work: string;
let env: Record<string, string>;
let poolIds: string[];

async function example(operation: string): Promise<any> {
  const run = await runToEnd(
    binary,
    [
      `-zone=${DEMO.zoneId}`,
      `-account=${DEMO.accountId}`,
      `-pools=${poolIds.join(',')}`,
      `-work-dir=${path.join(work, 'project')}`,
      '-stack=e2e',
      operation,
    ],
    { env },
  );
  if (run.status !== 0) throw new Error(`edgeguard-go ${operation} failed (${run.status}):\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

async function policies(): Promise<Array<Record<string, string>>> {
  return (await emu.api('GET', POLICIES)).body.result;
}

beforeAll(async () => {
  emu = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [TOKEN] });
  poolIds = (await emu.api('GET', `accounts/${DEMO.accountId}/load_balancers/pools`)).body.result
    .slice(0, 2)
    .map((pool: { id: string }) => pool.id);
  work = path.join(REPO, '.edgeguard', 'e2e', `go-${randomUUID().slice(0, 8)}`);
  fs.mkdirSync(path.join(work, 'backend'), { recursive: true });
  fs.mkdirSync(path.join(work, 'project'), { recursive: true });
  env = {
    PATH: `${path.join(REPO, '.tools', 'pulumi', 'bin')}:${process.env.PATH}`,
    PULUMI_HOME: await installPlugin(path.join(work, 'home')),
    PULUMI_BACKEND_URL: `file://${path.join(work, 'backend')}`,
    PULUMI_CONFIG_PASSPHRASE: 'e2e-passphrase-not-a-secret',
    PULUMI_SKIP_UPDATE_CHECK: 'true',
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true',
    EDGEGUARD_BASE_URL: emu.baseUrl,
    EDGEGUARD_API_TOKEN: TOKEN,
  };
  binary = await buildExample();
}, 300_000);
afterAll(async () => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
  await emu?.close();
});

test('up deploys page security, both policies and the health notification', async () => {
  const up = await example('up');
  expect(up.changes).toEqual({ create: 5 });
  const live = await policies();
  expect(live.map((policy) => policy.description).sort()).toEqual([
    'Checkout: block every script outside the allow list (PCI DSS 6.4.3)',
    'Storefront: report scripts outside the reviewed list',
  ]);
  expect(Object.values(up.outputs.cspPolicyIds).sort()).toEqual(live.map((policy) => policy.id).sort());
  expect(up.outputs.pageSecurityEnabled).toBe(true);
  expect((await emu.api('GET', `zones/${DEMO.zoneId}/page_security`)).body.result.enabled).toBe(true);
  const notification = await emu.api(
    'GET',
    `accounts/${DEMO.accountId}/alerting/v3/policies/${up.outputs.healthNotificationId}`,
  );
  expect(notification.status).toBe(200);
  expect([...notification.body.result.filters.pool_id].sort()).toEqual([...poolIds].sort());
}, 180_000);

test('preview after up shows no change and writes nothing', async () => {
  const before = emu.mark();
  expect((await example('preview')).changes).toEqual({ same: 5 });
  expect(await emu.writesSince(before)).toEqual([]);
}, 180_000);

test('destroy removes what up made', async () => {
  expect((await example('destroy')).changes).toEqual({ delete: 5 });
  expect(await policies()).toEqual([]);
  expect((await emu.api('GET', `zones/${DEMO.zoneId}/page_security`)).body.result.enabled).toBe(false);
}, 180_000);
