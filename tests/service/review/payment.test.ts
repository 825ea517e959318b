import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { unknownCheckingProxy, type PolicyResource } from '@pulumi/policy';
import { clientFrom } from '../../../provider/client/shared';
import { requestBound } from '../../../provider/payment/scripts';
import { InventoryReadAhead, inventoryTargets } from '../../../provider/payment/read-ahead';
import { warmReview } from '../../../provider/review/pack-analysis';
import { REVIEW_BASELINE_ENV } from '../../../provider/review/pack-input';
import { PACK_POLICIES, POLICY_NAMES } from '../../../provider/pack/policies';
import type { InventoryUnderReview } from '../../../provider/payment/review';
import { reviewService } from '../../../provider/review/plan';
import { type PolicyUnderReview } from '../../../provider/impact/model';
import { previousEntries } from '../../../rules/inventory-changes';
import { cspSources, parseScriptInventory, type ScriptEntryInput } from '../../../rules/inventory';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';
import { cspPolicyResource, packEnvironment, stackArgs, type PackEnvironment } from '../../helpers/pack';

/**
 * The review of a stack's script inventories against the emulator (issue 25, item 3): the one
 * reading of the pages' scripts with its requests counted within the bound, the entries compared
 * with those before the change, the enforcing CSP policies compared with the inventory, and the
 * pack's four payment policies on resources as the engine hands them over.
 */

const HOST = 'checkout.example.com';
const PAY = `https://${HOST}/pay`;
const CARD = 'https://js.pay.example/v3/card.js';
const OWN = `https://${HOST}/static/js/`;
const FRAUD = 'https://fraud.example/check.js';
const SKIM = 'https://cdn.evil.example/skim.js';
const STRAY = 'https://cdn.stray.example/tracker.js';
const [V1, V2] = ['a1', 'b2'].map((two) => two.repeat(32)) as [string, string];

let emu: TestEmulator;
let pack: PackEnvironment;
const client = () => clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN } });

beforeAll(async () => {
  emu = await startTestEmulator();
  pack = packEnvironment(emu, 'edgeguard-payment-review-');
});
afterAll(async () => {
  pack?.restore();
  await emu?.close();
});

/**
 * A zone whose payment page loads the card script (pinned at V1, then a new version V2), our own
 * code, the fraud check, a malicious script and a stray one; and whose blog loads a script of its
 * own, and the checkout's other pages many more, none of them on the payment pages.
 */
async function seededZone(others = 0): Promise<string> {
  const zone = randomBytes(16).toString('hex');
  await emu.seed({
    zones: [{ id: zone, name: 'example.com', account_id: ACCOUNT_ID }],
    scripts: [
      {
        url: CARD,
        hash: V1,
        js_integrity_score: 60,
        first_seen_at: '2026-10-01T00:00:00.000Z',
        page_urls: [PAY, `https://${HOST}/`],
      },
      { url: `${OWN}app.js`, page_urls: [PAY], js_integrity_score: 80 },
      { url: FRAUD, status: 'infrequent', page_urls: [`${PAY}/confirm`], js_integrity_score: 50 },
      {
        url: SKIM,
        js_integrity_score: 4,
        url_reported_malicious: true,
        malicious_url_categories: ['Malware'],
        page_urls: [PAY],
      },
      { url: STRAY, js_integrity_score: 30, page_urls: [PAY] },
      ...Array.from({ length: others }, (_, i) => ({
        url: `https://cdn${i}.example/x.js`,
        page_urls: [`https://${HOST}/blog/${i}`],
      })),
    ].map((script) => ({ zone_id: zone, ...script })),
  });
  await emu.newScriptVersion(zone, CARD, { hash: V2, js_integrity_score: 41, fetched_at: '2026-11-24T09:30:00.000Z' });
  return zone;
}

const ENTRIES: ScriptEntryInput[] = [
  { url: CARD, justification: 'Card form of the processor', owner: 'payments', hash: V1 },
  { prefix: OWN, justification: 'Our checkout code', owner: 'web' },
  { url: FRAUD, justification: 'Fraud checks of the order' },
  { url: SKIM, justification: 'Analytics vendor' },
];

function underReview(
  zone: string,
  scripts: ScriptEntryInput[],
  previous: InventoryUnderReview['previous'],
): InventoryUnderReview {
  const parsed = parseScriptInventory({ pages: [`${HOST}/pay`], scripts });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return { key: 'urn:inventory', name: 'checkout-scripts', zoneId: zone, inventory: parsed.value, previous };
}

