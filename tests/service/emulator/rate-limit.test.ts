import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildEmulator } from '../../../emulator/app';
import { REPO } from '../../helpers/repo';
import {
  ACCOUNT_ID,
  startTestEmulator,
  TEST_TOKEN,
  ZONE_ID,
  type Reply,
  type TestEmulator,
} from '../../helpers/emulator';

/**
 * The API rate limit (contract, "API rate limit") over HTTP: what is counted and for whom, the
 * budget headers, the 429 block and its length, the clock control, `off`, and bad settings.
 * Scaled down to 5 calls per 10 s so a test reaches the limit in a few calls; the default is
 * checked at its full 1,200.
 */

const LIMIT = { limit: 5, windowSeconds: 10 };
const OTHER_TOKEN = 'other-token-0123456789';
const EMAIL = 'ops@example.com';
const KEY = 'key-0123456789abcdef';
const SETTINGS = `zones/${ZONE_ID}/page_security`;
const POOLS = `accounts/${ACCOUNT_ID}/load_balancers/pools`;

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ apiRateLimit: LIMIT, tokens: [TEST_TOKEN, OTHER_TOKEN], email: EMAIL, key: KEY });
});
afterAll(async () => emu.close());
// Each test starts with every credential on a fresh budget.
beforeEach(async () => {
  await emu.control('POST', 'clock', { advance_seconds: 3600 });
});

const other = { authorization: `Bearer ${OTHER_TOKEN}` };
const emailKey = (email = EMAIL) => ({ 'x-auth-email': email, 'x-auth-key': KEY });

/** `{r, t}` of a reply's `Ratelimit` header, after checking its form. */
function budget(reply: Reply): { r: number; t: number } {
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(String(reply.headers.ratelimit));
  if (!match) throw new Error(`Ratelimit: ${String(reply.headers.ratelimit)} (HTTP ${reply.status})`);
  return { r: Number(match[1]), t: Number(match[2]) };
}

async function spend(calls: number, headers?: Record<string, string>): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let i = 0; i < calls; i++) replies.push(await emu.api('GET', SETTINGS, headers ? { headers } : {}));
  return replies;
}

test('every answered call counts and carries its budget; the first of a window shows limit - 1', async () => {
  const replies = await spend(3);
  expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200]);
  expect(replies.map((reply) => budget(reply).r)).toEqual([4, 3, 2]);
  expect(replies.every((reply) => budget(reply).t === 10)).toBe(true);
  expect(replies.every((reply) => reply.headers['ratelimit-policy'] === '"default";q=5;w=10')).toBe(true);

  // A 404 of an unknown zone, one of no route and a 400 are answered calls: they count too.
  const unknownZone = await emu.api('GET', 'zones/c00000000000000000000000000000ff/page_security');
  expect(unknownZone.status).toBe(404);
  expect(budget(unknownZone).r).toBe(1);
  const noRoute = await emu.api('GET', 'nothing/here');
  expect(noRoute.status).toBe(404);
  expect(budget(noRoute).r).toBe(0);
});

test('t counts down with the clock to the window end, and a new window starts after it', async () => {
  expect(budget((await spend(1))[0]!)).toEqual({ r: 4, t: 10 });
  await emu.control('POST', 'clock', { advance_seconds: 6.5 });
  expect(budget((await spend(1))[0]!)).toEqual({ r: 3, t: 4 });
  await emu.control('POST', 'clock', { advance_seconds: 3.5 });
  expect(budget((await spend(1))[0]!)).toEqual({ r: 4, t: 10 });
});

test('the call past the limit is refused with 429, code 971, Retry-After and r=0, and so is every call of the block', async () => {
  await spend(5);
  const refused = await emu.api('GET', SETTINGS);
  expect(refused.status).toBe(429);
  expect(refused.body.success).toBe(false);
  expect(refused.body.result).toBeNull();
  expect(refused.body.errors).toEqual([
    { code: 971, message: expect.stringMatching(/^rate limited: wait and slow down/) },
  ]);
  expect(refused.headers['retry-after']).toBe('10');
  expect(budget(refused)).toEqual({ r: 0, t: 10 });
  expect(refused.headers['ratelimit-policy']).toBe('"default";q=5;w=10');

  // The block holds every route and method, and refused calls do not lengthen it.
  await emu.control('POST', 'clock', { advance_seconds: 4 });
  const write = await emu.api('PUT', SETTINGS, { body: { enabled: true } });
  expect(write.status).toBe(429);
  expect(write.headers['retry-after']).toBe('6');
  expect(budget(write)).toEqual({ r: 0, t: 6 });
  await spend(3);
  await emu.control('POST', 'clock', { advance_seconds: 5.5 });
  const last = await emu.api('GET', SETTINGS);
  expect(last.status).toBe(429);
  expect(last.headers['retry-after']).toBe('1');
  // The refused PUT changed nothing.
  expect((await emu.control('GET', 'state')).body.result.page_security_settings).toBeUndefined();

  // After the block, a new window.
  await emu.control('POST', 'clock', { advance_seconds: 0.5 });
  const after = await emu.api('GET', SETTINGS);
  expect(after.status).toBe(200);
  expect(budget(after)).toEqual({ r: 4, t: 10 });
});

