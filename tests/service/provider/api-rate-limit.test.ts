import { RateLimitError } from '../../../provider/client/errors';
import { HttpClient, type HttpOptions } from '../../../provider/client/http';
import { ApiBudget } from '../../../provider/client/pacing';
import { clientFor } from '../../../provider/client/shared';
import { dynamicContext } from '../../../provider/dynamic/context';
import { resolveSettings, type Settings } from '../../../provider/settings';
import { getSettings } from '../../helpers/client';
import { configureProvider } from '../../helpers/provider';
import { DEFAULT_API_RATE_LIMIT } from '../../../emulator/core/rate-limit';
import { startTestEmulator, TEST_TOKEN, ZONE_ID, type TestEmulator } from '../../helpers/emulator';

/**
 * The client under the service's API limit, against the emulator over HTTP with the limit scaled
 * down to 20 calls per 4 s: a run that needs more paces itself and draws no 429, clients that
 * share a credential in one process share its budget, separate processes on one credential all
 * finish, and the waits on the service's own work poll at a tenth of the budget.
 */

const LIMIT = { limit: 20, windowSeconds: 4 };
const SETTINGS_PATH = `zones/${ZONE_ID}/page_security`;

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ apiRateLimit: LIMIT });
});
afterAll(async () => emu.close());
// Every test starts on a fresh window: the clock moves past any window or block left.
beforeEach(async () => {
  await emu.control('POST', 'clock', { advance_seconds: 60 });
});

const settings = (vendor?: string): Settings =>
  resolveSettings({ explicit: { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN, ...(vendor ? { vendor } : {}) }, env: {} });

/** A client as a separate process has it: its own budget, its notices kept. */
function processClient(options: HttpOptions = {}) {
  const notices: string[] = [];
  const budget = new ApiBudget(undefined, undefined, (line) => notices.push(line));
  return { http: new HttpClient(settings(), { budget, ...options }), notices };
}

async function run(http: HttpClient, calls: number): Promise<void> {
  for (let i = 0; i < calls; i++) await getSettings(http);
}

async function statuses(mark: number): Promise<Array<number | null>> {
  return (await emu.requests(mark)).map((entry) => entry.status);
}

test('a run that needs more than the limit paces itself, draws no 429 and says once that it waits', async () => {
  const { http, notices } = processClient();
  const mark = emu.mark();
  const started = Date.now();
  await run(http, 50);
  const seen = await statuses(mark);
  expect(seen).toHaveLength(50);
  expect(seen.every((status) => status === 200)).toBe(true);
  // 50 calls need three windows: at least two waits of about 4 s.
  expect(Date.now() - started).toBeGreaterThanOrEqual(7_000);
  expect(notices).toHaveLength(1);
  expect(notices[0]).toMatch(
    /^edgeguard: waiting [1-5] s for the service's API limit \(20 calls per 4 s per credential/,
  );
  expect(notices[0]).not.toContain(TEST_TOKEN);
}, 30_000);

test('the same run in parallel (8 at a time) draws no 429 either', async () => {
  const { http } = processClient();
  const mark = emu.mark();
  await Promise.all(Array.from({ length: 8 }, () => run(http, 6)));
  const seen = await statuses(mark);
  expect(seen).toHaveLength(48);
  expect(seen.every((status) => status === 200)).toBe(true);
}, 30_000);

test("the process's clients of one credential share its budget, whatever their other settings", async () => {
  // Two settings of one token (another vendor token makes another client).
  const a = clientFor(settings());
  const b = clientFor(settings('othervendor'));
  expect(a).not.toBe(b);
  const mark = emu.mark();
  await Promise.all([run(a, 25), run(b, 25)]);
  const seen = await statuses(mark);
  expect(seen).toHaveLength(50);
  expect(seen.every((status) => status === 200)).toBe(true);
}, 30_000);

test('two processes on one token both finish: what the limit refuses is waited out', async () => {
  const one = processClient();
  const two = processClient();
  const mark = emu.mark();
  await Promise.all([run(one.http, 30), run(two.http, 30)]);
  const seen = await statuses(mark);
  expect(seen.filter((status) => status === 200)).toHaveLength(60);
  expect(seen.every((status) => status === 200 || status === 429)).toBe(true);
}, 60_000);

test('a 429 drawn by another tool on the credential is waited out (Retry-After), then the call succeeds', async () => {
  for (let i = 0; i < 21; i++) await emu.api('GET', SETTINGS_PATH);
  const { http, notices } = processClient();
  const mark = emu.mark();
  const started = Date.now();
  await getSettings(http);
  expect(await statuses(mark)).toEqual([429, 200]);
  expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
  expect(notices).toHaveLength(1);
}, 30_000);

test("without a limit of the caller's, 429s may wait two of the service's windows and a minute", async () => {
  // The emulator's clock stands still, so every 429 asks for the same 4 s; the client's clock
  // moves by its sleeps alone. The 4 s window allows 68 s of such waits, where the documented
  // 300 s window would allow 660 s.
  const frozen = await startTestEmulator({ apiRateLimit: LIMIT, now: () => Date.parse('2026-01-01T00:00:00Z') });
  try {
    let clock = 0;
    const sleeps: number[] = [];
    const http = new HttpClient(
      resolveSettings({ explicit: { baseUrl: frozen.baseUrl, apiToken: TEST_TOKEN }, env: {} }),
      {
        sleep: async (ms) => {
          clock += ms;
          sleeps.push(ms);
        },
        now: () => clock,
      },
    );
    for (let i = 0; i < 21; i++) await frozen.api('GET', SETTINGS_PATH);
    await expect(getSettings(http)).rejects.toBeInstanceOf(RateLimitError);
    expect(sleeps).toEqual(Array.from({ length: 17 }, () => 4_000));
  } finally {
    await frozen.close();
  }
});

test("the dynamic provider says it waits once, in the engine's output (its standard output)", async () => {
  const small = await startTestEmulator({ apiRateLimit: { limit: 3, windowSeconds: 2 } });
  const printed: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed.push(String(chunk));
    return true;
  });
  try {
    await configureProvider(small);
    for (let i = 0; i < 7; i++) await getSettings(dynamicContext().client);
  } finally {
    spy.mockRestore();
    await small.close();
  }
  expect(printed).toHaveLength(1);
  expect(printed[0]).toMatch(
    /^edgeguard: waiting [1-3] s for the service's API limit \(3 calls per 2 s per credential/,
  );
}, 30_000);

describe('a wait on the service polls at a tenth of the budget', () => {
  async function pauses(test: TestEmulator): Promise<number[]> {
    const sleeps: number[] = [];
    const http = new HttpClient(
      resolveSettings({ explicit: { baseUrl: test.baseUrl, apiToken: TEST_TOKEN }, env: {} }),
      { sleep: async (ms) => void sleeps.push(ms) },
    );
    const first = await getSettings(http);
    let reads = 0;
    await http.poll(
      first.result,
      async () => {
        reads++;
        return (await getSettings(http)).result;
      },
      () => reads >= 4,
      { timeoutMs: 600_000, intervalMs: 100 },
    );
    return sleeps;
  }

  test('20 calls per 4 s: no pause under 2 s', async () => {
    const seen = await pauses(emu);
    expect(seen).toEqual([2_000, 4_000, 8_000, 10_000]);
  });

  test("the service's 1,200 per 300 s: no pause under 2.5 s", async () => {
    const full = await startTestEmulator({ apiRateLimit: DEFAULT_API_RATE_LIMIT });
    try {
      expect(await pauses(full)).toEqual([2_500, 5_000, 10_000, 10_000]);
    } finally {
      await full.close();
    }
  });
});
