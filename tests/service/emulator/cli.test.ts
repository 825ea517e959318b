import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEMO } from '../../../emulator/seed/demo';
import { call, type Reply } from '../../helpers/emulator';
import { REPO } from '../../helpers/repo';

/**
 * The `edgeguard-emulator` bin as a user runs it: flags, the start-up line, signals, and the
 * durability promise under `kill -9`. Runs the compiled bin (`npm test` builds before jest).
 */

const BIN = path.join(REPO, 'dist', 'emulator', 'cli.js');
const TOKEN = 'cli-test-token-123';
const ACCOUNT = 'a00000000000000000000000000000c1';
const ZONE = 'c00000000000000000000000000000c1';

interface Child {
  process: ChildProcessWithoutNullStreams;
  baseUrl: string;
  stdout: () => string;
  stderr: () => string;
}

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first (npm test does)`);
});

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-cli-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function start(args: string[]): Promise<Child> {
  const child = spawn(process.execPath, [BIN, '--port', '0', '--token', TOKEN, ...args]);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^edgeguard-emulator listening on (http:\/\/127\.0\.0\.1:\d+\/client\/v4)\n/.exec(stdout);
      if (match) resolve({ process: child, baseUrl: match[1]!, stdout: () => stdout, stderr: () => stderr });
    });
    child.on('exit', (code) => reject(new Error(`emulator exited with ${code} before listening: ${stderr}`)));
  });
}

/** The exit code (null when a signal ended it), also when the process is already gone. */
function exited(child: Child): Promise<number | null> {
  if (child.process.exitCode !== null || child.process.signalCode !== null)
    return Promise.resolve(child.process.exitCode);
  return new Promise((resolve) => child.process.on('exit', (code) => resolve(code)));
}

const auth = { authorization: `Bearer ${TOKEN}` };
const control = (child: Child, route: string, body: unknown) =>
  call('POST', child.baseUrl.replace('/client/v4', `/__emulator/${route}`), { body });

test('prints exactly the start-up line, serves, and exits 0 on SIGTERM', async () => {
  const child = await start(['--seed', 'none']);
  expect(child.stdout()).toMatch(/^edgeguard-emulator listening on http:\/\/127\.0\.0\.1:\d+\/client\/v4\n$/);
  const reply = await call('GET', `${child.baseUrl}/zones/${ZONE}/page_security`, { headers: auth });
  expect(reply.status).toBe(404);
  child.process.kill('SIGTERM');
  expect(await exited(child)).toBe(0);
});

test('refuses a bad flag with exit code 2 and the usage', async () => {
  const child = spawn(process.execPath, [BIN, '--port', 'eighty']);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  expect(code).toBe(2);
  expect(stderr).toMatch(/--port: "eighty" is not a port number/);
  expect(stderr).toMatch(/usage: edgeguard-emulator/);
});

test('--dialect vendor serves the vendor paths and token; an unknown dialect exits 2 naming the flag', async () => {
  const child = await start(['--dialect', 'vendor', '--seed', 'none']);
  try {
    const zones = { accounts: [{ id: ACCOUNT }], zones: [{ id: ZONE, name: 'cli.example', account_id: ACCOUNT }] };
    expect(
      (await call('POST', `${child.baseUrl.replace('/client/v4', '/__emulator')}/seed`, { body: zones })).status,
    ).toBe(200);
    const settings = await call('GET', `${child.baseUrl}/zones/${ZONE}/page_shield`, { headers: auth });
    expect(settings.status).toBe(200);
    expect(settings.body.result).toHaveProperty('use_cloudflare_reporting_endpoint', true);
    expect((await call('GET', `${child.baseUrl}/zones/${ZONE}/page_security`, { headers: auth })).status).toBe(404);
  } finally {
    child.process.kill('SIGTERM');
    await exited(child);
  }
  const bad = spawn(process.execPath, [BIN, '--port', '0', '--dialect', 'cloud']);
  let stderr = '';
  bad.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  expect(await new Promise((resolve) => bad.on('exit', resolve))).toBe(2);
  expect(stderr).toMatch(/--dialect: "cloud" is not a dialect \(one of spec, vendor\)/);
});

test('a new data directory gets the demo seed; a restarted one keeps its state instead', async () => {
  const dataDir = tempDir();
  const first = await start(['--data-dir', dataDir]);
  const pools = `${first.baseUrl}/accounts/${DEMO.accountId}/load_balancers/pools`;
  expect((await call('GET', pools, { headers: auth })).body.result).toHaveLength(60);
  const cleared = await call('PATCH', pools, {
    headers: auth,
    body: { notification_email: '' },
    query: { per_page: 1000 },
  });
  expect(cleared.status).toBe(200);
  first.process.kill('SIGINT');
  expect(await exited(first)).toBe(0);

  const second = await start(['--data-dir', dataDir]);
  try {
    const after = await call('GET', `${second.baseUrl}/accounts/${DEMO.accountId}/load_balancers/pools`, {
      headers: auth,
    });
    expect(after.body.result).toHaveLength(60);
    expect(after.body.result.filter((p: { notification_email: string }) => p.notification_email !== '')).toEqual([]);
  } finally {
    second.process.kill('SIGTERM');
    await exited(second);
  }
});

test('kill -9 during a burst of writes loses no acknowledged write', async () => {
  const dataDir = tempDir();
  const first = await start(['--data-dir', dataDir, '--seed', 'none']);
  expect(
    (
      await control(first, 'seed', {
        accounts: [{ id: ACCOUNT, name: 'Acme' }],
        zones: [{ id: ZONE, name: 'example.com', account_id: ACCOUNT }],
      })
    ).status,
  ).toBe(200);

  const acknowledged: string[] = [];
  let stop = false;
  const writer = async (worker: number) => {
    for (let i = 0; !stop; i++) {
      let reply: Reply;
      try {
        reply = await call('POST', `${first.baseUrl}/zones/${ZONE}/page_security/policies`, {
          headers: auth,
          body: {
            description: `w${worker}-${i}`,
            action: 'log',
            expression: 'http.host eq "shop.example.com"',
            enabled: 'true',
            value: "script-src 'self'",
          },
        });
      } catch {
        return; // the connection died with the process: this write was never acknowledged
      }
      if (reply.status === 200) acknowledged.push(reply.body.result.id);
    }
  };
  let running = 8;
  const writers = Array.from({ length: running }, (_, worker) => writer(worker).finally(() => running--));
  while (acknowledged.length < 150 && running > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(running).toBe(8);
  first.process.kill('SIGKILL');
  stop = true;
  await Promise.all(writers);
  expect(await exited(first)).toBeNull();
  expect(first.process.signalCode).toBe('SIGKILL');

  const second = await start(['--data-dir', dataDir]);
  try {
    const listed = await call('GET', `${second.baseUrl}/zones/${ZONE}/page_security/policies`, { headers: auth });
    const present = new Set(listed.body.result.map((p: { id: string }) => p.id));
    const lost = acknowledged.filter((id) => !present.has(id));
    expect(lost).toEqual([]);
    expect(present.size).toBeGreaterThanOrEqual(acknowledged.length);
  } finally {
    second.process.kill('SIGTERM');
    await exited(second);
  }
}, 60_000);

test('--seed FILE loads a seed document; --admin-token guards the control API; --email/--key are accepted', async () => {
  const dir = tempDir();
  const seedFile = path.join(dir, 'seed.json');
  fs.writeFileSync(
    seedFile,
    JSON.stringify({
      accounts: [{ id: ACCOUNT, name: 'Acme' }],
      zones: [{ id: ZONE, name: 'example.com', account_id: ACCOUNT }],
      pools: [{ account_id: ACCOUNT, name: 'only-pool', notification_email: 'noc@example.com' }],
    }),
  );
  const child = await start([
    '--seed',
    seedFile,
    '--admin-token',
    'admin-cli-secret',
    '--email',
    'ops@example.com',
    '--key',
    'cli-key-123',
  ]);
  try {
    const pools = await call('GET', `${child.baseUrl}/accounts/${ACCOUNT}/load_balancers/pools`, {
      headers: { 'x-auth-email': 'ops@example.com', 'x-auth-key': 'cli-key-123' },
    });
    expect(pools.status).toBe(200);
    expect(pools.body.result.map((p: { name: string }) => p.name)).toEqual(['only-pool']);
    const controlUrl = child.baseUrl.replace('/client/v4', '/__emulator/clock');
    expect((await call('GET', controlUrl)).status).toBe(401);
    expect((await call('GET', controlUrl, { headers: { authorization: 'Bearer admin-cli-secret' } })).status).toBe(200);
  } finally {
    child.process.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  }
  expect(child.stdout()).not.toContain('cli-key-123');
  expect(child.stderr()).not.toContain('cli-key-123');
});

test('a seed file with a bad field refuses to start, naming the field', async () => {
  const seedFile = path.join(tempDir(), 'seed.json');
  fs.writeFileSync(seedFile, JSON.stringify({ zones: [{ name: 'example.com', account_id: 'not-an-id' }] }));
  await expect(start(['--seed', seedFile])).rejects.toThrow(/zones\[0\]\.account_id/);
});