const enforcing = (zone: string, value: string): PolicyUnderReview => ({
  key: 'urn:csp',
  name: 'checkout-enforce',
  zoneId: zone,
  policy: { action: 'allow', enabled: true, expression: `http.host eq "${HOST}"`, value },
  replaces: 'none',
});

test('the reading: each script of the payment pages judged, its requests those the emulator served, within the bound', async () => {
  const zone = await seededZone(250);
  const mark = emu.mark();
  const result = await reviewService(client(), {
    policies: [],
    migrations: [],
    notifications: [],
    inventories: [underReview(zone, ENTRIES, previousEntries(ENTRIES.slice(0, 2)))],
  });
  const served = await emu.requests(mark);
  expect(served.every((request) => request.method === 'GET')).toBe(true);
  // One listing of the payment page in each status (the host's 250 other scripts are not listed),
  // then one read: the card script, whose listed hash is not the pinned one.
  expect(result.requests.made).toBe(served.length);
  expect(served.length).toBe(1 + 1 + 1);
  expect(served.filter((request) => !request.path.endsWith('/scripts'))).toHaveLength(1);
  expect(result.requests.bound).toBe(requestBound(5, 1) + 100);
  expect(result.requests.made).toBeLessThanOrEqual(result.requests.bound);
  expect(result.requests.plan).toContain(
    'inventory checkout-scripts: 3 (5 scripts listed on its pages, 100 a page in each status, 1 read for their versions or pages)',
  );

  const [review] = result.inventories;
  expect(review!.scripts.map((script) => [script.url, script.integrity, script.entry?.address.text])).toEqual([
    [SKIM, 'unpinned', SKIM],
    [STRAY, 'unauthorized', undefined],
    [`${OWN}app.js`, 'unpinned', OWN],
    [FRAUD, 'unpinned', FRAUD],
    [CARD, 'changed', CARD],
  ]);
  const card = review!.scripts.find((script) => script.url === CARD)!;
  expect([card.hash, card.fetchedAt, card.scores.js_integrity_score, card.changes.map((v) => v.hash)]).toEqual([
    V2,
    '2026-11-24T09:30:00.000Z',
    41,
    [V2, V1],
  ]);
  expect(review!.integrity).toEqual({ unchanged: 0, unpinned: 3, changed: 1, unauthorized: 1 });
  // Before the change the inventory held the card and our code: the fraud check and the skimmer are new.
  expect('unknown' in review!.changes ? [] : review!.changes.added.map((entry) => entry.text)).toEqual([FRAUD, SKIM]);
  expect(review!.newlyAuthorized.map((id) => review!.scripts.find((s) => s.id === id)!.url).sort()).toEqual(
    [FRAUD, SKIM].sort(),
  );
});

test('the enforcing policy compared with the inventory; a host without one is named', async () => {
  const zone = await seededZone();
  const entries = ENTRIES.slice(0, 3);
  const inventory = underReview(zone, entries, 'none');
  const result = await reviewService(client(), {
    policies: [enforcing(zone, `script-src ${CARD} ${OWN} 'unsafe-inline'`)],
    migrations: [],
    notifications: [],
    inventories: [
      inventory,
      {
        ...inventory,
        key: 'urn:shop',
        name: 'shop',
        inventory: {
          ...inventory.inventory,
          pages: [{ host: 'shop.example.com', path: '', text: 'shop.example.com' }],
        },
      },
    ],
  });
  expect(result.inventories.map((review) => review.csp)).toEqual([
    [
      {
        host: HOST,
        policies: [
          { name: 'checkout-enforce', governedBy: 'script-src', missing: [FRAUD], extra: ["'unsafe-inline'"] },
        ],
      },
    ],
    [{ host: 'shop.example.com', policies: [] }],
  ]);
  // A new inventory: every entry added, every script it authorizes new.
  expect(result.inventories[0]!.newlyAuthorized).toHaveLength(3);
});

// ---- The pack's payment policies ----

const urn = (name: string) => `urn:pulumi:dev::shop::pulumi-nodejs:dynamic/edgeguard:ScriptInventory::${name}`;

function inventoryResource(zone: string, scripts: ScriptEntryInput[]): PolicyResource {
  return {
    type: 'pulumi-nodejs:dynamic/edgeguard:ScriptInventory',
    urn: urn('checkout-scripts'),
    name: 'checkout-scripts',
    props: unknownCheckingProxy({ zoneId: zone, pages: [`${HOST}/pay`], scripts }),
  } as unknown as PolicyResource;
}

function cspResource(zone: string, value: string): PolicyResource {
  return cspPolicyResource('checkout-enforce', { zoneId: zone, host: HOST, value });
}

