import { Pacer } from '../../../provider/client/pacing';

/** The pacer with a fake clock: its sleeps move the clock instead of waiting. */
function fakePacer() {
  let now = 0;
  const sleeps: number[] = [];
  const pacer = new Pacer(
    async (ms) => {
      sleeps.push(ms);
      now += ms;
      // Yield to other tasks, as a real timer would.
      await new Promise((resolve) => setImmediate(resolve));
    },
    () => now,
  );
  return { pacer, sleeps, advance: (ms: number) => void (now += ms), now: () => now };
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
