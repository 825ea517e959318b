import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { clientFrom } from '../../../provider/client/shared';
import { listPolicies } from '../../../provider/client/page-security';
import { zonePoliciesOf } from '../../../provider/impact/zone';
import { reviewService, type ReviewInput } from '../../../provider/review/plan';
import { type PolicyUnderReview } from '../../../provider/impact/model';
import { READ_AHEAD_FOLDER, ReadAhead, readAheadTargets, speculationOf } from '../../../provider/impact/read-ahead';
import { ZoneImpactEvaluator } from '../../../provider/impact/evaluate';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';

/**
 * The review's read ahead (`provider/impact/read-ahead.ts`) against the emulator: the listings of
 * the hosts the previous state names, read before the proposed policies are known, give the same
 * review as the listings read at the analysis, with no request of the review's own; a read ahead
 * on other hosts, or one that failed, is not used, and its requests are counted and in the bound.
 * With the previous state's policies (a speculation), it judges a zone's items once they are read and
 * the program has declared the zone's policies as they were, and the review takes that judgement
 * when its policies are those, and only then.
 */

let emu: TestEmulator;
const client = (token = TEST_TOKEN) => clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: token } });
const PER_PAGE = 2;
/**
 * The read ahead's child process at this process's priority, not the lowest (tested in
 * read-ahead-failures.test.ts): on a machine whose cores are busy, a process at nice 19 gets about
 * 1% of a core, and these tests of what it reads would wait minutes for it.
 */
const USUAL = 'usual' as const;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => emu.close());

/** Every read ahead a test starts, disposed of when the test ends, passed or failed: none holds files into the next. */
const started: ReadAhead[] = [];
const begun = (reading: ReadAhead): ReadAhead => {
  started.push(reading);
  return reading;
};
afterEach(() => {
  for (const reading of started.splice(0)) reading.dispose();
});

const CHECKOUT = 'checkout.example.com';
const ACCOUNT = 'account.example.com';

/**
 * A zone with scripts and connections on two hosts, and a third host not in the previous state;
 * with `overHttp`, a script over http whose verdict depends on the page it runs on.
 */
async function newZone(overHttp = true): Promise<string> {
  const zone = randomBytes(16).toString('hex');
  await emu.seed({ zones: [{ id: zone, name: 'example.com', account_id: ACCOUNT_ID }] });
  const on = (host: string) => ({ zone_id: zone, host, first_page_url: `https://${host}/page` });
  await emu.seed({
    scripts: [
      ...(overHttp
        ? [
            {
              // Over http: mixed content on the https page, blocked by the policies on the http one.
              ...on(CHECKOUT),
              url: 'http://static.example.org/js/app.js',
              page_urls: [`https://${CHECKOUT}/page`, `http://${CHECKOUT}/old`],
            },
          ]
        : []),
      { ...on(CHECKOUT), url: 'https://js.stripe.com/v3/elements.js', js_integrity_score: 60 },
      { ...on(CHECKOUT), url: 'https://cdn.example.net/a.js', js_integrity_score: 50 },
      { ...on(CHECKOUT), url: 'https://cdn.example.net/rare.js', status: 'infrequent' },
      { ...on(CHECKOUT), url: 'https://bad.example.info/x.js', js_integrity_score: 3 },
      { ...on(ACCOUNT), url: 'https://cdn.example.net/account.js' },
      { ...on('www.example.com'), url: 'https://cdn.example.net/www.js' },
    ],
    connections: [
      { ...on(CHECKOUT), url: 'https://api.stripe.com/v1/tokens' },
      { ...on(CHECKOUT), url: 'https://drop.example.info/c', domain_reported_malicious: true },
      { ...on(CHECKOUT), url: 'https://collect.example.net/x', status: 'infrequent' },
      { ...on(ACCOUNT), url: 'https://api.example.net/me' },
    ],
  });
  return zone;
}

