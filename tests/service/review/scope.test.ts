import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { clientFrom } from '../../../provider/client/shared';
import { impactText } from '../../../provider/format/review-text';
import type { PolicyUnderReview } from '../../../provider/impact/model';
import type { InventoryUnderReview } from '../../../provider/payment/review';
import { PACK_POLICIES, POLICY_NAMES } from '../../../provider/pack/policies';
import { warmReview } from '../../../provider/review/pack-analysis';
import { REVIEW_BASELINE_ENV } from '../../../provider/review/pack-input';
import { REVIEW_AHEAD_PRIORITY_ENV } from '../../../provider/review/pack-env';
import { NOT_READ_UNCHANGED, REVIEW_SCOPE_ENV, reviewService, type ReviewInput } from '../../../provider/review/plan';
import { DIALECTS, PAGE_SECURITY_SEGMENT, type Dialect } from '../../../rules/dialect';
import { previousEntries } from '../../../rules/inventory-changes';
import { parseScriptInventory, type ScriptEntryInput } from '../../../rules/inventory';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';
import { cspPolicyResource, packEnvironment, stackArgs, type PackEnvironment } from '../../helpers/pack';

/**
 * The review's scope (issue 42, item 6), in each dialect against an emulator speaking it: in the
 * scope `change`, a zone whose CSP policies the change leaves as they are live is not listed (a
 * re-pin then costs the zone's policy list and the inventory's reading alone), its policies say
 * they were not read and claim no verdict on its scripts, and the inventory's verdicts are those of
 * reading everything (`full`); a zone the change alters is read and judged exactly as in `full`.
 */

const HOST = 'checkout.example.com';
const PAY = `https://${HOST}/pay`;
const CARD = 'https://js.pay.example/v3/card.js';
const OWN = `https://${HOST}/static/js/`;
const LEGACY = 'https://legacy.example.org/old.js';
const [V1, V2] = ['a1', 'b2'].map((two) => two.repeat(32)) as [string, string];
/** The checkout's other pages' scripts: more than two pages of the vendor's 100. */
const OTHERS = 250;

const ENTRIES: ScriptEntryInput[] = [
  { url: CARD, justification: 'Card form of the processor', owner: 'payments', hash: V1 },
  { prefix: OWN, justification: 'Our checkout code', owner: 'web' },
];
const REPINNED: ScriptEntryInput[] = [{ ...ENTRIES[0]!, hash: V2 }, ENTRIES[1]!];

/** The live policy's value: the card's host, our code and the CDN of the other pages; not the legacy script. */
const LIVE_VALUE = "script-src 'self' js.pay.example cdn.example.net";

