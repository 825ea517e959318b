/**
 * What a change does to a script inventory's entries (issue 25, item 3): the entries it adds and
 * removes, those it re-pins (another approved version) and those whose justification or owner it
 * rewrites. The review's report shows them beside the facts of the scripts they authorize, and the
 * meaning of a `ScriptInventory`'s change in a preview's table says the same.
 *
 * Pure. Entries are compared by what they authorize (`./inventory.ts`: a url entry by its URL and
 * query, a prefix by its path), not by the text written: `https://JS.example.com/a.js` and
 * `https://js.example.com/a.js` are one entry.
 */

import {
  parseScriptHash,
  parseScriptPrefix,
  parseScriptUrl,
  type ScriptEntry,
  type ScriptEntryInput,
} from './inventory';

/** An entry as the review shows it: its kind, its URL or prefix (canonical), justification, owner and pinned hash. */
export interface EntryText {
  kind: 'url' | 'prefix';
  /** The URL or the prefix, as the URL parser writes it. */
  text: string;
  justification: string;
  owner?: string;
  /** The pinned hash, lowercase. */
  hash?: string;
}

/** An entry both before and after the change, with what changed of it. */
export interface EntryRewritten {
  entry: EntryText;
  from: string | undefined;
  to: string | undefined;
}

/** What a change does to an inventory's entries. */
export interface EntryChanges {
  added: EntryText[];
  removed: EntryText[];
  /** Entries whose pinned hash changes (`from` or `to` absent: pinned or unpinned by the change); `entry` is the new one. */
  repinned: EntryRewritten[];
  /** Entries whose justification changes; `entry` is the new one. */
  justified: EntryRewritten[];
  /** Entries whose owner changes; `entry` is the new one. */
  owned: EntryRewritten[];
}

/** An entry of a parsed inventory as the review shows it. */
export function entryTextOf(entry: ScriptEntry): EntryText {
  return {
    kind: entry.kind,
    text: entry.address.text,
    justification: entry.justification,
    ...(entry.owner !== undefined ? { owner: entry.owner } : {}),
    ...(entry.kind === 'url' && entry.hash !== undefined ? { hash: entry.hash } : {}),
  };
}

/**
 * The entries of an inventory as a stack's state holds them, read leniently: the state was checked
 * when it was written, perhaps by rules older than today's, and what it authorized then is what a
 * change is compared with. An entry whose URL or prefix cannot be read at all is left out (it
 * authorized nothing a browser could load); the rest keep their text as written where today's
 * rules would refuse it (a blank justification, a malformed hash).
 */
export function previousEntries(written: readonly ScriptEntryInput[]): ScriptEntry[] {
  const entries: ScriptEntry[] = [];
  written.forEach((input, index) => {
    const kind = input.url !== undefined ? 'url' : 'prefix';
    const text = input.url ?? input.prefix;
    if (text === undefined) return;
    const address = kind === 'url' ? parseScriptUrl(text) : parseScriptPrefix(text);
    if (!address.ok) return;
    const owner = input.owner?.trim();
    const common = {
      index,
      address: address.value,
      justification: (input.justification ?? '').trim(),
      ...(owner ? { owner } : {}),
    };
    if (kind === 'prefix') {
      entries.push({ kind, prefix: address.value.text, ...common });
      return;
    }
    const hash = input.hash === undefined ? undefined : parseScriptHash(input.hash);
    const pinned = hash === undefined ? undefined : hash.ok ? hash.value : input.hash!.toLowerCase();
    entries.push({ kind, url: address.value.text, ...common, ...(pinned !== undefined ? { hash: pinned } : {}) });
  });
  return entries;
}

/** What identifies an entry across a change: its kind and what it authorizes. */
function keyOf(entry: ScriptEntry): string {
  return JSON.stringify([entry.kind, entry.address.origin, entry.address.path, entry.address.query]);
}

/** What the change from the entries `before` to the entries `after` does, each list in the order of `after` (removed: of `before`). */
export function entryChanges(before: readonly ScriptEntry[], after: readonly ScriptEntry[]): EntryChanges {
  const old = new Map(before.map((entry) => [keyOf(entry), entry]));
  const kept = new Set<string>();
  const changes: EntryChanges = { added: [], removed: [], repinned: [], justified: [], owned: [] };
  for (const entry of after) {
    const key = keyOf(entry);
    const previous = old.get(key);
    const text = entryTextOf(entry);
    if (previous === undefined) {
      changes.added.push(text);
      continue;
    }
    kept.add(key);
    const was = entryTextOf(previous);
    if (was.hash !== text.hash) changes.repinned.push({ entry: text, from: was.hash, to: text.hash });
    if (was.justification !== text.justification)
      changes.justified.push({ entry: text, from: was.justification, to: text.justification });
    if (was.owner !== text.owner) changes.owned.push({ entry: text, from: was.owner, to: text.owner });
  }
  for (const entry of before) if (!kept.has(keyOf(entry))) changes.removed.push(entryTextOf(entry));
  return changes;
}

/** Whether `changes` changes nothing. */
export function noEntryChange(changes: EntryChanges): boolean {
  return Object.values(changes).every((list: unknown[]) => list.length === 0);
}
