import { Pacer } from '../../provider/client/pacing';

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

test('slots in flight count against the limit until they settle', async () => {
  const { pacer, sleeps } = fakePacer();
  const held = [await pacer.acquire(LIMIT), await pacer.acquire(LIMIT), await pacer.acquire(LIMIT)];
  const fourth = pacer.acquire(LIMIT);
  await new Promise((resolve) => setImmediate(resolve));
  expect(sleeps.length).toBeGreaterThan(0);
  held[0]!.settle('refused');
  await fourth;
});

test('keys are paced apart', async () => {
  const { pacer, sleeps } = fakePacer();
  for (let i = 0; i < 3; i++) (await pacer.acquire(LIMIT)).settle('counted');
  (await pacer.acquire({ ...LIMIT, key: 'zone-b' })).settle('counted');
  expect(sleeps).toEqual([]);
});