/** A `pulumi stack export` holding the inventory with `before` as its entries, on the payment page of `zone`. */
function stateBefore(zone: string, before: ScriptEntryInput[], pages = [`${HOST}/pay`]) {
  return {
    deployment: {
      resources: [
        {
          urn: urn('checkout-scripts'),
          type: 'pulumi-nodejs:dynamic/edgeguard:ScriptInventory',
          inputs: { zoneId: zone.toUpperCase(), pages, scripts: before },
        },
      ],
    },
  };
}

/**
 * What each payment policy reports on `resources`, by policy; the stack's state before the change
 * given as `before`. With `readAhead`, the pack reads ahead from that state as once the engine has
 * configured it (warmReview), before the analysis.
 */
async function paymentViolations(
  resources: PolicyResource[],
  before: ScriptEntryInput[],
  { zone = '', readAhead = false } = {},
): Promise<Record<string, string[]>> {
  // A file of its own: the pack reads a state once per file.
  const state = path.join(pack.dir, `state-${randomBytes(4).toString('hex')}.json`);
  fs.writeFileSync(state, JSON.stringify(stateBefore(zone, before)));
  process.env[REVIEW_BASELINE_ENV] = state;
  if (readAhead) warmReview();
  const reported: Record<string, string[]> = {};
  const args = stackArgs(resources);
  for (const policy of PACK_POLICIES.filter((candidate) => candidate.name.startsWith('payment-'))) {
    await policy.validateStack(args, (message, at) => {
      expect(at).toBe(urn('checkout-scripts'));
      (reported[policy.name] ??= []).push(message);
    });
  }
  return reported;
}

test('the pack: the mandatory policies and the advisory one, each naming what it found', async () => {
  const zone = await seededZone();
  const reported = await paymentViolations(
    [inventoryResource(zone, ENTRIES), cspResource(zone, `script-src ${CARD} ${OWN}`)],
    ENTRIES,
    { zone },
  );
  expect(Object.keys(reported)).toEqual([
    POLICY_NAMES.paymentUnauthorized,
    POLICY_NAMES.paymentChanged,
    POLICY_NAMES.paymentMalicious,
    POLICY_NAMES.paymentCsp,
  ]);
  expect(PACK_POLICIES.filter((p) => p.name.startsWith('payment-')).map((p) => p.enforcementLevel)).toEqual([
    'mandatory',
    'mandatory',
    'mandatory',
    'advisory',
    'mandatory',
  ]);
  expect(reported[POLICY_NAMES.paymentUnauthorized]![0]).toMatch(
    new RegExp(`authorized by no entry:\\n  - ${STRAY} on ${PAY} \\(scores: js_integrity_score 30`),
  );
  const changed = reported[POLICY_NAMES.paymentChanged]![0]!;
  expect(changed).toContain(
    `  - ${CARD} on ${PAY} (entry ${CARD}; pinned hash ${V1}; live hash ${V2}; new version fetched 2026-11-24T09:30:00.000Z;`,
  );
  expect(changed).toContain('scores: js_integrity_score 41');
  expect(reported[POLICY_NAMES.paymentMalicious]![0]).toContain(
    `  - ${SKIM} on ${PAY} (entry ${SKIM} (justification: Analytics vendor); scores: js_integrity_score 4, obfuscation_score `,
  );
  expect(reported[POLICY_NAMES.paymentMalicious]![0]).toContain(
    '; malicious (js_integrity_score 4; URL reported malicious (Malware));',
  );
  expect(reported[POLICY_NAMES.paymentCsp]![0]).toContain(
    `does not allow ${SKIM}, ${FRAUD}, which the inventory authorizes`,
  );

  // The pack's output for edgeguard-review: the same inventory review and violations.
  const output = pack.output();
  expect(output.review!.inventories.map((review) => review.name)).toEqual(['checkout-scripts']);
  expect(output.violations.map((violation) => violation.policy)).toEqual(Object.keys(reported));
});