describe.each(DIALECTS)('the review in the %s dialect', (dialect: Dialect) => {
  let emu: TestEmulator;
  let pack: PackEnvironment;
  const client = () => clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN, dialect } });
  const segment = PAGE_SECURITY_SEGMENT[dialect];

  beforeAll(async () => {
    emu = await startTestEmulator({ dialect });
    pack = packEnvironment(emu, 'edgeguard-review-scope-');
    process.env.EDGEGUARD_DIALECT = dialect;
  });
  afterAll(async () => {
    pack?.restore();
    await emu?.close();
  });

  /**
   * A zone whose payment page loads the card script (pinned at V1, then a new version V2) and our
   * code, whose checkout's other pages load {@link OTHERS} CDN scripts and a legacy script the
   * live policy already blocks (a violation before any change); and the live enforcing policy.
   */
  async function zoneWithPolicy(): Promise<{ zone: string; liveId: string }> {
    const zone = randomBytes(16).toString('hex');
    await emu.seed({
      zones: [{ id: zone, name: 'example.com', account_id: ACCOUNT_ID }],
      scripts: [
        { url: CARD, hash: V1, js_integrity_score: 60, page_urls: [PAY] },
        { url: `${OWN}app.js`, page_urls: [PAY], js_integrity_score: 80 },
        { url: LEGACY, page_urls: [`https://${HOST}/account`], js_integrity_score: 70 },
        ...Array.from({ length: OTHERS }, (_, i) => ({
          url: `https://cdn.example.net/lib/s-${i}.js`,
          page_urls: [`https://${HOST}/blog/${i}`],
          ...(i % 10 === 9 ? { status: 'infrequent' } : {}),
        })),
      ].map((script) => ({ zone_id: zone, ...script })),
    });
    await emu.newScriptVersion(zone, CARD, { hash: V2, js_integrity_score: 61 });
    return { zone, liveId: await livePolicy(zone, 'allow', LIVE_VALUE) };
  }

  /** A live policy of `action` and `value` on the checkout host, created in the dialect's shape: its id. */
  async function livePolicy(zone: string, action: 'allow' | 'log', value: string): Promise<string> {
    const created = await emu.api('POST', `zones/${zone}/${segment}/policies`, {
      body: {
        description: `checkout ${action}`,
        action,
        expression: `http.host eq "${HOST}"`,
        enabled: emu.wireEnabled(true),
        value,
      },
    });
    expect(created.status).toBe(200);
    return created.body.result.id as string;
  }

  const policy = (zone: string, value: string, liveId: string): PolicyUnderReview => ({
    key: 'urn:csp',
    name: 'checkout-enforce',
    zoneId: zone,
    policy: { action: 'allow', enabled: true, expression: `http.host eq "${HOST}"`, value },
    replaces: { id: liveId },
  });

  const inventory = (zone: string): InventoryUnderReview => {
    const parsed = parseScriptInventory({ pages: [`${HOST}/pay`], scripts: REPINNED });
    if (!parsed.ok) throw new Error(parsed.error.message);
    return {
      key: 'urn:inventory',
      name: 'checkout-scripts',
      zoneId: zone,
      inventory: parsed.value,
      previous: previousEntries(ENTRIES),
    };
  };

  /** The review in `scope`, and the requests the emulator served it. */
  async function reviewed(input: ReviewInput, scope: 'full' | 'change') {
    const mark = emu.mark();
    const result = await reviewService(client(), input, { scope });
    const served = await emu.requests(mark);
    expect(served.every((request) => request.status === 200)).toBe(true);
    expect(result.requests.made).toBe(served.length);
    expect(result.requests.made).toBeLessThanOrEqual(result.requests.bound);
    return { result, served };
  }

  /** The stack's enforcing policy of `value` replacing the live one, its managed ids `managed`, and the re-pinned inventory when asked. */
  const inputOf = (zone: string, value: string, managed: string[], withInventory = true): ReviewInput => ({
    policies: [policy(zone, value, managed[0]!)],
    managedPolicyIds: managed,
    migrations: [],
    notifications: [],
    ...(withInventory ? { inventories: [inventory(zone)] } : {}),
  });

  /** The review of `input` in both scopes, full first. */
  const inBothScopes = async (input: ReviewInput) => ({
    full: await reviewed(input, 'full'),
    change: await reviewed(input, 'change'),
  });

  /** The listings of the zone's detected items on the policies' hosts (the CSP review's, not the inventory's). */
  const hostListings = (served: Awaited<ReturnType<typeof reviewed>>['served']) =>
    served.filter((request) => /\/(scripts|connections)$/.test(request.path) && request.query.hosts !== undefined);

  test('a re-pin (the CSP policy as it is live): scope change lists none of the zone, the inventory judged as in full, the policy said not read', async () => {
    const { zone, liveId } = await zoneWithPolicy();
    const { full, change } = await inBothScopes(inputOf(zone, LIVE_VALUE, [liveId]));

    // Reading everything: four listings or more (the vendor's pages of 100 make more), the legacy script blocked.
    const perPage = dialect === 'vendor' ? 100 : 1000;
    const active = OTHERS - OTHERS / 10 + 3;
    expect(hostListings(full.served)).toHaveLength(Math.ceil(active / perPage) + Math.ceil(OTHERS / 10 / perPage) + 2);
    expect(full.result.policies[0]!.scripts.violations.blocks).toBe(1);
    expect(full.result.policies[0]!.scripts.notAllowed.lines.map((line) => line.url)).toContain(LEGACY);

    // The scope change: the zone's policies once, the inventory's reading, nothing else.
    expect(hostListings(change.served)).toEqual([]);
    expect(change.result.requests.made).toBe(full.result.requests.made - hostListings(full.served).length - 1);
    expect(change.result.requests.plan).toMatch(
      /not listed: the change leaves its CSP policies as they are; scope change/,
    );
    // The inventory's verdicts are those of reading everything.
    expect(change.result.inventories).toEqual(full.result.inventories);
    expect(change.result.inventories[0]!.integrity.changed).toBe(0);
    // The policy claims nothing of what was not read, and says so.
    const [unread] = change.result.policies;
    expect(unread!.notRead).toBe(NOT_READ_UNCHANGED);
    expect(unread!.scripts.judged).toBe(0);
    expect(unread!.scripts.unusedSources).toEqual([]);
    expect(unread!.connections.unusedSources).toEqual([]);
    expect(impactText(unread!)).toContain("Its host's detected scripts and connections were not read");
    expect(impactText(unread!)).not.toMatch(/detected on|candidates for removal/);
  });

  test('a change that adds a source: scope change reads the zone and judges it exactly as full does', async () => {
    const { zone, liveId } = await zoneWithPolicy();
    const { full, change } = await inBothScopes(inputOf(zone, `${LIVE_VALUE} legacy.example.org`, [liveId]));
    expect(change.result.policies).toEqual(full.result.policies);
    expect(change.result.inventories).toEqual(full.result.inventories);
    expect(change.result.requests).toEqual(full.result.requests);
    expect(change.result.policies[0]!.notRead).toBeUndefined();
    expect(change.result.policies[0]!.scripts.newlyAllowed?.lines.map((line) => line.url)).toEqual([LEGACY]);
  });

  test('a managed live policy the change deletes alters the zone: scope change reads it', async () => {
    const { zone, liveId } = await zoneWithPolicy();
    const other = await livePolicy(zone, 'log', "script-src 'self'");
    const { full, change } = await inBothScopes(inputOf(zone, LIVE_VALUE, [liveId, other], false));
    expect(change.result.policies).toEqual(full.result.policies);
    expect(hostListings(change.served)).toHaveLength(hostListings(full.served).length);
  });

  /** A zone's live policy as a resource of the program, and the state before the change, as the pack is given it. */
  async function unchangedPolicy() {
    const { zone, liveId } = await zoneWithPolicy();
    const resource = cspPolicyResource('checkout-enforce', { zoneId: zone, host: HOST, value: LIVE_VALUE });
    // The state before the change: the same policy, with the live policy's id.
    const state = path.join(pack.dir, `state-${randomBytes(4).toString('hex')}.json`);
    const declared = { zoneId: zone, action: 'allow', expression: `http.host eq "${HOST}"`, value: LIVE_VALUE };
    fs.writeFileSync(
      state,
      JSON.stringify({
        deployment: {
          resources: [
            { urn: resource.urn, type: resource.type, inputs: declared, outputs: { ...declared, policyId: liveId } },
          ],
        },
      }),
    );
    process.env[REVIEW_BASELINE_ENV] = state;
    return { zone, resource };
  }

  test('the pack in the scope change, the policy as it is live: nothing of the zone read ahead or listed, and csp-change-impact says it was not read', async () => {
    const { zone, resource } = await unchangedPolicy();
    process.env[REVIEW_SCOPE_ENV] = 'change';
    try {
      const mark = emu.mark();
      // As once the program declares its first resource: the read ahead would start here in the scope full.
      warmReview();
      const reported: Record<string, string[]> = {};
      for (const policy of PACK_POLICIES.filter((candidate) => candidate.name.startsWith('csp-'))) {
        await policy.validateStack(stackArgs([resource]), (message) => (reported[policy.name] ??= []).push(message));
      }
      const served = await emu.requests(mark);
      expect(served.map((request) => request.path)).toEqual([`/client/v4/zones/${zone}/${segment}/policies`]);
      // No mandatory policy fails, and the advisory one says what was not read.
      expect(Object.keys(reported).sort()).toEqual([POLICY_NAMES.impact, POLICY_NAMES.weaknesses].sort());
      expect(reported[POLICY_NAMES.impact]).toEqual([
        expect.stringContaining(`Its host's detected scripts and connections were not read: ${NOT_READ_UNCHANGED}.`),
      ]);
      expect(pack.output().review?.policies[0]!.notRead).toBe(NOT_READ_UNCHANGED);
    } finally {
      delete process.env[REVIEW_SCOPE_ENV];
      delete process.env[REVIEW_BASELINE_ENV];
    }
  });

  test('a read ahead priority the pack does not name: nothing read ahead or listed, and the review says which variable and why', async () => {
    const { resource } = await unchangedPolicy();
    process.env[REVIEW_AHEAD_PRIORITY_ENV] = 'fast';
    try {
      const mark = emu.mark();
      expect(warmReview()).toBe(false);
      for (const policy of PACK_POLICIES.filter((candidate) => candidate.name.startsWith('csp-'))) {
        await policy.validateStack(stackArgs([resource]), () => undefined);
      }
      expect(await emu.requests(mark)).toEqual([]);
      expect(pack.output().error).toBe(`${REVIEW_AHEAD_PRIORITY_ENV} must be lowest or usual, not "fast"`);
    } finally {
      delete process.env[REVIEW_AHEAD_PRIORITY_ENV];
      delete process.env[REVIEW_BASELINE_ENV];
    }
  });
});
