import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEMO } from '../../../emulator/seed/demo';
import type { LoggedRequest } from '../../../emulator/core/request-log';
import { engineStack, failureOf, type EngineStack } from '../../helpers/engine';
import { REPO } from '../../helpers/repo';
import { until } from '../../helpers/until';
import { call, type Reply, type TestEmulator } from '../../helpers/emulator';
import { secondsSince } from './support';

/**
 * A migration interrupted in the middle completes on the next `pulumi up`, and its verification
 * proves every pool clear. The emulator runs as a child process with a data directory, so it can
 * be killed with SIGKILL between two bulk edits and restarted on the same state and port; in the
 * second scenario the dynamic-provider process is the one killed.
 */

const TOKEN = 'faults-migration-token-2b7d94e0';
const ACCOUNT = DEMO.accountId;
const POOLS = `accounts/${ACCOUNT}/load_balancers/pools`;
const EXTRA_POOLS = 3000;
const TOTAL_POOLS = EXTRA_POOLS + 60;
const PER_PAGE = 500;
const PROJECT = path.join(__dirname, 'programs', 'migration');
/**
 * Bulk edits after the first refused with 503 (not applied; the client retries them for about 20 s
 * of back-off), so that a kill after the first acknowledged edit lands before the second is
 * applied, however slow the machine. The emulator's random choices repeat for a seed: at rate 0.5,
 * seed 376 draws "let through" once, then "refuse" eight times. {@link refuseBulkEditsAfterTheFirst}
 * checks that before relying on it.
 */
const REFUSED_AFTER_THE_FIRST = { error_rate: 0.5, status: 503, seed: 376, methods: ['PATCH'] };

interface Pool {
  id: string;
  name: string;
  notification_email: string;
}

/** A free TCP port on the loopback interface (reused across restarts of the emulator). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The emulator as a child process (`node dist/emulator/cli.js`), spoken to over HTTP. */
class ChildEmulator {
  readonly baseUrl: string;
  private readonly controlUrl: string;
  private child: ChildProcess | undefined;
  readonly stderr: string[] = [];

  constructor(
    private readonly port: number,
    private readonly dataDir: string,
  ) {
    this.baseUrl = `http://127.0.0.1:${port}/client/v4`;
    this.controlUrl = `http://127.0.0.1:${port}/__emulator`;
  }

  /** Starts it and resolves once it prints its listening line. */
  async start(seed: 'demo' | 'none'): Promise<void> {
    const child = spawn(
      process.execPath,
      [
        path.join(REPO, 'dist', 'emulator', 'cli.js'),
        '--port',
        String(this.port),
        '--data-dir',
        this.dataDir,
        '--token',
        TOKEN,
        '--seed',
        seed,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes(`edgeguard-emulator listening on ${this.baseUrl}`)) resolve();
      });
      child.once('exit', (code) =>
        reject(new Error(`emulator exited with ${code} before listening: ${this.stderr.join('')}`)),
      );
    });
  }

  /** SIGKILL, and resolves once the process is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGTERM (a clean stop), and resolves once the process is gone. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
  }

  api(method: string, apiPath: string, body?: unknown): Promise<Reply> {
    return call(method, `${this.baseUrl}/${apiPath}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      ...(body !== undefined ? { body } : {}),
    });
  }

  control(method: string, controlPath: string, body?: unknown): Promise<Reply> {
    return call(method, `${this.controlUrl}/${controlPath}`, body === undefined ? {} : { body });
  }

  async requests(): Promise<LoggedRequest[]> {
    return (await this.control('GET', 'requests')).body.result;
  }

  async pools(): Promise<Pool[]> {
    const reply = await this.api('GET', POOLS);
    if (reply.status !== 200) throw new Error(`list pools: HTTP ${reply.status}`);
    return reply.body.result;
  }
}

/** Pids of the processes below `root` (its children, theirs, and so on), from /proc. */
function descendantsOf(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // The process ended while the list was read.
    }
  }
  const found: number[] = [];
  for (const pid of parentOf.keys()) {
    for (let up = parentOf.get(pid); up !== undefined && up > 1; up = parentOf.get(up)) {
      if (up === root) {
        found.push(pid);
        break;
      }
    }
  }
  return found;
}

/** The dynamic-provider processes this test's engine started (never anyone else's). */
function ourDynamicProviders(): number[] {
  return descendantsOf(process.pid).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dynamic-provider');
    } catch {
      return false;
    }
  });
}

/**
 * Sets {@link REFUSED_AFTER_THE_FIRST}, having first checked on an account that does not exist
 * (nothing changes) that its draws let one bulk edit through and refuse the next eight; setting it
 * again starts the draws over.
 */
