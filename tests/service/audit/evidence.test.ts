import { clientFrom } from '../../../provider/client/shared';
import { exitStatusOf, gatherEvidence } from '../../../provider/payment/evidence';
import { summaryText } from '../../../provider/format/audit-wording';
import { auditEvidenceSchema } from '../../../provider/payment/evidence-schema';
import type { StackInventory } from '../../../provider/stack/inventories';
import { parseScriptInventory } from '../../../rules/inventory';
import { startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';

/**
 * edgeguard-audit's gathering of the evidence (provider/payment/evidence.ts) against the emulator:
 * scripts seeded on the payment pages with their hashes, a new version of a pinned one through the
 * emulator's versions route, an unauthorized script, authorized and unchanged scripts that page
 * security classifies or reports malicious, and the live policies of the pages' host, of which only
 * the enabled ones are in force. It reads and writes nothing.
 */

const CARD = 'https://js.pay.example/v3/card.js';
const OWN = 'https://shop.example.com/js/checkout.js';
const STRAY = 'https://cdn.other.example/tracker.js';
const RISK = 'https://risk.example/r.js';
const [V1, V2, V3, V4] = ['a1', 'b2', 'c3', 'd4'].map((two) => two.repeat(32)) as [string, string, string, string];
const NOW = new Date('2026-11-25T09:30:00.000Z');

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => emu.close());

const client = () => clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN } });

async function policy(zone: string, body: Record<string, unknown>): Promise<string> {
  const reply = await emu.api('POST', `zones/${zone}/page_security/policies`, {
    body: { description: '', action: 'allow', value: "script-src 'self'", enabled: true, ...body },
  });
  expect(reply.status).toBe(200);
  return reply.body.result.id as string;
}

function stackInventory(name: string, zoneId: string, pages: string[], scripts: Array<Record<string, string>>) {
  const parsed = parseScriptInventory({ pages, scripts });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return {
    name,
    urn: `urn:pulumi:prod::shop::edgeguard:index:ScriptInventory::${name}`,
    zoneId,
    inventory: parsed.value,
  };
}