const policy = (zone: string, host: string, value: string): PolicyUnderReview => ({
  key: `urn:${host}`,
  name: host,
  zoneId: zone,
  policy: { action: 'allow', enabled: true, expression: `http.host eq "${host}"`, value },
  replaces: 'none',
});
const input = (policies: PolicyUnderReview[]): ReviewInput => ({ policies, migrations: [], notifications: [] });
const VALUE = "script-src 'self' cdn.example.net; connect-src api.stripe.com drop.example.info";

/** A `pulumi stack export` naming CSP policies on `hosts` of `zone`, a dynamic and a plugin one. */
function exported(zone: string, hosts: string[]) {
  const types = ['pulumi-nodejs:dynamic/edgeguard:CspPolicy', 'edgeguard:index:CspPolicy'];
  return {
    deployment: {
      resources: hosts.map((host, i) => ({
        urn: `urn:pulumi:dev::p::${types[i % 2]}::${host}`,
        type: types[i % 2],
        outputs: { zoneId: zone.toUpperCase(), expression: `http.host eq "${host}"`, policyId: 'x'.repeat(32) },
      })),
    },
  };
}

/** The list requests of the zone after `mark`, as `kind status page`. */
async function listings(mark: number, zone: string): Promise<string[]> {
  return (await emu.requests(mark))
    .filter((r) => r.path.startsWith(`/client/v4/zones/${zone}/page_security/`) && r.query.page !== undefined)
    .map((r) => [r.path.split('/').pop(), r.query.status, r.query.page, r.query.hosts].join(' '))
    .sort();
}

async function readAhead(zone: string, hosts: string[], token?: string): Promise<ReadAhead> {
  const reading = begun(
    new ReadAhead(client(token).settings, readAheadTargets(exported(zone, hosts)), PER_PAGE, undefined, USUAL).start(),
  );
  // Let every listing end (not aborted as unused): what the review gets is then what the read ahead read.
  await reading.ended();
  return reading;
}

test('the zones and hosts of the previous state: CSP policies of both kinds; nothing else', () => {
  const state = exported('ZONEA', [CHECKOUT, ACCOUNT]);
  state.deployment.resources.push(
    {
      urn: 'u3',
      type: 'edgeguard:index:HealthNotification',
      outputs: { zoneId: 'zonea', expression: 'http.host eq "x.example.com"', policyId: '' },
    },
    {
      urn: 'u4',
      type: 'edgeguard:index:CspPolicy',
      outputs: { zoneId: 'zoneb', expression: 'not an expression', policyId: '' },
    },
  );
  expect(readAheadTargets(state)).toEqual(new Map([['zonea', new Set([CHECKOUT, ACCOUNT])]]));
  expect(readAheadTargets({})).toEqual(new Map());
  expect(readAheadTargets(null)).toEqual(new Map());
});

test('read ahead on the hosts of the review: the same review, and no listing of its own', async () => {
  const zone = await newZone();
  const policies = [policy(zone, CHECKOUT, VALUE), policy(zone, ACCOUNT, "script-src 'self'")];
  const plain = await reviewService(client(), input(policies), { perPage: PER_PAGE });

  let mark = emu.mark();
  const reading = await readAhead(zone, [CHECKOUT, ACCOUNT]);
  const read = await listings(mark, zone);
  mark = emu.mark();
  const ahead = await reviewService(client(), input(policies), { perPage: PER_PAGE, readAhead: reading });
  try {
    // The read ahead listed the two hosts, each kind and status, page by page; the review listed nothing.
    expect(read).toEqual(
      [
        `scripts active 1 ${CHECKOUT},${ACCOUNT}`,
        `scripts active 2 ${CHECKOUT},${ACCOUNT}`,
        `scripts active 3 ${CHECKOUT},${ACCOUNT}`,
        `scripts infrequent 1 ${CHECKOUT},${ACCOUNT}`,
        `connections active 1 ${CHECKOUT},${ACCOUNT}`,
        `connections active 2 ${CHECKOUT},${ACCOUNT}`,
        `connections infrequent 1 ${CHECKOUT},${ACCOUNT}`,
      ].sort(),
    );
    expect(await listings(mark, zone)).toEqual([]);
    // Exactly what the review read itself, down to the requests it counts and states.
    expect(ahead.policies).toEqual(plain.policies);
    expect(ahead.policies[0]!.scripts.violations).toEqual({ blocks: 2, maliciousAllowed: 0 });
    expect(ahead.policies[0]!.connections.maliciousAllowed.lines.map((line) => line.url)).toEqual([
      'https://drop.example.info/c',
    ]);
    expect(ahead.requests.made).toBe(plain.requests.made);
    expect(ahead.requests.bound).toBe(plain.requests.bound);
    expect(ahead.requests.plan).toBe(
      plain.requests.plan.replace(/ (active|infrequent) (scripts|connections)\)/g, ' $1 $2, read ahead)'),
    );
  } finally {
    reading.dispose();
  }
});