async function refuseBulkEditsAfterTheFirst(emu: ChildEmulator): Promise<void> {
  expect((await emu.control('POST', 'faults', REFUSED_AFTER_THE_FIRST)).status).toBe(200);
  const refused: boolean[] = [];
  for (let i = 0; i < 9; i++) {
    refused.push(
      (
        await emu.api('PATCH', `accounts/${'f'.repeat(32)}/load_balancers/pools?per_page=1&page=1`, {
          notification_email: '',
        })
      ).status === 503,
    );
  }
  expect(refused).toEqual([false, ...Array<boolean>(8).fill(true)]);
  expect((await emu.control('POST', 'faults', REFUSED_AFTER_THE_FIRST)).status).toBe(200);
}

/** Polls until a bulk edit has been answered 200, and returns the log as it was then. */
async function firstAcknowledgedPatch(emu: ChildEmulator, timeoutMs: number): Promise<LoggedRequest[]> {
  let log: LoggedRequest[] = [];
  await until(
    async () => (log = await emu.requests()).some((entry) => entry.method === 'PATCH' && entry.status === 200),
    timeoutMs,
    () => `no bulk edit was answered within ${timeoutMs} ms`,
    25,
  );
  return log;
}

/** Seed document of `count` pools of the demo account, each with its own legacy e-mail. */
function extraPools(count: number) {
  return {
    pools: Array.from({ length: count }, (_, i) => ({
      account_id: ACCOUNT,
      name: `bulk-pool-${String(i).padStart(4, '0')}`,
      notification_email: `alerts-${i}@example.com`,
    })),
  };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-faults-migration-'));
let emu: ChildEmulator;
let engine: EngineStack;
const figures: Record<string, unknown> = {};
/** What the first scenario saw, for the test of what its record lost. */
let firstScenario: { clearedByInterruptedRun: string[]; removed: Record<string, string>; before: Pool[] } | undefined;

function newStack(): Promise<EngineStack> {
  // Without the emulator's DNS for commands (this program has none), engineStack reads only the
  // base address of the emulator it is given: this one runs in a child process.
  return engineStack({
    projectDir: PROJECT,
    emu: { baseUrl: emu.baseUrl } as TestEmulator,
    emulatorDns: false,
    token: TOKEN,
    config: {
      'edgeguard-faults-migration:accountId': { value: ACCOUNT },
      'edgeguard-faults-migration:perPage': { value: String(PER_PAGE) },
    },
  });
}

beforeAll(async () => {
  emu = new ChildEmulator(await freePort(), dataDir);
  await emu.start('demo');
  expect((await emu.control('POST', 'seed', extraPools(EXTRA_POOLS))).status).toBe(200);
  const pools = await emu.pools();
  expect(pools).toHaveLength(TOTAL_POOLS);
  expect(pools.filter((pool) => pool.notification_email === '')).toEqual([]);
  engine = await newStack();
}, 120_000);
afterAll(async () => {
  process.stdout.write(`migration-interrupted figures: ${JSON.stringify(figures)}\n`);
  await engine?.dispose();
  await emu?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('the emulator killed with SIGKILL after the first bulk edit: up fails, the acknowledged edit survived, and the next up clears every pool', async () => {
  const before = await emu.pools();
  await refuseBulkEditsAfterTheFirst(emu);

  const started = Date.now();
  const failedUp = failureOf(engine.up());
  const logAtKill = await firstAcknowledgedPatch(emu, 120_000);
  await emu.kill();
  const acknowledged = logAtKill.filter((entry) => entry.method === 'PATCH' && entry.status === 200);
  expect(acknowledged.map((entry) => entry.query)).toEqual([{ per_page: String(PER_PAGE), page: '1' }]);

  const failure = await failedUp;
  figures.firstUpSeconds = secondsSince(started);
  expect(failure).toBeInstanceOf(Error);
  expect(failure.message).toMatch(
    /bulk edit load-balancing pools \(PATCH accounts\/[0-9a-f]{32}\/load_balancers\/pools\?per_page=500&page=\d\) got no response/,
  );
  expect(failure.message).not.toContain(TOKEN);

  // Restart on the same state and port, loading nothing (a seed would put the demo e-mails back).
  await emu.start('none');
  const middle = await emu.pools();
  expect(middle).toHaveLength(TOTAL_POOLS);
  const cleared = middle.filter((pool) => pool.notification_email === '');
  figures.clearedByInterruptedUp = cleared.length;
  // The acknowledged edit (page 1 of the name order) is all there; the next one was being refused
  // when the emulator died, and the rest were never sent. Half-migrated.
  expect(middle.slice(0, PER_PAGE).filter((pool) => pool.notification_email !== '')).toEqual([]);
  expect(cleared).toHaveLength(PER_PAGE);
  expect(middle.slice(PER_PAGE).every((pool) => pool.notification_email !== '')).toBe(true);

  const again = Date.now();
  const up = await engine.up();
  figures.secondUpSeconds = secondsSince(again);
  expect(up.summary.result).toBe('succeeded');
  // The failed up recorded the stack, and the migration too as a partial failure (with what it had
  // removed): this up updates it rather than creating it.
  expect(up.summary.resourceChanges).toEqual({ update: 1, same: 1 });
  const after = await emu.pools();
  expect(after).toHaveLength(TOTAL_POOLS);
  expect(after.filter((pool) => pool.notification_email !== '').map((pool) => pool.name)).toEqual([]);
  expect(up.outputs.poolsSeen!.value).toBe(TOTAL_POOLS);
  expect(up.outputs.poolsCleared!.value).toBe(TOTAL_POOLS - cleared.length);
  expect(up.outputs.poolsWithEmail!.value).toBe(0);
  // The addresses the second run removed are recorded as they were before the migration.
  const removed = up.outputs.removedEmails!.value as Record<string, string>;
  const byName = new Map(before.map((pool) => [pool.name, pool.notification_email]));
  for (const [name, email] of Object.entries(removed)) expect(email).toBe(byName.get(name));
  figures.removedEmailsRecorded = Object.keys(removed).length;
  firstScenario = { clearedByInterruptedRun: cleared.map((pool) => pool.name), removed, before };

  const preview = await engine.preview({ expectNoChanges: true });
  expect(preview.changeSummary).toEqual({ same: 2 });
  expect(engine.stateText()).not.toContain(TOKEN);
}, 300_000);

// The interrupted run's create failed part-way; the provider reported it as a partial failure
// carrying the addresses removed so far (and those of the page in flight), so the engine kept them
// and the next run merged them: `removedEmails` holds every address this resource ever removed.
test('removedEmails after an interrupted migration records the addresses the interrupted run removed too', async () => {
  expect(firstScenario).toBeDefined();
  const { clearedByInterruptedRun, removed, before } = firstScenario!;
  expect(clearedByInterruptedRun.length).toBeGreaterThanOrEqual(PER_PAGE);
  const original = new Map(before.map((pool) => [pool.name, pool.notification_email]));
  const missing = clearedByInterruptedRun.filter((name) => removed[name] !== original.get(name));
  expect({ missing: missing.length, examples: missing.slice(0, 3) }).toEqual({ missing: 0, examples: [] });
}, 60_000);

test('the dynamic-provider process killed with SIGKILL after the first bulk edit: up fails, and the next up clears every pool', async () => {
  // A new stack over the same account, whose pools all carry an e-mail again.
  const fresh = await newStack();
  try {
    for (let page = 1; page <= Math.ceil(TOTAL_POOLS / 1000); page++) {
      const reply = await emu.api('PATCH', `${POOLS}?per_page=1000&page=${page}`, {
        notification_email: 'legacy-again@example.com',
      });
      expect(reply.status).toBe(200);
    }
    expect((await emu.pools()).filter((pool) => pool.notification_email === '')).toEqual([]);
    await refuseBulkEditsAfterTheFirst(emu);
    expect(ourDynamicProviders()).toEqual([]);

    expect((await emu.control('DELETE', 'requests')).status).toBe(200);
    const failedUp = failureOf(fresh.up());
    await firstAcknowledgedPatch(emu, 120_000);
    const providers = ourDynamicProviders();
    expect(providers).toHaveLength(1);
    process.kill(providers[0]!, 'SIGKILL');

    const failure = await failedUp;
    expect(failure).toBeInstanceOf(Error);
    expect(failure.message).not.toContain(TOKEN);
    figures.providerKillMessage = failure.message
      .split('\n')
      .filter((line) => /error/i.test(line))
      .slice(0, 3);
    await emu.control('POST', 'faults', {});
    const middle = await emu.pools();
    const cleared = middle.filter((pool) => pool.notification_email === '').length;
    figures.clearedBeforeProviderKill = cleared;
    expect(cleared).toBe(PER_PAGE);

    const up = await fresh.up();
    expect(up.summary.result).toBe('succeeded');
    expect(up.summary.resourceChanges).toEqual({ create: 1, same: 1 });
    expect((await emu.pools()).filter((pool) => pool.notification_email !== '').map((pool) => pool.name)).toEqual([]);
    expect(up.outputs.poolsSeen!.value).toBe(TOTAL_POOLS);
    expect(up.outputs.poolsCleared!.value).toBe(TOTAL_POOLS - cleared);
    await fresh.preview({ expectNoChanges: true });
  } finally {
    await fresh.dispose();
  }
}, 300_000);

test('a clean stop and a start on the same data directory keep the migrated state', async () => {
  await emu.stop();
  await emu.start('none');
  expect((await emu.pools()).filter((pool) => pool.notification_email !== '')).toEqual([]);
  expect(emu.stderr.join('')).not.toContain(TOKEN);
}, 60_000);
