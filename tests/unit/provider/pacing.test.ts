import { clientFor, instanceClient } from '../../../provider/client/shared';
import { resolveSettings } from '../../../provider/settings';
import {
  ApiBudget,
  budgetReport,
  DEFAULT_API_POLICY,
  Pacer,
  paceDelayMs,
  pollIntervalFloorMs,
  rateLimitWaitAllowanceMs,
  type BudgetReport,
} from '../../../provider/client/pacing';

/** A fake clock: its sleeps move it instead of waiting, and are recorded. */
function fakeClock() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    advance: (ms: number) => void (now += ms),
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
      // Yield to other tasks, as a real timer would.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

/** The pacer on a fake clock. */
function fakePacer() {
  const clock = fakeClock();
  return { pacer: new Pacer(clock.sleep, clock.now), ...clock };
}

const LIMIT = { key: 'zone-a', limit: 3, windowMs: 1000 };

test('the limit-th + 1 send waits until the first accepted send leaves the window, plus the margin', async () => {
  const { pacer, advance, now } = fakePacer();
  for (let i = 0; i < 3; i++) {
    const slot = await pacer.acquire(LIMIT);
    advance(10); // the answer arrives 10 ms later
    slot.settle('counted');
  }
  // The first answer arrived at t=10: the window (1000 ms) plus the margin (1000 ms) ends at 2010.
  await pacer.acquire(LIMIT);
  expect(now()).toBe(2011);
});

test('a refused send gives its slot back at once', async () => {
  const { pacer, sleeps } = fakePacer();
  for (let i = 0; i < 3; i++) (await pacer.acquire(LIMIT)).settle(i === 0 ? 'refused' : 'counted');
  await pacer.acquire(LIMIT);
  expect(sleeps).toEqual([]);
});

test('slots in flight count against the limit until they settle, however long they take', async () => {
  const { pacer, sleeps, advance, now } = fakePacer();
  const held = [await pacer.acquire(LIMIT), await pacer.acquire(LIMIT), await pacer.acquire(LIMIT)];
  let fourthHeld = false;
  const fourth = pacer.acquire(LIMIT).then((slot) => {
    fourthHeld = true;
    return slot;
  });
  // An hour on the clock, and many turns of the pacer's wait (each of its sleeps moves the clock
  // too): the three sends have not answered, so the service may yet count them.
  advance(3_600_000);
  for (let turn = 0; turn < 200; turn++) await new Promise((resolve) => setImmediate(resolve));
  expect(fourthHeld).toBe(false);
  expect(sleeps.length).toBeGreaterThan(10);
  expect(now()).toBeGreaterThan(3_600_000 + LIMIT.windowMs + 1_000);

  // One is refused: its slot is free at once.
  held[0]!.settle('refused');
  const settledAt = now();
  await fourth;
  expect(fourthHeld).toBe(true);
  // The pacer looks again after its short wait for slots in flight (100 ms), not after a window.
  expect(now() - settledAt).toBeLessThanOrEqual(100);
});

test('keys are paced apart', async () => {
  const { pacer, sleeps } = fakePacer();
  for (let i = 0; i < 3; i++) (await pacer.acquire(LIMIT)).settle('counted');
  (await pacer.acquire({ ...LIMIT, key: 'zone-b' })).settle('counted');
  expect(sleeps).toEqual([]);
});