test('read ahead on more hosts than the review covers: used, the other hosts not judged', async () => {
  const zone = await newZone();
  const policies = [policy(zone, CHECKOUT, VALUE)];
  const plain = await reviewService(client(), input(policies), { perPage: PER_PAGE });
  const reading = await readAhead(zone, [CHECKOUT, ACCOUNT]);
  const mark = emu.mark();
  const ahead = await reviewService(client(), input(policies), { perPage: PER_PAGE, readAhead: reading });
  reading.dispose();
  expect(await listings(mark, zone)).toEqual([]);
  expect(ahead.policies).toEqual(plain.policies);
  // Its listings held the other host's items too: their pages are the requests it made.
  expect(plain.requests.plan).toContain(' + 2 (4 active scripts) + ');
  expect(ahead.requests.plan).toContain(' + 3 (5 active scripts, read ahead) + ');
  expect(ahead.requests.plan).toContain(' + 2 (3 active connections, read ahead) + ');
  expect(ahead.requests.made).toBe(plain.requests.made + 2);
  expect(ahead.requests.bound).toBe(plain.requests.bound + 2);
});

test('a review of a host the previous state does not name lists it, and counts the read ahead it did not use', async () => {
  const zone = await newZone();
  const policies = [policy(zone, CHECKOUT, VALUE), policy(zone, 'www.example.com', "script-src 'self'")];
  const plain = await reviewService(client(), input(policies), { perPage: PER_PAGE });
  let mark = emu.mark();
  const reading = await readAhead(zone, [CHECKOUT]);
  const readRequests = (await emu.requests(mark)).length;
  mark = emu.mark();
  const ahead = await reviewService(client(), input(policies), { perPage: PER_PAGE, readAhead: reading });
  reading.dispose();
  expect(await listings(mark, zone)).toEqual(await listingsOfPlain());
  expect(ahead.policies).toEqual(plain.policies);
  // The zone's live policies, which the review used as its own list of them, and five listings it did not use.
  expect(readRequests).toBe(6);
  expect(ahead.requests.made).toBe(plain.requests.made + readRequests - 1);
  expect(ahead.requests.bound).toBe(plain.requests.bound + readRequests - 1);
  expect(ahead.requests.plan).toContain("; 5 (listings read ahead on the previous state's hosts and not used)");
  expect(ahead.requests.made).toBeLessThanOrEqual(ahead.requests.bound);

  async function listingsOfPlain(): Promise<string[]> {
    const before = emu.mark();
    await reviewService(client(), input(policies), { perPage: PER_PAGE });
    return listings(before, zone);
  }
});

