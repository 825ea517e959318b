import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';

/**
 * The emulator's state: named collections of JSON records, held in memory and, with a data
 * directory, made durable by a write-ahead journal.
 *
 * Durability: {@link Store.write} appends one journal line for the whole transaction and fsyncs it
 * before the change is applied in memory, so a write that a handler acknowledged is on disk, and a
 * request's writes land together or not at all. Each line carries a CRC32, so a write torn by a
 * crash is recognised on the next start and dropped (it was never acknowledged). The journal is
 * folded into `snapshot.json` (written to a temporary file, fsynced, renamed) when it grows past
 * {@link StoreOptions.compactAfterBytes} and on close.
 *
 * The synchronous file calls are deliberate: Node runs one handler at a time between awaits, so a
 * synchronous commit makes every transaction atomic with respect to other requests without locks.
 */

/** A typed name for a collection; services declare the collections they own. */
export class Collection<T> {
  declare private readonly recordType: T;
  constructor(readonly name: string) {}
}

/** The operations of one transaction; reads see the transaction's own earlier writes. */
export interface Transaction {
  get<T>(collection: Collection<T>, id: string): T | undefined;
  put<T>(collection: Collection<T>, id: string, value: T): void;
  delete<T>(collection: Collection<T>, id: string): void;
  /** Removes every record of every collection. */
  clear(): void;
}

/** One record's change as a commit applied it: `before` absent for an insert, `after` for a delete. */
export interface RecordChange<T> {
  id: string;
  before: T | undefined;
  after: T | undefined;
}

/** What {@link Store.watch} calls with the changes one commit made to a collection, in order. */
export type ChangeListener<T> = (changes: ReadonlyArray<RecordChange<T>>) => void;

/** Options of {@link Store.open}. */
export interface StoreOptions {
  /** Data directory; none keeps state in memory only. */
  dataDir?: string;
  /** Journal size that triggers a snapshot. Default 64 MiB. */
  compactAfterBytes?: number;
  /** Where recovery notices go (a dropped torn line). Default: stderr. */
  warn?: (message: string) => void;
}

type Op = { c: string; id: string; v?: unknown } | { clear: true };

interface JournalEntry {
  seq: number;
  ops: Op[];
}

interface Snapshot {
  format: 1;
  seq: number;
  collections: Record<string, Array<[string, unknown]>>;
}

const SNAPSHOT = 'snapshot.json';
const JOURNAL = 'journal.log';
const LOCK = 'LOCK';

/** The state store. Create with {@link Store.open}. */
export class Store {
  private readonly data = new Map<string, Map<string, unknown>>();
  private readonly listeners = new Map<string, Array<ChangeListener<unknown>>>();
  private seq = 0;
  private journalFd: number | undefined;
  private journalBytes = 0;
  private closed = false;

  private constructor(
    private readonly dataDir: string | undefined,
    private readonly compactAfterBytes: number,
  ) {}

  /**
   * Opens the store: loads the snapshot and replays the journal of `dataDir`, dropping a torn
   * last line. Refuses a directory another live emulator holds, and a journal damaged anywhere
   * but at its end (that is not a crash's doing, and guessing would lose data silently).
   */
  static open(options: StoreOptions = {}): Store {
    const store = new Store(options.dataDir, options.compactAfterBytes ?? 64 * 1024 * 1024);
    if (options.dataDir) store.load(options.dataDir, options.warn ?? ((m) => process.stderr.write(`${m}\n`)));
    return store;
  }

  /** Whether this store was opened on a directory that held no state yet. */
  isNew = true;

  get<T>(collection: Collection<T>, id: string): T | undefined {
    return this.data.get(collection.name)?.get(id) as T | undefined;
  }

  /** Every record of a collection, in insertion order. Callers must not mutate them. */
  list<T>(collection: Collection<T>): T[] {
    return [...(this.data.get(collection.name)?.values() ?? [])] as T[];
  }

  /** Every record of every collection, by collection name: the whole state, for inspection. */
  dump(): Record<string, unknown[]> {
    return Object.fromEntries(
      [...this.data].filter(([, records]) => records.size > 0).map(([name, records]) => [name, [...records.values()]]),
    );
  }

  count<T>(collection: Collection<T>): number {
    return this.data.get(collection.name)?.size ?? 0;
  }

