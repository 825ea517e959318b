import { randomBytes } from 'node:crypto';
import type * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { clientFrom } from '../../../provider/client/shared';
import type * as readAheadModule from '../../../provider/impact/read-ahead';
import type * as planModule from '../../../provider/review/plan';
import type { ReviewInput } from '../../../provider/review/plan';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';
import { REPO } from '../../helpers/repo';
import { until } from '../../helpers/until';

/**
 * The review's read ahead when it fails or is not used (issue 43), the built modules as the policy
 * pack runs them, against the emulator: a listing line it cannot write (a full disk), or no folder
 * to keep its listings in, never fails the review, which reads for itself; listings no review takes,
 * or whose hosts do not cover the review's, are aborted, not read to their end, and counted by what
 * was asked.
 */

/**
 * What the disk does, as the built modules see it: with `mockDiskFull`, the read ahead's files are
 * opened on `/dev/full`, where every write fails as on a full disk (in the child process that
 * writes them, `read-ahead-child.ts`); with `mockTmpdir`, the temporary folder is that one.
 */
let mockDiskFull = false;
let mockFilesOnFullDisk = 0;
let mockTmpdir: string | undefined;
jest.mock('node:fs', () => {
  const actual = jest.requireActual<typeof fs>('node:fs');
  return {
    ...actual,
    openSync: (file: string, ...rest: unknown[]) => {
      if (mockDiskFull && String(file).includes('/edgeguard-review-ahead-')) {
        mockFilesOnFullDisk += 1;
        return actual.openSync('/dev/full', 'r+');
      }
      return (actual.openSync as (...args: unknown[]) => number)(file, ...rest);
    },
  };
});
jest.mock('node:os', () => {
  const actual = jest.requireActual<typeof os>('node:os');
  return { ...actual, tmpdir: () => mockTmpdir ?? actual.tmpdir() };
});

/* eslint-disable @typescript-eslint/no-require-imports -- the built modules, as the pack runs them */
const { ReadAhead, readAheadTargets } = require(
  path.join(REPO, 'dist', 'provider', 'impact', 'read-ahead.js'),
) as typeof readAheadModule;
const { reviewService } = require(path.join(REPO, 'dist', 'provider', 'review', 'plan.js')) as typeof planModule;
/* eslint-enable @typescript-eslint/no-require-imports */

const PER_PAGE = 2;
/**
 * The read ahead's child process at this process's priority, not the lowest (whose own test is
 * below): on a machine whose cores are busy, a process at nice 19 gets about 1% of a core, and these
 * tests of what it reads would wait minutes for it.
 */
const USUAL = 'usual' as const;
const CHECKOUT = 'checkout.example.com';

let emu: TestEmulator;
const client = () => clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN } });

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => emu.close());

/** A zone with `scripts` active scripts, an infrequent one and two connections on the checkout host. */
async function newZone(scripts = 6): Promise<string> {
  const zone = randomBytes(16).toString('hex');
  await emu.seed({ zones: [{ id: zone, name: 'example.com', account_id: ACCOUNT_ID }] });
  const on = { zone_id: zone, host: CHECKOUT, first_page_url: `https://${CHECKOUT}/page` };
  await emu.seed({
    scripts: [
      ...Array.from({ length: scripts }, (_, i) => ({ ...on, url: `https://cdn.example.net/s${i}.js` })),
      { ...on, url: 'https://bad.example.info/x.js', js_integrity_score: 3 },
      { ...on, url: 'https://cdn.example.net/rare.js', status: 'infrequent' },
    ],
    connections: [
      { ...on, url: 'https://api.stripe.com/v1/tokens' },
      { ...on, url: 'https://drop.example.info/c', domain_reported_malicious: true },
    ],
  });
  return zone;
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
        value: "script-src 'self' cdn.example.net; connect-src api.stripe.com",
      },
      replaces: 'none',
    },
  ],
  migrations: [],
  notifications: [],
});