test('a read ahead that failed is not used: the review lists, and counts what the read ahead asked', async () => {
  const zone = await newZone();
  const policies = [policy(zone, CHECKOUT, VALUE)];
  const plain = await reviewService(client(), input(policies), { perPage: PER_PAGE });
  const reading = await readAhead(zone, [CHECKOUT], 'refused-token-0123456789');
  const mark = emu.mark();
  const ahead = await reviewService(client(), input(policies), { perPage: PER_PAGE, readAhead: reading });
  reading.dispose();
  expect((await listings(mark, zone)).length).toBeGreaterThan(0);
  expect(ahead.policies).toEqual(plain.policies);
  // The list of the live policies and four listings, each refused at its first page.
  expect(ahead.requests.made).toBe(plain.requests.made + 5);
  expect(ahead.requests.bound).toBe(plain.requests.bound + 5);
});

describe("judged ahead, against the previous state's policies, unless the program declares them otherwise (issue 30)", () => {
  const TYPE = 'pulumi-nodejs:dynamic/edgeguard:CspPolicy';
  const urnOf = (host: string) => `urn:pulumi:dev::p::${TYPE}::${host}`;
  const URN = urnOf(CHECKOUT);
  const declared = (host: string, value: string) => ({
    action: 'allow' as const,
    expression: `http.host eq "${host}"`,
    value,
    enabled: true,
  });
  /** The inputs the engine gives the pack's `Analyze` for the policy on `host` (the checkout's) declared as `value`. */
  const inputs = (zone: string, value = VALUE, host = CHECKOUT) => ({
    zoneId: zone,
    description: host,
    ...declared(host, value),
    __provider: 'serialized provider',
  });
  /**
   * A zone whose checkout policy (and one on each of `others`) is live and in the previous state, in
   * that order, and the review's input, in the same order, when the change leaves the checkout's as
   * `value` and the others as they were.
   */
  async function managedZone(overHttp: boolean, value = VALUE, others: string[] = []) {
    const zone = await newZone(overHttp);
    const managed = [];
    for (const host of [CHECKOUT, ...others]) {
      const created = await emu.api('POST', `zones/${zone}/page_security/policies`, {
        body: { description: host, ...declared(host, VALUE) },
      });
      expect(created.status).toBe(200);
      managed.push({ host, policyId: created.body.result.id as string });
    }
    const state = {
      deployment: {
        resources: managed.map(({ host, policyId }) => ({
          urn: urnOf(host),
          type: TYPE,
          inputs: { zoneId: zone, description: host, ...declared(host, VALUE) },
          outputs: { zoneId: zone.toUpperCase(), expression: `http.host eq "${host}"`, policyId },
        })),
      },
    };
    const review: ReviewInput = {
      policies: managed.map(({ host, policyId }) => ({
        key: urnOf(host),
        name: host,
        zoneId: zone,
        policy: { ...declared(host, host === CHECKOUT ? value : VALUE) },
        replaces: { id: policyId },
      })),
      managedPolicyIds: managed.map(({ policyId }) => policyId),
      migrations: [],
      notifications: [],
    };
    return { zone, state, review };
  }
  /** Judged items, counted from the zone evaluators' `judge` calls. */
  const judgedItems = () => jest.spyOn(ZoneImpactEvaluator.prototype, 'judge');
  /**
   * A read ahead of `state`, told `declarations` (URN, type, inputs) before or after it has read
   * its zone, and let run until it has read and judged what it would judge ahead.
   */
  async function judgedAhead(
    state: unknown,
    declarations: Array<[string, string, Record<string, unknown>]>,
    when: 'before' | 'after' = 'before',
  ): Promise<ReadAhead> {
    const reading = begun(
      new ReadAhead(client().settings, readAheadTargets(state), PER_PAGE, speculationOf(state), USUAL).start(),
    );
    if (when === 'before') for (const declaration of declarations) reading.declared(...declaration);
    await reading.ended();
    if (when === 'after') for (const declaration of declarations) reading.declared(...declaration);
    // Its judging ahead, a page per turn of the event loop, ended (or not begun, as declared).
    await reading.judgingSettled();
    return reading;
  }

  /** The review judged the zone itself, from what was read, as a review without the read ahead did. */
  function judgedByTheReview(review: Awaited<ReturnType<typeof reviewService>>, plain: typeof review): void {
    expect(review.policies).toEqual(plain.policies);
    expect(review.requests.plan).toContain(', read ahead)');
    expect(review.requests.plan).not.toContain('judged ahead');
  }

  afterEach(() => jest.restoreAllMocks());

  /** Another resource of the program: its inputs are not read. */
  const OTHER: [string, string, Record<string, unknown>] = [
    'urn:pulumi:dev::p::pulumi-nodejs:dynamic/edgeguard:ScriptInventory::checkout',
    'pulumi-nodejs:dynamic/edgeguard:ScriptInventory',
    {},
  ];
  const judgedAheadCases: Array<
    [string, (zone: string) => Array<[string, string, Record<string, unknown>]>, 'before' | 'after']
  > = [
    ['another resource declared, the policy not yet', () => [OTHER], 'before'],
    ['declared as it was, before the zone is read', (zone) => [[URN, TYPE, inputs(zone)]], 'before'],
    ['declared as it was, after the zone is read', (zone) => [[URN, TYPE, inputs(zone)]], 'after'],
  ];
  for (const [what, declarations, when] of judgedAheadCases) {
    test(`${what}: the review takes the judgement made ahead, the same, with the same requests`, async () => {
      const { zone, state, review } = await managedZone(false);
      const plain = await reviewService(client(), review, { perPage: PER_PAGE });
      const judge = judgedItems();
      const reading = await judgedAhead(state, declarations(zone), when);
      // Every item of the policy's host judged before the review was asked for, once.
      const ahead = judge.mock.calls.length;
      expect(ahead).toBe(plain.policies[0]!.scripts.judged + plain.policies[0]!.connections.judged);
      const mark = emu.mark();
      const review2 = await reviewService(client(), review, { perPage: PER_PAGE, readAhead: reading });
      reading.dispose();
      // Nothing judged again, nothing listed by the review: not the policies, not an item (it reads
      // the pages of the violation it shows).
      expect(judge.mock.calls.length).toBe(ahead);
      expect(
        (await emu.requests(mark)).filter(
          (request) => request.path.endsWith('/policies') || request.query.page !== undefined,
        ),
      ).toEqual([]);
      expect(review2.policies).toEqual(plain.policies);
      // The stripe script is blocked; the malicious one too, no violation for that.
      expect(review2.policies[0]!.scripts.violations).toEqual({ blocks: 1, maliciousAllowed: 0 });
      expect(review2.requests.made).toBe(plain.requests.made);
      expect(review2.requests.bound).toBe(plain.requests.bound);
      expect(review2.requests.plan).toBe(
        plain.requests.plan.replace(
          / (active|infrequent) (scripts|connections)\)/g,
          ' $1 $2, read ahead and judged ahead)',
        ),
      );
    });
  }

  test('two policies of the zone, in the state in one order and in the review in the other: the judgement made ahead, the same', async () => {
    const managed = await managedZone(false, VALUE, [ACCOUNT]);
    const { zone, state } = managed;
    // The engine gives the pack the program's resources in the program's order, which need not be the state's.
    const review: ReviewInput = { ...managed.review, policies: [...managed.review.policies].reverse() };
    const plain = await reviewService(client(), review, { perPage: PER_PAGE });
    const reading = await judgedAhead(state, [
      [urnOf(ACCOUNT), TYPE, inputs(zone, VALUE, ACCOUNT)],
      [URN, TYPE, inputs(zone)],
    ]);
    const ahead = await reviewService(client(), review, { perPage: PER_PAGE, readAhead: reading });
    reading.dispose();
    expect(ahead.policies.map((policy) => policy.name)).toEqual([ACCOUNT, CHECKOUT]);
    expect(ahead.policies).toEqual(plain.policies);
    expect(ahead.requests.plan).toContain('judged ahead');
  });

  const notAhead: Array<[string, (zone: string) => Array<[string, string, Record<string, unknown>]>]> = [
    ['nothing declared (the program has not begun)', () => []],
    [
      "only the stack's own resource declared (the program's code has not run yet)",
      () => [['urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev', 'pulumi:pulumi:Stack', {}]],
    ],
    ['the policy declared with another value', (zone) => [[URN, TYPE, inputs(zone, "script-src 'self'")]]],
    ['the policy disabled', (zone) => [[URN, TYPE, { ...inputs(zone), enabled: false }]]],
    [
      'the policy declared as it was, and a policy of the zone the previous state does not have',
      (zone) => [
        [URN, TYPE, inputs(zone)],
        [
          `${URN}-new`,
          'edgeguard:index:CspPolicy',
          { ...inputs(zone.toUpperCase()), expression: 'http.host eq "new.example.com"' },
        ],
      ],
    ],
  ];
  for (const [what, declarations] of notAhead) {
    test(`${what} before the zone is read: nothing judged ahead; the review judges what was read`, async () => {
      const { zone, state, review } = await managedZone(false);
      const plain = await reviewService(client(), review, { perPage: PER_PAGE });
      const judge = judgedItems();
      const reading = await judgedAhead(state, declarations(zone));
      expect(judge).not.toHaveBeenCalled();
      const review2 = await reviewService(client(), review, { perPage: PER_PAGE, readAhead: reading });
      reading.dispose();
      judgedByTheReview(review2, plain);
    });
  }

  /**
   * `review` of a zone judged ahead (the program begun with another resource), then judged again by
   * the review, `between` run in between: every item judged twice, and the review as one without
   * the read ahead.
   */
  async function judgedAheadThenAgain(
    state: unknown,
    review: ReviewInput,
    between: (reading: ReadAhead) => void = () => undefined,
  ): Promise<Awaited<ReturnType<typeof reviewService>>> {
    const plain = await reviewService(client(), review, { perPage: PER_PAGE });
    const judge = judgedItems();
    const reading = await judgedAhead(state, [OTHER]);
    between(reading);
    const ahead = judge.mock.calls.length;
    expect(ahead).toBe(plain.policies[0]!.scripts.judged + plain.policies[0]!.connections.judged);
    const again = await reviewService(client(), review, { perPage: PER_PAGE, readAhead: reading });
    reading.dispose();
    expect(judge.mock.calls.length).toBe(2 * ahead);
    judgedByTheReview(again, plain);
    return again;
  }

  test('the policy declared otherwise once the zone was judged: the review judges it again', async () => {
    const { zone, state, review } = await managedZone(false);
    await judgedAheadThenAgain(state, review, (reading) =>
      reading.declared(URN, TYPE, inputs(zone, "script-src 'self'")),
    );
  });

  test('a changed policy the review is given: judged again from what was read, not from the judgement made ahead', async () => {
    // Judged ahead as it was, though the review is given another value: the key tells them apart.
    const { state, review } = await managedZone(false, "script-src 'self'; connect-src api.stripe.com");
    const again = await judgedAheadThenAgain(state, review);
    // 'self' alone blocks the CDN's two scripts too: not what the policy judged ahead allowed.
    expect(again.policies[0]!.scripts.violations).toEqual({ blocks: 3, maliciousAllowed: 0 });
  });

  test('a blocked script the review accepts: judged again, accepted; one it does not: the judgement made ahead', async () => {
    const { zone, state, review } = await managedZone(false);
    for (const [accepted, judgedAheadUsed] of [
      ['https://js.stripe.com/v3/elements.js', false],
      ['https://nothing.example/none.js', true],
    ] as const) {
      const acceptBlocked = (url: string) => (url === accepted ? 'reviewed' : undefined);
      const plain = await reviewService(client(), review, { perPage: PER_PAGE, acceptBlocked });
      const reading = await judgedAhead(state, [[URN, TYPE, inputs(zone)]]);
      const ahead = await reviewService(client(), review, { perPage: PER_PAGE, readAhead: reading, acceptBlocked });
      reading.dispose();
      expect(ahead.policies).toEqual(plain.policies);
      expect(ahead.policies[0]!.scripts.violations.blocks).toBe(judgedAheadUsed ? 1 : 0);
      expect(ahead.requests.plan.includes('judged ahead')).toBe(judgedAheadUsed);
    }
  });

  test('a zone that differs only in a live policy the stack does not manage: not the judgement made ahead', async () => {
    const { zone, state, review } = await managedZone(false);
    // Two read aheads, each judging the zone ahead as it is now, the checkout's policy declared as it was.
    const readings = [0, 1].map(() => {
      const reading = begun(
        new ReadAhead(client().settings, readAheadTargets(state), PER_PAGE, speculationOf(state), USUAL).start(),
      );
      reading.declared(URN, TYPE, inputs(zone));
      return reading;
    });
    try {
      for (const reading of readings) await reading.ended();
      const before = await listPolicies(client(), zone);
      // Then a policy made outside the stack, on the checkout's host: its header is enforced beside the stack's.
      const unmanaged = await emu.api('POST', `zones/${zone}/page_security/policies`, {
        body: { description: 'made in the dashboard', ...declared(CHECKOUT, "script-src 'self'") },
      });
      expect(unmanaged.status).toBe(200);
      const after = await listPolicies(client(), zone);
      expect(after).toHaveLength(before.length + 1);
      const zoneOf = (listed: typeof before) => zonePoliciesOf(review.policies, listed, review.managedPolicyIds ?? []);
      // The two zones differ in nothing but that live policy.
      expect({ ...zoneOf(after), live: [] }).toEqual({ ...zoneOf(before), live: [] });
      const taken = await Promise.all(
        [before, after].map(async (listed, index) => {
          const reading = readings[index]!;
          expect(await reading.take(zone, [CHECKOUT])).toBeDefined();
          return (await reading.judgedAhead(zone, zoneOf(listed), undefined, undefined)) !== undefined;
        }),
      );
      // The zone as it was judged ahead: taken; with the unmanaged policy: judged again.
      expect(taken).toEqual([true, false]);
    } finally {
      for (const reading of readings) reading.dispose();
    }
  });

  test('a script whose verdict depends on its pages ends the judging ahead: the review reads its pages', async () => {
    const { zone, state, review } = await managedZone(true);
    const plain = await reviewService(client(), review, { perPage: PER_PAGE });
    const reading = await judgedAhead(state, [[URN, TYPE, inputs(zone)]]);
    const ahead = await reviewService(client(), review, { perPage: PER_PAGE, readAhead: reading });
    reading.dispose();
    judgedByTheReview(ahead, plain);
  });
});

test('the read ahead leaves nothing on disk, even before it ends; dispose closes its files', async () => {
  const zone = await newZone();
  const before = new Set(fs.readdirSync(os.tmpdir()));
  const open = () =>
    fs
      .readdirSync('/proc/self/fd')
      .map((fd) => {
        try {
          return fs.readlinkSync(path.join('/proc/self/fd', fd));
        } catch {
          return '';
        }
      })
      .filter((target) => target.includes(`${path.sep}${READ_AHEAD_FOLDER}`));
  const reading = await readAhead(zone, [CHECKOUT]);
  // The engine ends the pack with a kill: nothing may wait for a clean-up.
  expect(fs.readdirSync(os.tmpdir()).filter((name) => !before.has(name) && name.startsWith(READ_AHEAD_FOLDER))).toEqual(
    [],
  );
  // Four listings, each in a file open and already removed.
  expect(open()).toHaveLength(4);
  expect(open().every((target) => target.endsWith('(deleted)'))).toBe(true);
  reading.dispose();
  expect(open()).toEqual([]);
  // Once disposed of, it gives nothing: the review lists for itself.
  expect(await reading.take(zone, [CHECKOUT])).toBeUndefined();
});