test('a change that re-pins the script to its live hash passes payment-script-changed: judged against the new entries', async () => {
  const zone = await seededZone();
  const repinned = ENTRIES.slice(0, 3).map((entry) => (entry.url === CARD ? { ...entry, hash: V2 } : entry));
  const reported = await paymentViolations(
    [
      inventoryResource(zone, [...repinned, { url: STRAY, justification: 'Tag manager' }]),
      cspResource(zone, `script-src ${CARD} ${OWN} ${FRAUD} ${STRAY}`),
    ],
    ENTRIES.slice(0, 3),
    { zone },
  );
  // The skimmer is no longer authorized: unauthorized, not malicious-authorized.
  expect(Object.keys(reported)).toEqual([POLICY_NAMES.paymentUnauthorized]);
  expect(reported[POLICY_NAMES.paymentUnauthorized]![0]).toContain(`  - ${SKIM} on ${PAY}`);
  const output = pack.output();
  const [review] = output.review!.inventories;
  expect(
    'unknown' in review!.changes ? null : review!.changes.repinned.map((c) => [c.entry.text, c.from, c.to]),
  ).toEqual([[CARD, V1, V2]]);
  expect(review!.integrity).toEqual({ unchanged: 1, unpinned: 3, changed: 0, unauthorized: 1 });
});

test('a script the inventory leaves unauthorized, blocked by the policy it feeds, is payment-script-unauthorized’s alone: listed by the blocked-scripts policy with that reason, no violation', async () => {
  const zone = await seededZone();
  const entries = ENTRIES.slice(0, 3);
  const parsed = parseScriptInventory({ pages: [`${HOST}/pay`], scripts: entries });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const review = async (withInventory: boolean) =>
    (
      await reviewService(client(), {
        policies: [enforcing(zone, `script-src ${cspSources(parsed.value)}`)],
        migrations: [],
        notifications: [],
        ...(withInventory ? { inventories: [underReview(zone, entries, 'none')] } : {}),
      })
    ).policies[0]!.scripts;

  // Without the inventory, the stray script the policy blocks is a violation of its own (the
  // skimmer, malicious, is blocked as it should be).
  const alone = await review(false);
  expect(alone.violations.blocks).toBe(1);
  expect(alone.notAllowed.lines.find((line) => line.url === STRAY)!.accepted).toBeUndefined();

  const beside = await review(true);
  expect(beside.violations.blocks).toBe(0);
  expect(beside.notAllowed.lines.find((line) => line.url === STRAY)!.accepted).toBe(
    'seen on the payment pages of ScriptInventory "checkout-scripts", which authorizes no such script: payment-script-unauthorized reports it',
  );
});

// ---- The read ahead (provider/payment/read-ahead.ts) ----

const REPINNED = ENTRIES.map((entry) => (entry.url === CARD ? { ...entry, hash: V2 } : entry));

test('the previous state’s inventories read ahead: their zone and pages, parsed; any order; one reading per zone and set of pages', () => {
  const state = stateBefore('ZONEA', ENTRIES, [`${HOST}/pay`, HOST]);
  const twin = {
    ...state.deployment.resources[0]!,
    urn: urn('twin'),
    inputs: { zoneId: 'zonea', pages: [HOST, `${HOST}/pay`] },
  };
  const broken = { ...twin, urn: urn('broken'), inputs: { zoneId: 'zonea', pages: [`https://${HOST}/pay`] } };
  const plugin = {
    ...twin,
    urn: 'u',
    type: 'edgeguard:index:ScriptInventory',
    inputs: { zoneId: 'zoneb', pages: [HOST] },
  };
  const policy = { ...twin, urn: 'p', type: 'edgeguard:index:CspPolicy' };
  (state.deployment.resources as unknown[]).push(twin, broken, plugin, policy);
  expect(inventoryTargets(state).map(({ zoneId, pages }) => [zoneId, pages.map((page) => page.text)])).toEqual([
    ['zonea', [`${HOST}/pay`, HOST]],
    ['zoneb', [HOST]],
  ]);
  expect(inventoryTargets({})).toEqual([]);
});

test('read ahead on the previous state: the same inventory review, judged with the new entries (a re-pin passes), and no second reading', async () => {
  const zone = await seededZone(250);
  const input = {
    policies: [],
    migrations: [],
    notifications: [],
    inventories: [underReview(zone, REPINNED, previousEntries(ENTRIES))],
  };
  const plain = await reviewService(client(), input);

  let mark = emu.mark();
  const reading = new InventoryReadAhead(client(), inventoryTargets(stateBefore(zone, ENTRIES))).start();
  // Let the reading end (not aborted as unused): what the review gets is then what was read ahead.
  await reading.ended();
  const readAhead = (await emu.requests(mark)).length;
  mark = emu.mark();
  const ahead = await reviewService(client(), input, { inventoryReadAhead: reading });
  reading.dispose();

  // The payment page listed in each status; the re-pin leaves no script to read.
  expect(readAhead).toBe(1 + 1);
  expect(await emu.requests(mark)).toEqual([]);
  expect(ahead.inventories).toEqual(plain.inventories);
  expect(ahead.inventories[0]!.integrity).toEqual({ unchanged: 1, unpinned: 3, changed: 0, unauthorized: 1 });
  expect(ahead.requests.made).toBe(readAhead);
  expect(ahead.requests.made).toBe(plain.requests.made);
  expect(ahead.requests.bound).toBe(plain.requests.bound);
  expect(ahead.requests.plan).toBe(plain.requests.plan.replace('or pages)', 'or pages, listed ahead)'));
  // Given once: a second review reads for itself.
  expect(await reading.take(zone, input.inventories[0]!.inventory.pages)).toBeUndefined();
});