  /**
   * Calls `listener` now with every record of `collection` as an insert, then after each commit
   * (and reset) with the changes it made to that collection, once they are applied in memory. It
   * lets a service keep an index such as a sort order without reading the whole collection on
   * every request; the listener must not write.
   */
  watch<T>(collection: Collection<T>, listener: ChangeListener<T>): void {
    const records = this.data.get(collection.name) ?? new Map<string, unknown>();
    listener([...records].map(([id, value]) => ({ id, before: undefined, after: value as T })));
    const watchers = this.listeners.get(collection.name) ?? [];
    watchers.push(listener as ChangeListener<unknown>);
    this.listeners.set(collection.name, watchers);
  }

  /**
   * Runs `body` as one transaction and commits it durably before returning its result. If `body`
   * throws, nothing is written. Values are copied on write, so later mutation by a caller cannot
   * change stored state behind the journal's back.
   */
  write<R>(body: (tx: Transaction) => R): R {
    if (this.closed) throw new Error('store is closed');
    const ops: Op[] = [];
    const staged = new Map<string, Map<string, unknown>>();
    let cleared = false;
    const tx: Transaction = {
      get: <T>(collection: Collection<T>, id: string) => {
        const layer = staged.get(collection.name);
        if (layer?.has(id)) return layer.get(id) as T | undefined;
        return cleared ? undefined : this.get(collection, id);
      },
      put: <T>(collection: Collection<T>, id: string, value: T) => {
        const copy = structuredClone(value);
        ops.push({ c: collection.name, id, v: copy });
        layerOf(staged, collection.name).set(id, copy);
      },
      delete: <T>(collection: Collection<T>, id: string) => {
        ops.push({ c: collection.name, id });
        layerOf(staged, collection.name).set(id, undefined);
      },
      clear: () => {
        ops.push({ clear: true });
        staged.clear();
        cleared = true;
      },
    };
    const result = body(tx);
    if (ops.length > 0) this.commit({ seq: this.seq + 1, ops });
    return result;
  }

