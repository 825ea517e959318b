import { entryChanges, noEntryChange, previousEntries } from '../../../rules/inventory-changes';
import { parseScriptInventory, type ScriptEntry, type ScriptEntryInput } from '../../../rules/inventory';

/**
 * What a change does to a script inventory's entries (rules/inventory-changes.ts): added, removed,
 * re-pinned, justifications and owners rewritten, entries matched by what they authorize.
 */

const CARD = 'https://js.pay.example/v3/card.js';
const FRAUD = 'https://fraud.example/check.js';
const OWN = 'https://checkout.example.com/static/js/';
const [V1, V2] = ['a1', 'b2'].map((two) => two.repeat(32)) as [string, string];

/** Entries as the new inputs give them: parsed by the inventory's rules. */
function parsed(scripts: ScriptEntryInput[]): readonly ScriptEntry[] {
  const inventory = parseScriptInventory({ pages: ['checkout.example.com'], scripts });
  if (!inventory.ok) throw new Error(inventory.error.message);
  return inventory.value.scripts;
}

const BEFORE: ScriptEntryInput[] = [
  { url: CARD, justification: 'Card form', owner: 'payments', hash: V1 },
  { url: FRAUD, justification: 'Fraud checks' },
  { prefix: OWN, justification: 'Our code', owner: 'web' },
];

test('a new inventory: every entry added, with its justification, owner and pin', () => {
  expect(entryChanges([], parsed(BEFORE))).toEqual({
    added: [
      { kind: 'url', text: CARD, justification: 'Card form', owner: 'payments', hash: V1 },
      { kind: 'url', text: FRAUD, justification: 'Fraud checks' },
      { kind: 'prefix', text: OWN, justification: 'Our code', owner: 'web' },
    ],
    removed: [],
    repinned: [],
    justified: [],
    owned: [],
  });
});

test('added, removed, re-pinned, pinned for the first time, justification and owner rewritten', () => {
  const after = parsed([
    { url: CARD, justification: 'Card form', owner: 'payments', hash: V2 },
    { url: FRAUD, justification: 'Fraud scoring of the order', hash: V1 },
    { prefix: OWN, justification: 'Our code', owner: 'checkout team' },
    { url: 'https://cdn.new.example/widget.js', justification: 'Address autocomplete' },
  ]);
  const changes = entryChanges(previousEntries(BEFORE), after);
  expect(changes.added.map((entry) => entry.text)).toEqual(['https://cdn.new.example/widget.js']);
  expect(changes.removed).toEqual([]);
  expect(changes.repinned.map((change) => [change.entry.text, change.from, change.to])).toEqual([
    [CARD, V1, V2],
    [FRAUD, undefined, V1],
  ]);
  expect(changes.justified.map((change) => [change.entry.text, change.from, change.to])).toEqual([
    [FRAUD, 'Fraud checks', 'Fraud scoring of the order'],
  ]);
  expect(changes.owned.map((change) => [change.entry.text, change.from, change.to])).toEqual([
    [OWN, 'web', 'checkout team'],
  ]);

  const removed = entryChanges(previousEntries(BEFORE), parsed([BEFORE[0]!]));
  expect(removed.removed.map((entry) => entry.text)).toEqual([FRAUD, OWN]);
});

test('entries are the same when they authorize the same: case of the host, a hash in capitals, spaces around the justification', () => {
  const after = parsed([
    {
      url: 'https://JS.pay.example/v3/card.js',
      justification: ' Card form ',
      owner: 'payments',
      hash: V1.toUpperCase(),
    },
    { url: FRAUD, justification: 'Fraud checks' },
    { prefix: 'https://checkout.example.com:443/static/js/', justification: 'Our code', owner: 'web' },
  ]);
  expect(noEntryChange(entryChanges(previousEntries(BEFORE), after))).toBe(true);
  // A url entry and a prefix entry of the same text are two entries: one script, or all under a path.
  const kinds = entryChanges(
    previousEntries([{ url: OWN, justification: 'x' }]),
    parsed([{ prefix: OWN, justification: 'x' }]),
  );
  expect([kinds.added.map((e) => e.kind), kinds.removed.map((e) => e.kind)]).toEqual([['prefix'], ['url']]);
});

test('a state of older rules is read leniently: an unreadable entry is left out, a blank justification kept as it is', () => {
  expect(
    previousEntries([
      { url: 'not a url', justification: 'x' },
      { url: CARD, justification: '  ', hash: 'zz' },
      { justification: 'neither url nor prefix' },
    ]).map((entry) => [entry.kind, entry.address.text, entry.justification, entry.kind === 'url' ? entry.hash : null]),
  ).toEqual([['url', CARD, '', 'zz']]);
});
