import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApiBudget, type CallBudget } from '../../../provider/client/pacing';
import { clientFrom } from '../../../provider/client/shared';
import { detectedPages } from '../../../provider/impact/listed';
import { lineBytes } from '../../../provider/impact/listing-file';
import { ListingThread, LOWEST_PRIORITY, type ListingSpec } from '../../../provider/impact/listing-thread';
import { ReadAhead, readAheadTargets } from '../../../provider/impact/read-ahead';
import { reviewService, type ReviewInput } from '../../../provider/review/plan';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';
import { REPO } from '../../helpers/repo';

/**
 * The review's read ahead in a thread of the lowest priority (`provider/impact/listing-thread.ts`),
 * the built module as the policy pack runs it, against the emulator: the thread lists what this
 * thread would, at the lowest priority, each call paced by the process's API budget; a review
 * given what it read is the review that lists itself; a review that needs the listings before
 * the thread has ended them reads the rest itself and counts every request; a thread that cannot
 * start leaves the reading to this thread.
 */

const BUILT = path.join(REPO, 'dist', 'provider', 'impact', 'listing-thread.js');
const PER_PAGE = 2;
const CHECKOUT = 'checkout.example.com';
/** The emulator's API limit, scaled down: the budget learns it from the answers the thread gets. */
const LIMIT = { limit: 900, windowSeconds: 300 };

let emu: TestEmulator;
const client = () => clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN } });

beforeAll(async () => {
  emu = await startTestEmulator({ apiRateLimit: LIMIT });
});
afterAll(async () => emu.close());

/** A zone with 7 active and 1 infrequent scripts and 3 active connections on the checkout host, and one elsewhere. */
async function newZone(): Promise<string> {
  const zone = randomBytes(16).toString('hex');
  await emu.seed({ zones: [{ id: zone, name: 'example.com', account_id: ACCOUNT_ID }] });
  const on = (host: string) => ({ zone_id: zone, host, first_page_url: `https://${host}/page` });
  await emu.seed({
    scripts: [
      ...Array.from({ length: 6 }, (_, i) => ({ ...on(CHECKOUT), url: `https://cdn.example.net/s${i}.js` })),
      { ...on(CHECKOUT), url: 'https://bad.example.info/x.js', js_integrity_score: 3 },
      { ...on(CHECKOUT), url: 'https://cdn.example.net/rare.js', status: 'infrequent' },
      { ...on('www.example.com'), url: 'https://cdn.example.net/www.js' },
    ],
    connections: [
      { ...on(CHECKOUT), url: 'https://api.stripe.com/v1/tokens' },
      { ...on(CHECKOUT), url: 'https://drop.example.info/c', domain_reported_malicious: true },
      { ...on(CHECKOUT), url: 'https://api.example.net/me' },
    ],
  });
  return zone;
}

const SPECS = (zone: string): ListingSpec[] =>
  (['scripts', 'connections'] as const).flatMap((kind) =>
    (['active', 'infrequent'] as const).map((status) => ({ zoneId: zone, hosts: [CHECKOUT], kind, status })),
  );