test('an inventory whose pages changed reads anew; the reading it did not use is counted and in the bound', async () => {
  const zone = await seededZone();
  const input = {
    policies: [],
    migrations: [],
    notifications: [],
    inventories: [underReview(zone, REPINNED, previousEntries(ENTRIES))],
  };
  const plain = await reviewService(client(), input);
  let mark = emu.mark();
  const reading = new InventoryReadAhead(
    client(),
    inventoryTargets(stateBefore(zone, ENTRIES, [`${HOST}/pay`, 'shop.example.com'])),
  ).start();
  await reading.ended();
  const readAhead = (await emu.requests(mark)).length;
  mark = emu.mark();
  const ahead = await reviewService(client(), input, { inventoryReadAhead: reading });
  reading.dispose();

  // Both pages listed together in each status, nothing read; then the review's own reading.
  expect(readAhead).toBe(2);
  expect((await emu.requests(mark)).length).toBe(plain.requests.made);
  expect(ahead.inventories).toEqual(plain.inventories);
  expect(ahead.requests.made).toBe(plain.requests.made + readAhead);
  expect(ahead.requests.bound).toBe(plain.requests.bound + readAhead);
  expect(ahead.requests.plan).toContain(
    `; ${readAhead} (inventory pages' scripts read ahead on the previous state's pages and not used)`,
  );
});

test('a reading ahead that failed is not used: the review reads, and counts what it asked', async () => {
  const zone = await seededZone();
  const input = { policies: [], migrations: [], notifications: [], inventories: [underReview(zone, REPINNED, 'none')] };
  const plain = await reviewService(client(), input);
  const refused = clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: 'refused-token-0123456789' } });
  const reading = new InventoryReadAhead(refused, inventoryTargets(stateBefore(zone, ENTRIES))).start();
  const ahead = await reviewService(client(), input, { inventoryReadAhead: reading });
  reading.dispose();
  expect(ahead.inventories).toEqual(plain.inventories);
  // Refused at its first list page.
  expect(ahead.requests.made).toBe(plain.requests.made + 1);
  expect(ahead.requests.bound).toBe(plain.requests.bound + 1);
});

test('the pack reads ahead once the program declares a resource: the same violations and review, the inventory read once', async () => {
  const zone = await seededZone();
  const resources = [inventoryResource(zone, [...REPINNED.slice(0, 3), { url: STRAY, justification: 'Tag manager' }])];
  const before = ENTRIES.slice(0, 3);
  const mark = emu.mark();
  const reported = await paymentViolations(resources, before, { zone, readAhead: true });
  const served = await emu.requests(mark);
  const output = pack.output();
  // The one reading: the payment page listed in each status, the re-pin leaving no script to read;
  // and the zone's policies, whose headers on the payment host are compared with the previous state's.
  expect(served.length).toBe(1 + 1 + 1);
  expect(output.review!.requests.made).toBe(served.length);
  expect(output.review!.requests.plan).toContain('0 read for their versions or pages, listed ahead)');

  const parsed = parseScriptInventory({
    pages: [`${HOST}/pay`],
    scripts: [...REPINNED.slice(0, 3), { url: STRAY, justification: 'Tag manager' }],
  });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const plain = await reviewService(client(), {
    policies: [],
    migrations: [],
    notifications: [],
    inventories: [
      {
        key: urn('checkout-scripts'),
        name: 'checkout-scripts',
        zoneId: zone,
        inventory: parsed.value,
        previous: previousEntries(before),
      },
    ],
    // The state before, which the pack is given, manages no CSP policy.
    previousPolicies: [],
  });
  expect(output.review!.inventories).toEqual(JSON.parse(JSON.stringify(plain.inventories)));
  // The re-pin passes; the skimmer, no longer authorized, is reported; no enforcing policy is named.
  expect(Object.keys(reported)).toEqual([POLICY_NAMES.paymentUnauthorized, POLICY_NAMES.paymentCsp]);
  expect(reported[POLICY_NAMES.paymentUnauthorized]![0]).toContain(`  - ${SKIM} on ${PAY}`);
});