  /** Folds the journal into a new snapshot, then releases the directory. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.dataDir || this.journalFd === undefined) return;
    this.compact();
    fs.closeSync(this.journalFd);
    this.journalFd = undefined;
    fs.rmSync(path.join(this.dataDir, LOCK), { force: true });
  }

  private commit(entry: JournalEntry): void {
    if (this.journalFd !== undefined) {
      const line = encodeLine(entry);
      fs.writeSync(this.journalFd, line);
      fs.fsyncSync(this.journalFd);
      this.journalBytes += Buffer.byteLength(line);
    }
    this.apply(entry);
    if (this.journalBytes > this.compactAfterBytes) this.compact();
  }

  private apply(entry: JournalEntry): void {
    const changes = new Map<string, Array<RecordChange<unknown>>>();
    const changed = (name: string, id: string, before: unknown, after: unknown) => {
      if (!this.listeners.has(name) || (before === undefined && after === undefined)) return;
      let list = changes.get(name);
      if (!list) changes.set(name, (list = []));
      list.push({ id, before, after });
    };
    for (const op of entry.ops) {
      if ('clear' in op) {
        for (const name of this.listeners.keys()) {
          for (const [id, before] of this.data.get(name) ?? []) changed(name, id, before, undefined);
        }
        this.data.clear();
        continue;
      }
      changed(op.c, op.id, this.data.get(op.c)?.get(op.id), op.v);
      if (op.v === undefined) {
        this.data.get(op.c)?.delete(op.id);
      } else {
        layerOf(this.data, op.c).set(op.id, op.v);
      }
    }
    this.seq = entry.seq;
    for (const [name, list] of changes) {
      for (const listener of this.listeners.get(name)!) listener(list);
    }
  }

  private load(dataDir: string, warn: (message: string) => void): void {
    fs.mkdirSync(dataDir, { recursive: true });
    this.lock(dataDir);
    const snapshotPath = path.join(dataDir, SNAPSHOT);
    const journalPath = path.join(dataDir, JOURNAL);
    if (fs.existsSync(snapshotPath)) {
      const snapshot = readSnapshot(snapshotPath);
      for (const [name, entries] of Object.entries(snapshot.collections)) {
        this.data.set(name, new Map(entries));
      }
      this.seq = snapshot.seq;
      this.isNew = false;
    }
    let validBytes = 0;
    if (fs.existsSync(journalPath)) {
      const { entries, validBytes: valid, tornBytes } = readJournal(journalPath);
      for (const entry of entries) {
        if (entry.seq > this.seq) this.apply(entry);
      }
      if (entries.length > 0) this.isNew = false;
      validBytes = valid;
      if (tornBytes > 0) {
        warn(
          `edgeguard-emulator: dropped a torn journal tail of ${tornBytes} bytes (an unacknowledged write cut off by a crash)`,
        );
        fs.truncateSync(journalPath, validBytes);
      }
    }
    this.journalFd = fs.openSync(journalPath, 'a');
    fs.fsyncSync(this.journalFd);
    fsyncDirectory(dataDir);
    this.journalBytes = validBytes;
  }

  private lock(dataDir: string): void {
    const lockPath = path.join(dataDir, LOCK);
    try {
      const holder = Number(fs.readFileSync(lockPath, 'utf8'));
      if (holder !== process.pid && processAlive(holder)) {
        throw new Error(`data directory ${dataDir} is in use by process ${holder}`);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    fs.writeFileSync(lockPath, String(process.pid));
  }

  private compact(): void {
    if (!this.dataDir || this.journalFd === undefined) return;
    const snapshot: Snapshot = { format: 1, seq: this.seq, collections: {} };
    for (const [name, records] of this.data) snapshot.collections[name] = [...records.entries()];
    const target = path.join(this.dataDir, SNAPSHOT);
    const temporary = `${target}.tmp`;
    const fd = fs.openSync(temporary, 'w');
    try {
      fs.writeSync(fd, JSON.stringify(snapshot));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, target);
    fsyncDirectory(this.dataDir);
    // The snapshot is durable before the journal shrinks; a crash in between replays entries the
    // snapshot already holds, which the sequence numbers skip.
    fs.ftruncateSync(this.journalFd, 0);
    fs.fsyncSync(this.journalFd);
    this.journalBytes = 0;
  }
}

function layerOf(maps: Map<string, Map<string, unknown>>, name: string): Map<string, unknown> {
  let layer = maps.get(name);
  if (!layer) {
    layer = new Map();
    maps.set(name, layer);
  }
  return layer;
}

function encodeLine(entry: JournalEntry): string {
  const json = JSON.stringify(entry);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

function readSnapshot(file: string): Snapshot {
  const text = fs.readFileSync(file, 'utf8');
  let snapshot: Snapshot;
  try {
    snapshot = JSON.parse(text) as Snapshot;
  } catch {
    throw new Error(
      `${file} is not valid JSON; it is only ever replaced whole, so it was damaged outside the emulator`,
    );
  }
  if (snapshot.format !== 1 || typeof snapshot.seq !== 'number' || typeof snapshot.collections !== 'object') {
    throw new Error(`${file} is not an emulator snapshot of format 1`);
  }
  return snapshot;
}

function readJournal(file: string): { entries: JournalEntry[]; validBytes: number; tornBytes: number } {
  const buffer = fs.readFileSync(file);
  const entries: JournalEntry[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const end = buffer.indexOf(0x0a, offset);
    const entry = end === -1 ? undefined : decodeLine(buffer.subarray(offset, end).toString('utf8'));
    if (!entry) {
      const rest = end === -1 ? buffer.length : buffer.indexOf(0x0a, end + 1);
      if (end !== -1 && rest !== -1) {
        throw new Error(
          `${file} is damaged at byte ${offset}, before its last entry: refusing to start rather than lose data`,
        );
      }
      return { entries, validBytes: offset, tornBytes: buffer.length - offset };
    }
    entries.push(entry);
    offset = end + 1;
  }
  return { entries, validBytes: offset, tornBytes: 0 };
}

function decodeLine(line: string): JournalEntry | undefined {
  const space = line.indexOf(' ');
  if (space !== 8) return undefined;
  const json = line.slice(9);
  if (crc32(json).toString(16).padStart(8, '0') !== line.slice(0, 8)) return undefined;
  try {
    return JSON.parse(json) as JournalEntry;
  } catch {
    return undefined;
  }
}

function fsyncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
