import { mapLimited } from '../../../provider/client/map-limited';

test('mapLimited keeps the order of its items and never runs more than the limit at once', async () => {
  let running = 0;
  let most = 0;
  const delays = [30, 5, 20, 1, 10, 15, 2];
  const results = await mapLimited(delays, 3, async (delay) => {
    running += 1;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, delay));
    running -= 1;
    return delay * 2;
  });
  expect(results).toEqual(delays.map((delay) => delay * 2));
  expect(most).toBe(3);
});

test('mapLimited of nothing does nothing, and a failure rejects the whole', async () => {
  await expect(mapLimited([], 4, async () => 1)).resolves.toEqual([]);
  await expect(
    mapLimited([1, 2], 2, async (n) => {
      if (n === 2) throw new Error('no');
      return n;
    }),
  ).rejects.toThrow('no');
});
