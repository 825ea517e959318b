import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Collection, Store } from '../../../emulator/core/store';

interface Item {
  name: string;
  n: number;
}
const items = new Collection<Item>('items');

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-store-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Opens a store as a second process would after this one died without closing. */
function reopenAfterCrash(store: Store, options: { compactAfterBytes?: number } = {}): Store {
  fs.rmSync(path.join(dir, 'LOCK'));
  void store;
  return Store.open({ dataDir: dir, warn: () => undefined, ...options });
}

test('a new directory is new; a reopened one keeps every committed write', () => {
  const store = Store.open({ dataDir: dir });
  expect(store.isNew).toBe(true);
  store.write((tx) => {
    tx.put(items, 'a', { name: 'a', n: 1 });
    tx.put(items, 'b', { name: 'b', n: 2 });
  });
  store.write((tx) => tx.delete(items, 'a'));
  const reopened = reopenAfterCrash(store);
  expect(reopened.isNew).toBe(false);
  expect(reopened.list(items)).toEqual([{ name: 'b', n: 2 }]);
});

test('a transaction that throws writes nothing, in memory or on disk', () => {
  const store = Store.open({ dataDir: dir });
  expect(() =>
    store.write((tx) => {
      tx.put(items, 'a', { name: 'a', n: 1 });
      throw new Error('validation failed');
    }),
  ).toThrow('validation failed');
  expect(store.get(items, 'a')).toBeUndefined();
  expect(fs.readFileSync(path.join(dir, 'journal.log'), 'utf8')).toBe('');
});

test("values are copied on write: mutating the caller's object changes nothing stored", () => {
  const store = Store.open();
  const value = { name: 'a', n: 1 };
  store.write((tx) => tx.put(items, 'a', value));
  value.n = 99;
  expect(store.get(items, 'a')).toEqual({ name: 'a', n: 1 });
});

test('a torn last line (a crash mid-write) is dropped and the rest survives', () => {
  const store = Store.open({ dataDir: dir });
  store.write((tx) => tx.put(items, 'a', { name: 'a', n: 1 }));
  store.write((tx) => tx.put(items, 'b', { name: 'b', n: 2 }));
  const journal = path.join(dir, 'journal.log');
  const full = fs.readFileSync(journal);
  // Cut the second entry in half, as a power loss during write() would.
  const firstEnd = full.indexOf(0x0a) + 1;
  fs.writeFileSync(journal, full.subarray(0, firstEnd + Math.floor((full.length - firstEnd) / 2)));
  const warnings: string[] = [];
  fs.rmSync(path.join(dir, 'LOCK'));
  const reopened = Store.open({ dataDir: dir, warn: (m) => warnings.push(m) });
  expect(reopened.list(items)).toEqual([{ name: 'a', n: 1 }]);
  expect(warnings.join()).toMatch(/torn journal tail/);
  // The torn bytes are gone, so new writes append after the good entry and survive.
  reopened.write((tx) => tx.put(items, 'c', { name: 'c', n: 3 }));
  const third = reopenAfterCrash(reopened);
  expect(third.list(items).map((i) => i.name)).toEqual(['a', 'c']);
});

test('a complete last line whose checksum does not match is treated as torn', () => {
  const store = Store.open({ dataDir: dir });
  store.write((tx) => tx.put(items, 'a', { name: 'a', n: 1 }));
  store.write((tx) => tx.put(items, 'b', { name: 'b', n: 2 }));
  const journal = path.join(dir, 'journal.log');
  fs.writeFileSync(journal, fs.readFileSync(journal, 'utf8').replace('"n":2', '"n":7'));
  expect(reopenAfterCrash(store).list(items)).toEqual([{ name: 'a', n: 1 }]);
});

test('damage before the last entry refuses to start instead of losing data silently', () => {
  const store = Store.open({ dataDir: dir });
  store.write((tx) => tx.put(items, 'a', { name: 'a', n: 1 }));
  store.write((tx) => tx.put(items, 'b', { name: 'b', n: 2 }));
  const journal = path.join(dir, 'journal.log');
  fs.writeFileSync(journal, fs.readFileSync(journal, 'utf8').replace('"n":1', '"n":5'));
  fs.rmSync(path.join(dir, 'LOCK'));
  expect(() => Store.open({ dataDir: dir })).toThrow(/damaged at byte 0, before its last entry/);
});