test('the block is logged as 429s, each refusal a logged call', async () => {
  const mark = emu.mark();
  await spend(7);
  expect((await emu.requests(mark)).map((entry) => entry.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
});

test('a 401 counts for no one and carries no budget', async () => {
  const bad = await emu.api('GET', SETTINGS, { headers: { authorization: 'Bearer not-a-known-token' } });
  expect(bad.status).toBe(401);
  expect(bad.headers.ratelimit).toBeUndefined();
  expect(bad.headers['ratelimit-policy']).toBeUndefined();
  const badKey = await emu.api('GET', POOLS, { headers: { 'x-auth-email': EMAIL, 'x-auth-key': 'wrong' } });
  expect(badKey.status).toBe(401);
  expect(badKey.headers.ratelimit).toBeUndefined();
  // Neither the e-mail's budget nor anyone else's moved.
  expect(budget((await spend(1, emailKey()))[0]!).r).toBe(4);
  expect(budget((await spend(1))[0]!).r).toBe(4);
});

test('each credential has its own budget: a token, another token, an e-mail (whatever its case)', async () => {
  await spend(6);
  expect((await emu.api('GET', SETTINGS)).status).toBe(429);

  const otherToken = await spend(1, other);
  expect(otherToken[0]!.status).toBe(200);
  expect(budget(otherToken[0]!).r).toBe(4);

  // E-mail + key reach pools (page security wants a token); the e-mail is the credential.
  const byEmail = await emu.api('GET', POOLS, { headers: emailKey() });
  expect(byEmail.status).toBe(200);
  expect(budget(byEmail).r).toBe(4);
  const upperCase = await emu.api('GET', POOLS, { headers: emailKey(EMAIL.toUpperCase()) });
  expect(budget(upperCase).r).toBe(3);
  // A 403 (page security refuses e-mail + key) is an answered call of that e-mail.
  const forbidden = await emu.api('GET', SETTINGS, { headers: emailKey() });
  expect(forbidden.status).toBe(403);
  expect(budget(forbidden).r).toBe(2);
});

test('the control API never counts and carries no budget', async () => {
  for (let i = 0; i < 20; i++) {
    const reply = await emu.control('GET', 'clock');
    expect(reply.status).toBe(200);
    expect(reply.headers.ratelimit).toBeUndefined();
  }
  expect(budget((await spend(1))[0]!).r).toBe(4);
});

test('the control API reset forgets windows and blocks', async () => {
  await spend(6);
  expect((await emu.api('GET', SETTINGS)).status).toBe(429);
  await emu.control('POST', 'reset');
  await emu.seed({
    accounts: [{ id: ACCOUNT_ID, name: 'Acme' }],
    zones: [{ id: ZONE_ID, name: 'example.com', account_id: ACCOUNT_ID }],
  });
  const after = await emu.api('GET', SETTINGS);
  expect(after.status).toBe(200);
  expect(budget(after).r).toBe(4);
});

test('a restart on the same data directory keeps windows and blocks', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-rate-'));
  try {
    const first = await startTestEmulator({ apiRateLimit: LIMIT, dataDir, tokens: [TEST_TOKEN, OTHER_TOKEN] });
    for (let i = 0; i < 6; i++) await first.api('GET', SETTINGS);
    await first.api('GET', SETTINGS, { headers: other });
    await first.close();
    const second = await startTestEmulator({ apiRateLimit: LIMIT, dataDir, tokens: [TEST_TOKEN, OTHER_TOKEN] });
    try {
      const blocked = await second.api('GET', SETTINGS);
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(5);
      expect(budget(await second.api('GET', SETTINGS, { headers: other })).r).toBe(3);
      // Only hashes are kept: no credential in the state.
      expect(JSON.stringify((await second.control('GET', 'state')).body.result)).not.toMatch(/test-token|other-token/);
    } finally {
      await second.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

describe('the default limit', () => {
  let full: TestEmulator;
  beforeAll(async () => {
    // The emulator's own default, not the tests' larger one.
    full = await startTestEmulator({ apiRateLimit: undefined });
  });
  afterAll(async () => full.close());

  test('is 1,200 calls per 300 s: the 1,201st is refused for 300 s', async () => {
    const first = await full.api('GET', SETTINGS);
    expect(budget(first)).toEqual({ r: 1199, t: 300 });
    expect(first.headers['ratelimit-policy']).toBe('"default";q=1200;w=300');
    for (let i = 2; i <= 1200; i++) {
      const reply = await full.api('GET', SETTINGS);
      if (reply.status !== 200) throw new Error(`call ${i}: HTTP ${reply.status}`);
    }
    const refused = await full.api('GET', SETTINGS);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('300');
    await full.control('POST', 'clock', { advance_seconds: 299 });
    expect((await full.api('GET', SETTINGS)).headers['retry-after']).toBe('1');
    await full.control('POST', 'clock', { advance_seconds: 1 });
    expect(budget(await full.api('GET', SETTINGS))).toEqual({ r: 1199, t: 300 });
  }, 60_000);
});

test('off counts nothing and sends no budget headers', async () => {
  const off = await startTestEmulator({ apiRateLimit: 'off' });
  try {
    for (let i = 0; i < 30; i++) {
      const reply = await off.api('GET', SETTINGS);
      expect(reply.status).toBe(200);
      expect(reply.headers.ratelimit).toBeUndefined();
      expect(reply.headers['ratelimit-policy']).toBeUndefined();
    }
  } finally {
    await off.close();
  }
});

test('a bad apiRateLimit option is refused, naming the option and the form', () => {
  for (const bad of [{ limit: 0, windowSeconds: 10 }, { limit: 5, windowSeconds: 1.5 }, { limit: 5 }]) {
    expect(() => buildEmulator({ apiRateLimit: bad as never })).toThrow(
      /^apiRateLimit: .* must be \{limit, windowSeconds\}, two whole numbers from 1, or "off"/,
    );
  }
});

describe('--api-rate-limit on the command line', () => {
  const BIN = path.join(REPO, 'dist', 'emulator', 'cli.js');

  /** Runs the bin until it listens (then `stop` ends it) or exits. */
  function run(args: string[]): Promise<{ code: number | null; stderr: string; baseUrl?: string; stop(): void }> {
    const child = spawn(process.execPath, [BIN, '--port', '0', '--seed', 'none', '--token', TEST_TOKEN, ...args]);
    let stdout = '';
    let stderr = '';
    const stop = () => void child.kill('SIGTERM');
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const baseUrl = /listening on (\S+)\n/.exec(stdout)?.[1];
        if (baseUrl !== undefined) resolve({ code: null, stderr, baseUrl, stop });
      });
      child.on('exit', (code) => resolve({ code, stderr, stop }));
    });
  }

  test.each(['0/10', '10', '10/0', 'abc', '5/-1', '1.5/10', ''])(
    '"%s" exits 2, naming the flag and the form',
    async (value) => {
      const { code, stderr } = await run(['--api-rate-limit', value]);
      expect(code).toBe(2);
      expect(stderr).toContain(`--api-rate-limit: "${value}" must be REQUESTS/SECONDS`);
      expect(stderr).toMatch(/or off/);
    },
  );

  test('N/S sets the limit and the window; off removes the headers', async () => {
    const scaled = await run(['--api-rate-limit', '3/7']);
    const off = await run(['--api-rate-limit', 'off']);
    const reply = await fetch(`${scaled.baseUrl}/zones/${ZONE_ID}/page_security`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(reply.headers.get('ratelimit')).toBe('"default";r=2;t=7');
    expect(reply.headers.get('ratelimit-policy')).toBe('"default";q=3;w=7');
    const unlimited = await fetch(`${off.baseUrl}/zones/${ZONE_ID}/page_security`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(unlimited.status).toBe(404);
    expect(unlimited.headers.get('ratelimit')).toBeNull();
    scaled.stop();
    off.stop();
  });
});