test('per payment page: the headers in force and every script with its entry and integrity, a changed one with its versions and when', async () => {
  const zone = await emu.zoneWithScripts([
    {
      url: CARD,
      hash: V1,
      fetched_at: '2026-10-01T00:00:00.000Z',
      first_seen_at: '2026-10-01T00:00:00.000Z',
      js_integrity_score: 85,
      page_urls: ['https://shop.example.com/checkout/pay'],
    },
    { url: OWN, status: 'infrequent', page_urls: ['https://shop.example.com/checkout', 'https://shop.example.com/'] },
    { url: STRAY, js_integrity_score: 4, page_urls: ['https://shop.example.com/checkout'] },
    { url: RISK, hash: V4, page_urls: ['https://pay.example.com/'] },
    { url: 'https://cdn.other.example/blog.js', page_urls: ['https://shop.example.com/blog/post'] },
  ]);
  const card = await emu.scriptIdOf(zone, CARD);
  for (const [hash, fetched_at] of [
    [V2, '2026-11-20T10:00:00.000Z'],
    [V3, '2026-11-24T10:00:00.000Z'],
  ] as const) {
    await emu.newScriptVersion(zone, CARD, { hash, fetched_at, js_integrity_score: 80 });
  }
  const enforcing = await policy(zone, {
    description: 'Checkout: only the inventory',
    expression: 'http.host eq "shop.example.com"',
    value: `script-src ${CARD} https://shop.example.com/js/`,
  });
  const reporting = await policy(zone, {
    description: 'Report everything else',
    action: 'log',
    expression: 'http.host eq "shop.example.com"',
  });
  await policy(zone, { description: 'Disabled', expression: 'http.host eq "shop.example.com"', enabled: false });
  await policy(zone, { description: 'Another host', expression: 'http.host eq "www.example.com"' });

  const inventory: StackInventory = stackInventory(
    'checkout-scripts',
    zone,
    ['shop.example.com/checkout', 'pay.example.com'],
    [
      { url: CARD, justification: 'Card form of the payment processor', owner: 'payments team', hash: V1 },
      { prefix: 'https://shop.example.com/js/', justification: 'Our checkout code' },
      { url: RISK, justification: 'Fraud checks', hash: V4 },
      { url: 'https://old.example/gone.js', justification: 'Retired widget' },
    ],
  );
  const enforcingUrn = 'urn:pulumi:prod::shop::edgeguard:index:CspPolicy::checkout-enforce';
  const mark = emu.mark();
  const evidence = await gatherEvidence(client(), {
    project: 'shop',
    stack: 'prod',
    toolVersion: '0.1.0',
    inventories: [inventory],
    policies: [
      { name: 'checkout-enforce', urn: enforcingUrn, zoneId: zone, policyId: enforcing },
      // The same id in another zone is another policy.
      { name: 'elsewhere', urn: 'urn:x', zoneId: 'f'.repeat(32), policyId: reporting },
    ],
    now: () => NOW,
  });
  expect(await emu.writesSince(mark)).toEqual([]);
  expect(auditEvidenceSchema.parse(evidence)).toEqual(evidence);

  expect(evidence).toMatchObject({
    format: 'edgeguard-audit',
    formatVersion: 1,
    evaluatedAt: '2026-11-25T09:30:00.000Z',
    tool: { name: 'edgeguard-audit', version: '0.1.0' },
    project: 'shop',
    stack: 'prod',
    passed: false,
    counts: { scripts: 4, unchanged: 1, unpinned: 1, changed: 1, unauthorized: 1, malicious: 1 },
  });
  expect(exitStatusOf(evidence)).toBe(1);
  const [found] = evidence.inventories;
  expect(found!.staleEntries).toEqual([
    { index: 3, url: 'https://old.example/gone.js', justification: 'Retired widget' },
  ]);
  const [checkout, pay] = found!.pages;

  // Enabled policies of the host alone, enforced first; the disabled one is not in force.
  expect(checkout!.headers).toEqual([
    {
      policyId: enforcing,
      description: 'Checkout: only the inventory',
      action: 'allow',
      mode: 'enforced',
      value: `script-src ${CARD} https://shop.example.com/js/`,
      managedBy: { name: 'checkout-enforce', urn: enforcingUrn },
    },
    {
      policyId: reporting,
      description: 'Report everything else',
      action: 'log',
      mode: 'report-only',
      value: "script-src 'self'",
    },
  ]);
  expect(pay!.headers).toEqual([]);

  expect(checkout!.scripts.map((script) => [script.url, script.integrity, script.seenOn])).toEqual([
    [STRAY, 'unauthorized', ['https://shop.example.com/checkout']],
    [CARD, 'changed', ['https://shop.example.com/checkout/pay']],
    [OWN, 'unpinned', ['https://shop.example.com/checkout']],
  ]);
  expect(checkout!.counts).toEqual({
    scripts: 3,
    unchanged: 0,
    unpinned: 1,
    changed: 1,
    unauthorized: 1,
    malicious: 1,
  });
  const changed = checkout!.scripts.find((script) => script.url === CARD)!;
  expect(changed).toMatchObject({
    id: card,
    entry: {
      index: 0,
      url: CARD,
      justification: 'Card form of the payment processor',
      owner: 'payments team',
      hash: V1,
    },
    hash: V3,
    fetchedAt: '2026-11-24T10:00:00.000Z',
    changedAt: '2026-11-20T10:00:00.000Z',
    firstSeenAt: '2026-10-01T00:00:00.000Z',
    lastSeenAt: '2026-11-24T10:00:00.000Z',
    scores: { js_integrity_score: 80 },
    malicious: false,
  });
  expect(changed.versionsSince).toEqual([
    {
      hash: V3,
      fetchedAt: '2026-11-24T10:00:00.000Z',
      scores: expect.objectContaining({ js_integrity_score: 80 }),
      pinned: false,
    },
    {
      hash: V2,
      fetchedAt: '2026-11-20T10:00:00.000Z',
      scores: expect.objectContaining({ js_integrity_score: 80 }),
      pinned: false,
    },
    {
      hash: V1,
      fetchedAt: '2026-10-01T00:00:00.000Z',
      scores: expect.objectContaining({ js_integrity_score: 85 }),
      pinned: true,
    },
  ]);
  const stray = checkout!.scripts.find((script) => script.url === STRAY)!;
  expect(stray).toMatchObject({ malicious: true, versionsSince: [] });
  expect(stray.entry).toBeUndefined();

  expect(pay!.scripts.map((script) => [script.url, script.integrity, script.hash])).toEqual([[RISK, 'unchanged', V4]]);
});