describe('the API budget', () => {
  const POLICY = { limit: 20, windowMs: 4_000 };
  const view = (left: number, resetAtMs: number, lastSentMs?: number) => ({
    left,
    resetAtMs,
    policy: POLICY,
    lastSentMs,
  });

  describe('budgetReport reads the headers, and ignores what it cannot read', () => {
    test('both headers', () => {
      expect(budgetReport({ ratelimit: '"default";r=17;t=3', 'ratelimit-policy': '"default";q=20;w=4' })).toEqual({
        remaining: 17,
        resetSeconds: 3,
        policy: { limit: 20, windowMs: 4_000 },
      });
    });
    test('a malformed or missing Ratelimit: no report', () => {
      for (const ratelimit of [
        undefined,
        '',
        '"default"',
        '"default";r=x;t=3',
        '"default";r=1',
        '"default";r=-1;t=3',
        ['a', 'b'],
      ]) {
        expect(budgetReport({ ratelimit, 'ratelimit-policy': '"default";q=20;w=4' })).toBeUndefined();
      }
    });
    test('a malformed Ratelimit-Policy alone is left out', () => {
      for (const policy of [undefined, '"default";q=0;w=4', '"default";q=20', 'nonsense']) {
        expect(budgetReport({ ratelimit: '"default";r=5;t=2', 'ratelimit-policy': policy })).toEqual({
          remaining: 5,
          resetSeconds: 2,
          policy: undefined,
        });
      }
    });
  });

  describe('paceDelayMs', () => {
    test('nothing known, or the window over: no wait', () => {
      expect(paceDelayMs(undefined, 1_000)).toBe(0);
      expect(paceDelayMs(view(0, 1_000, 900), 1_000)).toBe(0);
    });
    test('enough left for the time left: no wait, however fast the calls come', () => {
      // 19 left, the whole window to run: the reserve is 2.
      expect(paceDelayMs(view(19, 4_000, 0), 0)).toBe(0);
      expect(paceDelayMs(view(2, 4_000, 0), 0)).toBe(0);
    });
    test('nothing left: until the reset and the margin', () => {
      expect(paceDelayMs(view(0, 3_000, 900), 1_000)).toBe(2_250);
      expect(paceDelayMs(view(-3, 3_000, 900), 1_000)).toBe(2_250);
    });
    test('low for the time left: calls spaced so the rest lasts until the reset', () => {
      // 1 left with 4 s to run (reserve 2): the next call 4 s after the last.
      expect(paceDelayMs(view(1, 4_000, 0), 0)).toBe(4_000);
      expect(paceDelayMs(view(1, 4_000, 0), 1_500)).toBe(1_000);
      // The same budget late in the window is enough: the reserve shrinks with the time left.
      expect(paceDelayMs(view(1, 4_000, 3_000), 3_000)).toBe(0);
      // Under the default policy, 100 left with 250 s to run (reserve 100) is not low; 99 is.
      const full = { policy: { limit: 1200, windowMs: 300_000 }, resetAtMs: 250_000, lastSentMs: 0 };
      expect(paceDelayMs({ ...full, left: 100 }, 0)).toBe(0);
      expect(paceDelayMs({ ...full, left: 99 }, 0)).toBe(2_526);
    });
  });

  test('a wait on the service polls at a tenth of the budget; 429s may wait two windows and a minute', () => {
    expect(pollIntervalFloorMs(DEFAULT_API_POLICY)).toBe(2_500);
    expect(pollIntervalFloorMs(POLICY)).toBe(2_000);
    expect(rateLimitWaitAllowanceMs(DEFAULT_API_POLICY)).toBe(660_000);
    expect(rateLimitWaitAllowanceMs(POLICY)).toBe(68_000);
  });

  /** A service with the contract's fixed windows, on the fake clock: what it answers a call with. */
  function fakeService(now: () => number, policy = POLICY) {
    let start = -Infinity;
    let count = 0;
    let blockedUntil = -Infinity;
    const refused: number[] = [];
    return {
      refused,
      call(): BudgetReport {
        const at = now();
        if (at < blockedUntil) {
          refused.push(at);
          return { remaining: 0, resetSeconds: Math.ceil((blockedUntil - at) / 1000), policy };
        }
        if (at >= start + policy.windowMs) [start, count] = [at, 0];
        if (count >= policy.limit) {
          blockedUntil = at + policy.windowMs;
          refused.push(at);
          return { remaining: 0, resetSeconds: policy.windowMs / 1000, policy };
        }
        count++;
        return {
          remaining: policy.limit - count,
          resetSeconds: Math.ceil((start + policy.windowMs - at) / 1000),
          policy,
        };
      },
    };
  }

  /** The budget on a fake clock, its notices kept. */
  function fakeBudget() {
    const clock = fakeClock();
    const notices: string[] = [];
    return { budget: new ApiBudget(clock.sleep, clock.now, (line) => notices.push(line)), notices, ...clock };
  }

  test('a run of 100 calls under 20 per 4 s draws no refusal, takes about five windows, and says so once', async () => {
    const { budget, notices, now, advance } = fakeBudget();
    const service = fakeService(now);
    for (let i = 0; i < 100; i++) {
      const ticket = await budget.take();
      advance(5); // the answer takes 5 ms
      ticket.settle(service.call());
    }
    expect(service.refused).toEqual([]);
    // 100 calls need five windows: the fifth starts after at least 16 s.
    expect(now()).toBeGreaterThanOrEqual(16_000);
    expect(now()).toBeLessThan(25_000);
    expect(budget.policy).toEqual(POLICY);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /^edgeguard: waiting \d+ s for the service's API limit \(20 calls per 4 s per credential/,
    );
  });

  test("a review's 2,007 calls under the service's 1,200 per 300 s: no refusal, one line saying the spacing lasts until the window resets", async () => {
    const { budget, notices, now, advance } = fakeBudget();
    const service = fakeService(now, DEFAULT_API_POLICY);
    for (let i = 0; i < 2007; i++) {
      const ticket = await budget.take();
      advance(10); // the answer of a list page takes 10 ms
      ticket.settle(service.call());
    }
    expect(service.refused).toEqual([]);
    // The second window is needed: at least 300 s.
    expect(now()).toBeGreaterThanOrEqual(300_000);
    expect(now()).toBeLessThan(330_000);
    expect(notices).toHaveLength(1);
    // The first wait spaces the calls left in the window; the line says for how long that goes on.
    expect(notices[0]).toMatch(
      /^edgeguard: waiting \d+ s for the service's API limit \(1200 calls per 300 s per credential, shared by every tool and job using these credentials\); its window resets in (2\d\d|300) s, and until then the calls are spaced to fit it; later waits for it are not reported$/,
    );
  });

  test('calls in flight count against what an answer reports', async () => {
    const { budget, now } = fakeBudget();
    const service = fakeService(now);
    // The service counts a call when it arrives; its answer comes later.
    const send = async () => {
      const ticket = await budget.take();
      return { ticket, report: service.call() };
    };
    // The process's first call, answered: 19 left.
    const probe = await send();
    probe.ticket.settle(probe.report);
    const first = await Promise.all(Array.from({ length: 15 }, send));
    // The next answer says 18 left, but 14 more calls are on their way: 4 are left, not 18.
    first[0]!.ticket.settle(first[0]!.report);
    const more = await Promise.all(Array.from({ length: 10 }, send));
    expect(service.refused).toEqual([]);
    for (const call of [...first.slice(1), ...more]) call.ticket.settle(call.report);
    expect(service.refused).toEqual([]);
  });

  test("a process's first calls: one, then what its answer reports (the rest of the window, others' calls spent)", async () => {
    const { budget, sleeps, now } = fakeBudget();
    const service = fakeService(now);
    // Other jobs on the credential have spent 17 of the window's 20.
    for (let i = 0; i < 17; i++) service.call();
    const send = async () => {
      const ticket = await budget.take();
      return { ticket, report: service.call() };
    };
    // Ten calls at once, as a provider's parallel steps make them, each answered when all are sent.
    const calls = Array.from({ length: 10 }, send);
    const first = await calls[0]!;
    // The others wait for the first answer: none has been let go in the meantime.
    let letGo = 0;
    for (const call of calls.slice(1)) void call.then(() => (letGo += 1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(letGo).toBe(0);
    first.ticket.settle(first.report);
    for (const call of await Promise.all(calls.slice(1))) call.ticket.settle(call.report);
    expect(service.refused).toEqual([]);
    // The two left were spent, then the rest waited for the next window.
    expect(sleeps.length).toBeGreaterThan(0);
  });

  test('a first call that settles without a report lets the others go unpaced', async () => {
    const { budget, sleeps } = fakeBudget();
    const first = await budget.take();
    const next = budget.take();
    first.settle(undefined);
    (await next).settle(undefined);
    expect(sleeps).toEqual([]);
  });

  test('a 429 (r=0) holds every later call until the block ends', async () => {
    const { budget, sleeps, now, advance } = fakeBudget();
    (await budget.take()).settle({ remaining: 0, resetSeconds: 4, policy: POLICY });
    advance(1_000);
    await budget.take();
    expect(sleeps).toEqual([3_250]);
    expect(now()).toBe(4_250);
  });

  test('the answer to a call sent in a window that ended is not taken for the new one', async () => {
    const { budget, sleeps, advance } = fakeBudget();
    (await budget.take()).settle({ remaining: 5, resetSeconds: 4, policy: POLICY });
    const late = await budget.take();
    advance(4_000);
    // A new window: the budget assumes the whole limit.
    (await budget.take()).settle({ remaining: 19, resetSeconds: 4, policy: POLICY });
    // The old call's answer (r=0 of the old window) arrives now: it must not stop the new window.
    late.settle({ remaining: 0, resetSeconds: 1, policy: POLICY });
    await budget.take();
    expect(sleeps).toEqual([]);
  });

  test('without budget headers nothing is paced', async () => {
    const { budget, sleeps } = fakeBudget();
    for (let i = 0; i < 5000; i++) (await budget.take()).settle(undefined);
    expect(sleeps).toEqual([]);
    expect(budget.policy).toEqual(DEFAULT_API_POLICY);
  });
});

describe('one API budget per credential in a process (client/shared.ts)', () => {
  const settings = (apiToken: string) =>
    resolveSettings({ explicit: { baseUrl: 'http://127.0.0.1:9/client/v4', apiToken }, env: {} });

  test("the provider plugin's instances on one credential share its budget; on another, each its own", () => {
    const one = instanceClient(settings('instance-token-one-0123456789'));
    const same = instanceClient(settings('instance-token-one-0123456789'));
    const other = instanceClient(settings('instance-token-two-0123456789'));
    // Clients of their own (and pacers), one budget: what one learns of the credential paces both.
    expect(same).not.toBe(one);
    expect(same.budget).toBe(one.budget);
    expect(other.budget).not.toBe(one.budget);
    // The process's shared clients of that credential too.
    expect(clientFor(settings('instance-token-one-0123456789')).budget).toBe(one.budget);
  });
});