test('compaction folds the journal into the snapshot; replay after it skips what the snapshot holds', () => {
  const store = Store.open({ dataDir: dir, compactAfterBytes: 200 });
  for (let n = 0; n < 20; n++) store.write((tx) => tx.put(items, `k${n % 5}`, { name: `k${n % 5}`, n }));
  expect(fs.existsSync(path.join(dir, 'snapshot.json'))).toBe(true);
  expect(fs.statSync(path.join(dir, 'journal.log')).size).toBeLessThan(200);
  const reopened = reopenAfterCrash(store);
  expect(
    reopened
      .list(items)
      .map((i) => i.n)
      .sort((a, b) => a - b),
  ).toEqual([15, 16, 17, 18, 19]);
});

test('a crash between writing the snapshot and truncating the journal recovers the same state', () => {
  const store = Store.open({ dataDir: dir });
  store.write((tx) => tx.put(items, 'a', { name: 'a', n: 1 }));
  store.write((tx) => tx.delete(items, 'a'));
  store.write((tx) => tx.put(items, 'b', { name: 'b', n: 2 }));
  const journalBefore = fs.readFileSync(path.join(dir, 'journal.log'));
  store.close();
  // As if the process died right after the rename: snapshot new, journal still full.
  fs.writeFileSync(path.join(dir, 'journal.log'), journalBefore);
  const reopened = Store.open({ dataDir: dir });
  expect(reopened.list(items)).toEqual([{ name: 'b', n: 2 }]);
});

test('clear empties every collection durably', () => {
  const store = Store.open({ dataDir: dir });
  store.write((tx) => tx.put(items, 'a', { name: 'a', n: 1 }));
  store.write((tx) => tx.clear());
  expect(store.count(items)).toBe(0);
  expect(reopenAfterCrash(store).count(items)).toBe(0);
});

test('a directory held by a live process is refused', () => {
  Store.open({ dataDir: dir });
  fs.writeFileSync(path.join(dir, 'LOCK'), String(process.ppid));
  expect(() => Store.open({ dataDir: dir })).toThrow(/in use by process/);
});

test("a watcher gets the records held, then each commit's changes to its collection once applied, and a clear as deletes", () => {
  const others = new Collection<Item>('others');
  const store = Store.open({ dataDir: dir });
  store.write((tx) => tx.put(items, 'a', { name: 'a', n: 1 }));
  const reopened = reopenAfterCrash(store);
  const seen: Array<Array<{ id: string; before: Item | undefined; after: Item | undefined }>> = [];
  reopened.watch(items, (changes) => {
    seen.push(changes.map((change) => ({ ...change })));
    for (const change of changes)
      expect(reopened.get(items, change.id)).toEqual(changes.findLast((c) => c.id === change.id)!.after);
  });
  expect(seen).toEqual([[{ id: 'a', before: undefined, after: { name: 'a', n: 1 } }]]);

  reopened.write((tx) => {
    tx.put(items, 'a', { name: 'a', n: 2 });
    tx.put(items, 'b', { name: 'b', n: 3 });
    tx.delete(items, 'a');
    tx.delete(items, 'missing');
    tx.put(others, 'x', { name: 'x', n: 0 });
  });
  reopened.write((tx) => tx.put(others, 'y', { name: 'y', n: 0 }));
  reopened.write((tx) => tx.clear());
  expect(seen.slice(1)).toEqual([
    [
      { id: 'a', before: { name: 'a', n: 1 }, after: { name: 'a', n: 2 } },
      { id: 'b', before: undefined, after: { name: 'b', n: 3 } },
      { id: 'a', before: { name: 'a', n: 2 }, after: undefined },
    ],
    [{ id: 'b', before: { name: 'b', n: 3 }, after: undefined }],
  ]);
});