/** The thread's priority for the system (`nice`), from `/proc`. */
function niceOf(thread: number): number {
  const stat = fs.readFileSync(`/proc/self/task/${thread}/stat`, 'utf8');
  // The fields after the command's closing parenthesis, from the state (the third field): nice is the 19th.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

const input = (zone: string): ReviewInput => ({
  policies: [
    {
      key: `urn:${CHECKOUT}`,
      name: CHECKOUT,
      zoneId: zone,
      policy: {
        action: 'allow',
        enabled: true,
        expression: `http.host eq "${CHECKOUT}"`,
        value: "script-src 'self' cdn.example.net; connect-src api.stripe.com drop.example.info",
      },
      replaces: 'none',
    },
  ],
  migrations: [],
  notifications: [],
});

/** A `pulumi stack export` naming a CSP policy on the checkout host of `zone`. */
const exported = (zone: string) => ({
  deployment: {
    resources: [
      {
        urn: `urn:pulumi:dev::p::edgeguard:index:CspPolicy::${CHECKOUT}`,
        type: 'edgeguard:index:CspPolicy',
        outputs: { zoneId: zone, expression: `http.host eq "${CHECKOUT}"`, policyId: 'x'.repeat(32) },
      },
    ],
  },
});

test('the thread lists at the lowest priority what this thread would, each call paced by the process budget', async () => {
  const zone = await newZone();
  const specs = SPECS(zone);
  const budget = new ApiBudget();
  let takes = 0;
  const counted: CallBudget = {
    get policy() {
      return budget.policy;
    },
    take: () => {
      takes += 1;
      return budget.take();
    },
    waiting: (ms) => budget.waiting(ms),
  };
  const lines: string[][] = specs.map(() => []);
  const ends: number[] = [];
  const mark = emu.mark();
  let thread!: ListingThread;
  const ended = new Promise<void>((resolve, reject) => {
    thread = new ListingThread(BUILT, client().settings, counted, PER_PAGE, specs, {
      page: (listing, bytes) => lines[listing]!.push(Buffer.from(bytes).toString('utf8')),
      end: (listing) => {
        ends.push(listing);
        if (ends.length === specs.length) resolve();
      },
      failed: (listing, message) => reject(new Error(`listing ${listing} failed: ${message}`)),
      stopped: () => reject(new Error('the thread stopped')),
    });
  });
  const id = await thread.threadId;
  // Told before its first call, which this thread's emulator has yet to answer: it is still running.
  expect(id).toBeDefined();
  expect(niceOf(id!)).toBe(LOWEST_PRIORITY);
  expect(niceOf(process.pid)).toBe(0);
  await ended;
  const served = await emu.requests(mark);

  // The same pages, as their files keep them, as this thread reads them.
  const here: string[][] = [];
  for (const { zoneId, hosts, kind, status } of specs) {
    const pages: string[] = [];
    for await (const page of detectedPages(client(), zoneId, kind, status, hosts, PER_PAGE))
      pages.push(Buffer.from(lineBytes(page)).toString('utf8'));
    here.push(pages);
  }
  expect(lines).toEqual(here);
  expect(lines.map((pages) => pages.length)).toEqual([4, 1, 2, 1]);
  expect(lines[0]!.join('')).toContain('https://bad.example.info/x.js');
  // Each call the thread made was let go by the process's budget, which learned the limit from its answers.
  expect(served).toHaveLength(8);
  expect(takes).toBe(8);
  expect(thread.requests).toBe(8);
  expect(budget.policy).toEqual({ limit: LIMIT.limit, windowMs: LIMIT.windowSeconds * 1000 });
});

/**
 * A zone read ahead by `thread` to its end, then reviewed with what was read: the review of the
 * zone listing itself, the requests of the read ahead and of the review, and the read ahead.
 */
async function readThenReviewed(thread: string) {
  const zone = await newZone();
  const plain = await reviewService(client(), input(zone), { perPage: PER_PAGE });
  let mark = emu.mark();
  const reading = new ReadAhead(client(), readAheadTargets(exported(zone)), PER_PAGE, undefined, thread).start();
  await reading.ended();
  const read = await emu.requests(mark);
  mark = emu.mark();
  const ahead = await reviewService(client(), input(zone), { perPage: PER_PAGE, readAhead: reading });
  const review = await emu.requests(mark);
  reading.dispose();
  // The live policies listed on this thread, and the 8 pages; the review listed nothing.
  expect(read).toHaveLength(1 + 8);
  expect(review.filter((request) => request.query.page !== undefined)).toEqual([]);
  expect(ahead.policies).toEqual(plain.policies);
  expect(ahead.requests.made).toBe(plain.requests.made);
  expect(ahead.requests.made).toBe(read.length + review.length);
  return { ahead, reading };
}

test('a review given what the thread read: the review that lists itself, no listing of its own', async () => {
  const { ahead, reading } = await readThenReviewed(BUILT);
  // Every page came from the thread.
  expect(reading.threadPages).toBe(8);
  expect(ahead.policies[0]!.scripts.judged).toBe(8);
  expect(ahead.policies[0]!.scripts.newlyBlocked?.lines.map((line) => line.url)).toEqual([
    'https://bad.example.info/x.js',
  ]);
});

test('the review needs the listings before the thread has ended them: the rest read here, every request counted', async () => {
  const zone = await newZone();
  const plain = await reviewService(client(), input(zone), { perPage: PER_PAGE });
  const mark = emu.mark();
  const reading = new ReadAhead(client(), readAheadTargets(exported(zone)), PER_PAGE, undefined, BUILT).start();
  // At once: the thread has not started reading.
  const ahead = await reviewService(client(), input(zone), { perPage: PER_PAGE, readAhead: reading });
  const served = await emu.requests(mark);
  reading.dispose();
  expect(reading.threadPages).toBeLessThan(8);
  expect(ahead.policies).toEqual(plain.policies);
  // Never fewer than were served; more only by a call the thread was let make and stopped before sending.
  expect(ahead.requests.made).toBeGreaterThanOrEqual(served.length);
  expect(ahead.requests.made).toBeLessThanOrEqual(served.length + 4);
  expect(ahead.requests.made).toBeLessThanOrEqual(ahead.requests.bound);
});

test('a thread that cannot start: this thread reads the listings', async () => {
  const { reading } = await readThenReviewed(path.join(REPO, 'dist', 'no-such-listing-thread.js'));
  expect(reading.threadPages).toBe(0);
});
