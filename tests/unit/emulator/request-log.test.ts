import { RequestLog } from '../../../emulator/core/request-log';

/** The emulator's request log: bounded, positions consecutive, `since` the entries after a position. */

const entry = (path: string) => ({
  method: 'GET',
  path,
  query: {},
  status: 200,
  time: '2026-11-25T00:00:00.000Z',
  duration_ms: 1,
  credential: 'token' as const,
  content_type: null,
  body: null,
});

function logOf(capacity: number, count: number): RequestLog {
  const log = new RequestLog(capacity);
  for (let i = 1; i <= count; i++) log.add(entry(`/p${i}`));
  return log;
}

test('keeps every entry below its capacity; since gives those after a position', () => {
  const log = logOf(10, 4);
  expect(log.since().map((e) => [e.seq, e.path])).toEqual([
    [1, '/p1'],
    [2, '/p2'],
    [3, '/p3'],
    [4, '/p4'],
  ]);
  expect(log.since(2).map((e) => e.seq)).toEqual([3, 4]);
  expect(log.since(4)).toEqual([]);
  expect(log.last).toBe(4);
});

test.each([11, 19, 20, 21, 35, 1000])(
  'past its capacity (%i entries in 10), exactly the newest 10 are kept',
  (count) => {
    const log = logOf(10, count);
    expect(log.since().map((e) => e.seq)).toEqual(Array.from({ length: 10 }, (_, i) => count - 9 + i));
    // A position older than what is kept gives all that is kept; a recent one, what came after it.
    expect(log.since(1).map((e) => e.seq)).toHaveLength(10);
    expect(log.since(count - 3).map((e) => e.seq)).toEqual([count - 2, count - 1, count]);
    expect(log.last).toBe(count);
  },
);

test('clear empties it; positions go on', () => {
  const log = logOf(10, 25);
  log.clear();
  expect(log.since()).toEqual([]);
  log.add(entry('/after'));
  expect(log.since().map((e) => [e.seq, e.path])).toEqual([[26, '/after']]);
});