test('inventories of one zone list its policies once; an inventory of nothing seen passes', async () => {
  const zone = await emu.zoneWithScripts([{ url: CARD, hash: V1, page_urls: ['https://shop.example.com/checkout'] }]);
  const enforcing = await policy(zone, { expression: 'http.host eq "shop.example.com"' });
  const mark = emu.mark();
  const evidence = await gatherEvidence(client(), {
    project: 'shop',
    stack: 'prod',
    toolVersion: '0.1.0',
    inventories: [
      stackInventory('a', zone, ['shop.example.com'], [{ url: CARD, justification: 'Card form', hash: V1 }]),
      stackInventory('b', zone, ['quiet.example.com'], []),
    ],
    // The stack manages the host's one policy, as declared: no header changed outside it.
    policies: [
      {
        name: 'enforce',
        urn: 'urn:pulumi:prod::shop::edgeguard:index:CspPolicy::enforce',
        zoneId: zone,
        policyId: enforcing,
        declared: {
          description: '',
          action: 'allow',
          expression: 'http.host eq "shop.example.com"',
          value: "script-src 'self'",
          enabled: true,
        },
      },
    ],
  });
  const policyLists = (await emu.requests(mark)).filter((request) => request.path.endsWith('/policies'));
  expect(policyLists).toHaveLength(1);
  expect(evidence.inventories.map((inventory) => [inventory.name, inventory.counts.scripts])).toEqual([
    ['a', 1],
    ['b', 0],
  ]);
  expect(evidence.inventories[0]!.pages[0]!.headers.map((header) => header.managedBy?.name)).toEqual(['enforce']);
  expect(evidence.inventories.map((inventory) => inventory.headerChanges)).toEqual([[], []]);
  expect(evidence.passed).toBe(true);
  expect(exitStatusOf(evidence)).toBe(0);
  expect(Date.parse(evidence.evaluatedAt)).not.toBeNaN();
});

test('an authorized script pinned and unchanged fails when malicious: by its score, or its URL or domain reported', async () => {
  const [skim, flagged, hosted] = ['skim.js', 'flagged.js', 'hosted.js'].map(
    (name) => `https://cdn.shop.example/${name}`,
  ) as [string, string, string];
  const zone = await emu.zoneWithScripts([
    { url: CARD, hash: V1, js_integrity_score: 85, page_urls: ['https://shop.example.com/checkout'] },
    { url: skim, hash: V2, js_integrity_score: 5, page_urls: ['https://shop.example.com/checkout'] },
    {
      url: flagged,
      hash: V3,
      js_integrity_score: 80,
      url_reported_malicious: true,
      malicious_url_categories: ['Malware'],
      page_urls: ['https://shop.example.com/checkout'],
    },
    {
      url: hosted,
      hash: V4,
      js_integrity_score: 80,
      domain_reported_malicious: true,
      page_urls: ['https://shop.example.com/checkout'],
    },
  ]);
  const pinned = (url: string, hash: string) => ({ url, justification: 'Checkout', hash });
  const evidence = await gatherEvidence(client(), {
    project: 'shop',
    stack: 'prod',
    toolVersion: '0.1.0',
    inventories: [
      stackInventory(
        'checkout-scripts',
        zone,
        ['shop.example.com/checkout'],
        [pinned(CARD, V1), pinned(skim, V2), pinned(flagged, V3), pinned(hosted, V4)],
      ),
    ],
    policies: [],
  });
  expect(auditEvidenceSchema.parse(evidence)).toEqual(evidence);
  const counts = { scripts: 4, unchanged: 4, unpinned: 0, changed: 0, unauthorized: 0, malicious: 3 };
  expect(evidence.counts).toEqual(counts);
  expect(evidence.inventories[0]!.counts).toEqual(counts);
  expect(evidence.inventories[0]!.pages[0]!.counts).toEqual(counts);
  expect(evidence.passed).toBe(false);
  expect(exitStatusOf(evidence)).toBe(1);
  const where = 'pinned, unchanged, on shop.example.com/checkout (inventory checkout-scripts)';
  expect(summaryText(evidence).split('\n')).toEqual([
    'fail: 4 scripts (4 pinned, unchanged; 0 unpinned; 0 changed; 0 unauthorized), 3 malicious; failing:',
    `  ${flagged}: malicious (URL reported malicious (Malware)), ${where}`,
    `  ${hosted}: malicious (domain reported malicious), ${where}`,
    `  ${skim}: malicious (js_integrity_score 5), ${where}`,
  ]);
});
