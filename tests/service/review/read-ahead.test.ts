import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { clientFrom } from '../../../provider/client/shared';
import { reviewService, type ReviewInput } from '../../../provider/review/plan';
import { type PolicyUnderReview } from '../../../provider/impact/model';
import { ReadAhead, readAheadTargets } from '../../../provider/impact/read-ahead';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';

/**
 * The review's read ahead (`provider/impact/read-ahead.ts`) against the emulator: the listings of
 * the hosts the previous state names, read before the proposed policies are known, give the same
 * review as the listings read at the analysis, with no request of the review's own; a read ahead
 * on other hosts, or one that failed, is not used, and its requests are counted and in the bound.
 */

let emu: TestEmulator;
const client = (token = TEST_TOKEN) => clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: token } });
const PER_PAGE = 2;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => emu.close());

const CHECKOUT = 'checkout.example.com';
const ACCOUNT = 'account.example.com';

/** A zone with scripts and connections on two hosts, and a third host not in the previous state. */
async function newZone(): Promise<string> {
  const zone = randomBytes(16).toString('hex');
  await emu.seed({ zones: [{ id: zone, name: 'example.com', account_id: ACCOUNT_ID }] });
  const on = (host: string) => ({ zone_id: zone, host, first_page_url: `https://${host}/page` });
  await emu.seed({
    scripts: [
      {
        // Over http: mixed content on the https page, blocked by the policies on the http one.
        ...on(CHECKOUT),
        url: 'http://static.example.org/js/app.js',
        page_urls: [`https://${CHECKOUT}/page`, `http://${CHECKOUT}/old`],
      },
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
  const reading = new ReadAhead(client(token), readAheadTargets(exported(zone, hosts)), PER_PAGE).start();
  // Let every listing end: what the review gets is then what the read ahead read.
  await reading.unusedRequests();
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
  expect(readRequests).toBe(5);
  expect(ahead.requests.made).toBe(plain.requests.made + readRequests);
  expect(ahead.requests.bound).toBe(plain.requests.bound + readRequests);
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
  // Four listings, each refused at its first page.
  expect(ahead.requests.made).toBe(plain.requests.made + 4);
  expect(ahead.requests.bound).toBe(plain.requests.bound + 4);
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
      .filter((target) => target.includes(`${path.sep}edgeguard-review-`));
  const reading = await readAhead(zone, [CHECKOUT]);
  // The engine ends the pack with a kill: nothing may wait for a clean-up.
  expect(
    fs.readdirSync(os.tmpdir()).filter((name) => !before.has(name) && name.startsWith('edgeguard-review-')),
  ).toEqual([]);
  // Four listings, each in a file open and already removed.
  expect(open()).toHaveLength(4);
  expect(open().every((target) => target.endsWith('(deleted)'))).toBe(true);
  reading.dispose();
  expect(open()).toEqual([]);
  // Once disposed of, it gives nothing: the review lists for itself.
  expect(await reading.take(zone, [CHECKOUT])).toBeUndefined();
});