/** A `pulumi stack export` naming a CSP policy on the checkout host of `zone`. */
const targets = (zone: string) =>
  readAheadTargets({
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

/** A request the emulator served. */
type Served = Awaited<ReturnType<TestEmulator['requests']>>[number];

/**
 * Settles once the emulator has served `count` requests of the zone after `mark` (of those `which`
 * picks), within 30 s.
 */
async function requestsServed(
  zone: string,
  mark: number,
  count = 1,
  which: (request: Served) => boolean = () => true,
): Promise<void> {
  await until(
    async () => (await zoneRequests(mark, zone)).filter(which).length >= count,
    30_000,
    () => `not ${count} requests of zone ${zone} within 30 s`,
  );
}

/**
 * The most requests a child process ended by the review can have asked for and not sent: a page
 * of each of a zone's four listings (each asks for its next page while it writes one), and its list
 * of live policies. Counted, as asked; the service may never have seen them.
 */
const IN_FLIGHT = 4 + 1;

/** The zone's page security requests after `mark`: listings and the list of its policies. */
async function zoneRequests(mark: number, zone: string) {
  return (await emu.requests(mark)).filter((r) => r.path.startsWith(`/client/v4/zones/${zone}/page_security/`));
}

test('a listing line that cannot be written (a full disk): the review completes, reading for itself', async () => {
  const zone = await newZone();
  const before = emu.mark();
  const plain = await reviewService(client(), input(zone), { perPage: PER_PAGE });
  const plainFirstPages = (await zoneRequests(before, zone)).filter((r) => r.query.page === '1').length;
  mockDiskFull = true;
  const reading = new ReadAhead(client().settings, targets(zone), PER_PAGE, undefined, USUAL).start();
  try {
    await reading.ended();
    expect(mockFilesOnFullDisk).toBe(4);
    const mark = emu.mark();
    const review = await reviewService(client(), input(zone), { perPage: PER_PAGE, readAhead: reading });
    expect(review.policies).toEqual(plain.policies);
    // Listed by the review itself, every listing from its first page (a page the read ahead had
    // asked for before its write failed may be answered after `mark` too).
    expect(review.requests.plan).not.toContain('read ahead)');
    expect((await zoneRequests(mark, zone)).filter((r) => r.query.page === '1')).toHaveLength(plainFirstPages);
    expect(review.requests.made).toBeLessThanOrEqual(review.requests.bound);
  } finally {
    mockDiskFull = false;
    reading.dispose();
  }
});

test('no folder to keep the listings in: no read ahead, and the review reads for itself', async () => {
  const zone = await newZone();
  const plain = await reviewService(client(), input(zone), { perPage: PER_PAGE });
  mockTmpdir = path.join(os.tmpdir(), `edgeguard-missing-${randomBytes(4).toString('hex')}`);
  let reading: InstanceType<typeof ReadAhead> | undefined;
  try {
    reading = new ReadAhead(client().settings, targets(zone), PER_PAGE, undefined, USUAL).start();
    const review = await reviewService(client(), input(zone), { perPage: PER_PAGE, readAhead: reading });
    expect(review.policies).toEqual(plain.policies);
    expect(review.requests.plan).not.toContain('read ahead)');
  } finally {
    mockTmpdir = undefined;
    reading?.dispose();
  }
});

test('listings no review takes are aborted, not read to their end, and counted by what was asked', async () => {
  // 60 active scripts: 31 pages of 2.
  const zone = await newZone(60);
  const mark = emu.mark();
  const reading = new ReadAhead(client().settings, targets(zone), PER_PAGE, undefined, USUAL).start();
  try {
    const unused = await reading.unusedRequests();
    // Whatever was in flight when they were aborted has been answered.
    await reading.ended();
    const asked = await zoneRequests(mark, zone);
    const activeScripts = asked.filter((r) => r.path.endsWith('/scripts') && r.query.status === 'active');
    expect(activeScripts.length).toBeGreaterThan(0);
    expect(activeScripts.length).toBeLessThan(31);
    // Every request asked is counted: the zone's policies and each listing's pages asked for.
    expect(unused).toBe(asked.length);
    // And nothing more is asked once they are.
    await reading.ended();
    expect(await zoneRequests(mark, zone)).toHaveLength(asked.length);
  } finally {
    reading.dispose();
  }
});

test('a review of a host the read ahead does not cover: its listings are aborted then, not read to their end', async () => {
  // 60 active scripts on the checkout host: 31 pages of 2.
  const zone = await newZone(60);
  const [checkout] = input(zone).policies;
  const www = 'www.example.com';
  const review: ReviewInput = {
    ...input(zone),
    policies: [
      checkout!,
      {
        ...checkout!,
        key: `urn:${www}`,
        name: www,
        policy: { ...checkout!.policy, expression: `http.host eq "${www}"` },
      },
    ],
  };
  const mark = emu.mark();
  const reading = new ReadAhead(client().settings, targets(zone), PER_PAGE, undefined, USUAL).start();
  try {
    // Reviewed once the read ahead is reading: the review ends it, not read to its end.
    await requestsServed(zone, mark, 3);
    const reviewed = await reviewService(client(), review, { perPage: PER_PAGE, readAhead: reading });
    await reading.ended();
    const served = await zoneRequests(mark, zone);
    const readAhead = served.filter(
      (r) => r.path.endsWith('/scripts') && r.query.status === 'active' && r.query.hosts === CHECKOUT,
    );
    expect(readAhead.length).toBeGreaterThan(0);
    expect(readAhead.length).toBeLessThan(31);
    expect(reviewed.requests.plan).not.toContain('read ahead)');
    expect(reviewed.requests.plan).not.toContain('read ahead in part');
    // The review's requests and those the read ahead asked, all counted: those it had asked for
    // when it was ended, whether or not they were sent.
    countedAsAsked(reviewed, served);
  } finally {
    reading.dispose();
  }
});

/** The read ahead's child processes of this process (`read-ahead-child.ts`), by pid. */
function readAheadChildren(): number[] {
  const actual = jest.requireActual<typeof fs>('node:fs');
  return actual
    .readdirSync('/proc/self/task')
    .flatMap((task) => actual.readFileSync(`/proc/self/task/${task}/children`, 'utf8').split(' ').filter(Boolean))
    .filter((pid) => {
      try {
        return actual.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('read-ahead-child.js');
      } catch {
        return false;
      }
    })
    .map(Number);
}

test('the listing runs in a child process at the lowest priority, every thread of it; this process keeps its own', async () => {
  const zone = await newZone(60);
  const actual = jest.requireActual<typeof fs>('node:fs');
  const nice = (task: string) => Number(actual.readFileSync(task, 'utf8').split(') ')[1]!.split(' ')[16]);
  const ours = actual.readdirSync('/proc/self/task').map((task) => nice(`/proc/self/task/${task}/stat`));
  const before = readAheadChildren();
  const reading = new ReadAhead(client().settings, targets(zone), PER_PAGE).start();
  try {
    // Those of the tests before may not have ended yet.
    const [child, ...others] = readAheadChildren().filter((pid) => !before.includes(pid));
    expect(child).toBeDefined();
    expect(others).toEqual([]);
    // Lowered by the child's first line, once node has started it: looked at until then, 30 s at most.
    const niceOfThreads = () =>
      actual.readdirSync(`/proc/${child}/task`).map((task) => nice(`/proc/${child}/task/${task}/stat`));
    await until(
      () => niceOfThreads().every((value) => value === 19),
      30_000,
      () => `the child's threads are at nice ${niceOfThreads().join(', ')} after 30 s`,
      10,
    );
    const threads = niceOfThreads();
    expect(threads.length).toBeGreaterThan(1);
    expect(threads).toEqual(threads.map(() => 19));
    expect(actual.readdirSync('/proc/self/task').map((task) => nice(`/proc/self/task/${task}/stat`))).toEqual(
      expect.arrayContaining(ours),
    );
    expect(Math.max(...ours)).toBeLessThan(19);
  } finally {
    reading.dispose();
  }
});

/**
 * A zone of 60 active scripts (31 pages of 2), its plain review, and a read ahead of it started
 * after `mark`, with its child process.
 */
async function readingWithChild() {
  const zone = await newZone(60);
  const plain = await reviewService(client(), input(zone), { perPage: PER_PAGE });
  const mark = emu.mark();
  const before = readAheadChildren();
  const reading = new ReadAhead(client().settings, targets(zone), PER_PAGE, undefined, USUAL).start();
  const [child, ...others] = readAheadChildren().filter((pid) => !before.includes(pid));
  expect(others).toEqual([]);
  return { zone, plain, mark, reading, child: child! };
}

/**
 * The review's requests counted as asked: at least those the emulator served, and at most
 * {@link IN_FLIGHT} more (asked by a child process ended before it sent them); within its bound.
 */
function countedAsAsked(review: { requests: { made: number; bound: number } }, served: readonly Served[]): void {
  expect(review.requests.made).toBeGreaterThanOrEqual(served.length);
  expect(review.requests.made).toBeLessThanOrEqual(served.length + IN_FLIGHT);
  expect(review.requests.made).toBeLessThanOrEqual(review.requests.bound);
}

test('a child process that ends before it has read: the review reads every listing itself, and counts every request', async () => {
  const { zone, plain, mark, reading, child } = await readingWithChild();
  try {
    process.kill(child, 'SIGKILL');
    await reading.ended();
    const review = await reviewService(client(), input(zone), { perPage: PER_PAGE, readAhead: reading });
    expect(review.policies).toEqual(plain.policies);
    expect(review.requests.plan).not.toContain('judged ahead');
    expect(review.requests.plan).toContain('(61 active scripts, read ahead in part, and on by the review)');
    countedAsAsked(review, await zoneRequests(mark, zone));
  } finally {
    reading.dispose();
  }
});

test('a child process that cannot go on (stopped, as one at the lowest priority starves on a busy machine) does not hold the review up: the review reads on from the page after the last it wrote', async () => {
  const { zone, plain, mark, reading, child } = await readingWithChild();
  const activeScripts = (request: Served) => request.path.endsWith('/scripts') && request.query.status === 'active';
  try {
    // Stopped once it has asked for the third page of the active scripts: it has written the first.
    await requestsServed(zone, mark, 3, activeScripts);
    process.kill(child, 'SIGSTOP');
    const review = await reviewService(client(), input(zone), { perPage: PER_PAGE, readAhead: reading });
    expect(review.policies).toEqual(plain.policies);
    expect(review.requests.plan).toContain('(61 active scripts, read ahead in part, and on by the review)');
    const served = await zoneRequests(mark, zone);
    const pages = served.filter(activeScripts).map((request) => Number(request.query.page));
    // Every page read, and the first once, by the child: the review read on, not from the start.
    expect(new Set(pages)).toEqual(new Set(Array.from({ length: 31 }, (_, page) => page + 1)));
    expect(pages.filter((page) => page === 1)).toHaveLength(1);
    countedAsAsked(review, served);
  } finally {
    reading.dispose();
    try {
      process.kill(child, 'SIGKILL');
    } catch {
      // Ended already, by the review.
    }
  }
});

test('the process that reads ahead killed (the engine ends the pack with a kill): its child process ends too, its listing unread', async () => {
  // 1,000 active scripts: 501 pages of 2.
  const zone = await newZone(1_000);
  const mark = emu.mark();
  const actual = jest.requireActual<typeof fs>('node:fs');
  const script = `
    const { ReadAhead } = require(${JSON.stringify(path.join(REPO, 'dist', 'provider', 'impact', 'read-ahead.js'))});
    const settings = JSON.parse(process.argv[1]);
    const reading = new ReadAhead(settings, new Map([[${JSON.stringify(zone)}, new Set([${JSON.stringify(CHECKOUT)}])]]), 2, undefined, 'usual').start();
    process.stdout.write(String(reading.child.pid) + '\\n');
    setInterval(() => undefined, 60_000);
  `;
  const { spawn } = jest.requireActual<typeof import('node:child_process')>('node:child_process');
  const parent = spawn(process.execPath, ['-e', script, JSON.stringify(client().settings)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  /** Whether `pid` runs: its entry in /proc, and not a zombie left for its new parent to reap. */
  const running = (pid: number) => {
    try {
      return !/\) Z /.test(actual.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  try {
    const child = await new Promise<number>((resolve, reject) => {
      parent.stdout.once('data', (data: Buffer) => resolve(Number(String(data).trim())));
      parent.once('exit', (code) => reject(new Error(`the reading process exited (${code}) before its child started`)));
    });
    expect(running(child)).toBe(true);
    // Killed once its child reads: then it has loaded what it reads with.
    await requestsServed(zone, mark);
    parent.kill('SIGKILL');
    await until(
      () => !running(child),
      20_000,
      () => `the child process ${child} still runs 20 s after its parent was killed`,
    );
    // It ended as its parent did, not once it had read the zone.
    const activeScripts = (await zoneRequests(mark, zone)).filter(
      (r) => r.path.endsWith('/scripts') && r.query.status === 'active',
    );
    expect(activeScripts.length).toBeLessThan(501);
  } finally {
    parent.kill('SIGKILL');
  }
});
