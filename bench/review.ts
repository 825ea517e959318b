import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { RunningEmulator } from '../emulator/server';
import { REVIEW_OUTPUT_ENV, type PackOutput } from '../provider/review/pack-analysis';
import { REVIEW_BASELINE_ENV } from '../provider/review/pack-input';
import { POLICY_PACK } from '../provider/review/review-stack';
import { call, TOKEN, withEmulator, ZONE } from './common';
import { benchStack, PARALLEL, type BenchStack } from './engine';

/**
 * The review before merge (issues 9, 20 and 24): a zone with N detected scripts and M detected
 * connections (by default 5,000 + 5,000, 50,000 scripts alone, and 50,000 + 50,000) and 20 allow
 * policies, one per host, every one of which the preview changes (bench/projects/csp-review); on
 * each host, two more live policies the stack does not manage ({@link OTHER_TEAMS_POLICIES}), so
 * that every fetch is judged against three headers of its host, in two browsers.
 * Per size, on a fresh in-memory emulator:
 * - the requests the pack made (the emulator's log during the preview) against the bound it states;
 * - the preview with the pack against the same preview without it, alternated, `rounds` times each
 *   (medians), in the same run;
 * - the pack process's peak RSS (`VmHWM`, read from /proc every 50 ms while the preview runs), and
 *   the heap the same read and judgement keep alive (bench/review-child.ts: a child process with
 *   a full GC every 50 ms), so that garbage V8 has not collected yet is told apart from memory kept,
 *   read at the analysis and read ahead.
 *
 * The previews get the state before the change (`EDGEGUARD_REVIEW_BASELINE`), as `edgeguard-review`
 * gives it, so the pack reads the listings ahead while the program runs (provider/impact/read-ahead.ts).
 *
 * The scripts: 2.5% first-party on https pages (allowed by `'self'`, from an http page of the host
 * as well, so their pages need no reading), 0.5% malicious on a host no policy allows (blocked: no
 * violation), the rest on the ten CDNs every policy allows; 10% infrequent. The connections alike:
 * 2.5% to the host's own API (`'self'`), 0.5% to a drop the service reports malicious (blocked),
 * the rest to the ten APIs every policy allows. So the change blocks nothing, and every preview
 * succeeds.
 */

/** A zone's size: its detected scripts and connections. */
export interface ZoneSize {
  scripts: number;
  connections: number;
}

/** Options of {@link reviewBenchmarks}. */
export interface ReviewBenchOptions {
  /** Zone sizes. Default 5,000 + 5,000, 50,000 scripts alone, 50,000 + 50,000. */
  sizes?: ZoneSize[];
  /** Policies (and hosts). Default 20. */
  policies?: number;
  /** Previews of each kind per size. Default 3. */
  rounds?: number;
}

const SEED_CHUNK = 10_000;

/** What tells the two kinds apart in the seeded zone: their URLs, and how one is malicious. */
const KINDS = {
  scripts: {
    own: (host: string, i: number) => `https://${host}/assets/app-${i}.js`,
    malicious: (i: number) => `https://evil-${i % 7}.example.info/x-${i}.js`,
    other: (i: number) => `https://cdn${i % 10}.example.net/lib/s-${i}.js`,
    flagged: { js_integrity_score: 3 },
    // A script names its host; a connection's comes from its page (the emulator derives it).
    named: true,
  },
  connections: {
    own: (host: string, i: number) => `https://${host}/api/c-${i}`,
    malicious: (i: number) => `https://drop-${i % 7}.example.info/c-${i}`,
    other: (i: number) => `https://api${i % 10}.example.net/v1/e-${i}`,
    flagged: { domain_reported_malicious: true, malicious_domain_categories: ['Malware'] },
    named: false,
  },
} as const;

function detectedOf(kind: keyof typeof KINDS, count: number, hosts: number): Array<Record<string, unknown>> {
  const shape = KINDS[kind];
  return Array.from({ length: count }, (_, i) => {
    const host = `h${i % hosts}.example.com`;
    const share = i % 200;
    const url = share < 5 ? shape.own(host, i) : share === 5 ? shape.malicious(i) : shape.other(i);
    return {
      zone_id: ZONE,
      url,
      ...(shape.named ? { host } : {}),
      first_page_url: `https://${host}/page-${i % 50}`,
      ...(share === 5 ? shape.flagged : {}),
      ...(i % 10 === 9 ? { status: 'infrequent' } : {}),
    };
  });
}

async function seedDetected(emulator: RunningEmulator, size: ZoneSize, hosts: number): Promise<void> {
  for (const [section, all] of [
    ['scripts', detectedOf('scripts', size.scripts, hosts)],
    ['connections', detectedOf('connections', size.connections, hosts)],
  ] as const) {
    for (let offset = 0; offset < all.length; offset += SEED_CHUNK) {
      const reply = await call('POST', `${emulator.controlUrl}/seed`, {
        [section]: all.slice(offset, offset + SEED_CHUNK),
      });
      if (reply.status !== 200) throw new Error(`seed failed: ${JSON.stringify(reply.body).slice(0, 300)}`);
    }
  }
}

/**
 * Live policies of each host that the stack does not manage (another team's), headers beside the
 * stack's: an allow policy that lets every https script and connection through, and a log policy
 * that reports what is not on the CDNs and APIs the stack allows. They block nothing the stack's
 * policy allows, so every preview still succeeds.
 */
const OTHER_TEAMS_POLICIES = [
  { action: 'allow', value: "script-src 'self' https:; connect-src 'self' https:" },
  {
    action: 'log',
    value: `script-src 'self' ${Array.from({ length: 10 }, (_, i) => `cdn${i}.example.net`).join(' ')}; connect-src 'self' ${Array.from({ length: 10 }, (_, i) => `api${i}.example.net`).join(' ')}`,
  },
];

/** Creates {@link OTHER_TEAMS_POLICIES} on each host, at the service. */
async function seedOtherPolicies(emulator: RunningEmulator, hosts: number): Promise<void> {
  for (let i = 0; i < hosts; i++) {
    for (const { action, value } of OTHER_TEAMS_POLICIES) {
      const reply = await call('POST', `${emulator.baseUrl}/zones/${ZONE}/page_security/policies`, {
        description: `another team's ${action} policy of h${i}`,
        action,
        expression: `http.host eq "h${i}.example.com"`,
        enabled: 'true',
        value,
      });
      if (reply.status !== 200) throw new Error(`policy create failed: ${JSON.stringify(reply.body).slice(0, 300)}`);
    }
  }
}

/** The folder the policy pack runs in: its process is the one whose working folder this is. */
const PACK_DIR = path.dirname(POLICY_PACK);

/**
 * The peak RSS (`VmHWM`, KiB) of the process running the policy pack while `operation` runs, and
 * the CPU it and its read ahead's child process (`provider/impact/read-ahead-child.ts`) had used
 * (user and system, ms) at the last look before they ended: the review's work, which a ratio of
 * wall times on a shared machine hides in its spread. The processes are scanned until the pack's is
 * found, then only its status and its children's are read: scanning every process every 50 ms cost
 * the benchmark's own process CPU during the previews with the pack alone.
 */
export async function packUsage<T>(operation: () => Promise<T>): Promise<{ value: T; peakKiB: number; cpuMs: number }> {
  let peakKiB = 0;
  let pack: string | undefined;
  /** The CPU of the pack and its children, by process, at the last look. */
  const used = new Map<string, number>();
  const ticksPerMs = 100 / 1000; // USER_HZ, 100 on Linux
  const cpu = (pid: string): number | undefined => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
    } catch {
      return undefined; // the process has ended
    }
  };
  const hwm = (pid: string): number | undefined => {
    try {
      const kib = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      return kib === undefined ? undefined : Number(kib);
    } catch {
      return undefined; // the process has ended
    }
  };
  const children = (pid: string): string[] => {
    try {
      return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
    } catch {
      return [];
    }
  };
  const sample = () => {
    if (pack === undefined) {
      for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
        try {
          // The pack, not its child, which has the same folder.
          if (
            fs.readlinkSync(`/proc/${pid}/cwd`) === PACK_DIR &&
            !fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('read-ahead-child')
          )
            pack = pid;
        } catch {
          // the process ended between the listing and the read
        }
      }
    }
    if (pack !== undefined) {
      peakKiB = Math.max(peakKiB, hwm(pack) ?? 0);
      for (const pid of [pack, ...children(pack)]) used.set(pid, Math.max(used.get(pid) ?? 0, cpu(pid) ?? 0));
    }
  };
  const timer = setInterval(sample, 50);
  try {
    const value = await operation();
    sample();
    return { value, peakKiB, cpuMs: [...used.values()].reduce((sum, ms) => sum + ms, 0) };
  } finally {
    clearInterval(timer);
  }
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
export const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
export const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;

interface SizeFigures {
  size: ZoneSize;
  withoutMs: number[];
  withMs: number[];
  requests: number[];
  bound: number;
  made: number;
  plan: string;
  peakKiB: number[];
  /** The pack's CPU in each preview with it (`packUsage`). */
  packCpuMs: number[];
  /** The child's most heap kept alive, its peak RSS, and how long its read and judgement took; the same with a read ahead. */
  retained: { heapBytes: number; rssKiB: number; ms: number; aheadHeapBytes: number; aheadMs: number };
}

/** `50000 scripts + 50000 connections`. */
const sizeText = (size: ZoneSize) =>
  `${size.scripts} scripts${size.connections > 0 ? ` + ${size.connections} connections` : ''}`;

async function reviewSize(size: ZoneSize, policies: number, rounds: number): Promise<SizeFigures> {
  return withEmulator(false, async (emulator) => {
    const seedStarted = performance.now();
    await seedDetected(emulator, size, policies);
    await seedOtherPolicies(emulator, policies);
    const seedMs = performance.now() - seedStarted;
    const bench: BenchStack = await benchStack('csp-review', emulator.baseUrl, {
      zoneId: ZONE,
      count: String(policies),
      variant: 'before',
    });
    const headers = 1 + OTHER_TEAMS_POLICIES.length;
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-bench-review-'));
    try {
      await bench.up();
      const baseline = path.join(scratch, 'baseline.json');
      fs.writeFileSync(baseline, JSON.stringify(await bench.stack.exportStack()));
      const output = path.join(scratch, 'review.json');
      const workspace = bench.stack.workspace;
      workspace.envVars = { ...workspace.envVars, [REVIEW_BASELINE_ENV]: baseline, [REVIEW_OUTPUT_ENV]: output };
      await bench.stack.setConfig('edgeguard-bench-csp-review:variant', { value: 'after' });

      const figures: SizeFigures = {
        size,
        withoutMs: [],
        withMs: [],
        requests: [],
        bound: 0,
        made: 0,
        plan: '',
        peakKiB: [],
        packCpuMs: [],
        retained: { heapBytes: 0, rssKiB: 0, ms: 0, aheadHeapBytes: 0, aheadMs: 0 },
      };
      for (let round = 0; round < rounds; round++) {
        let started = performance.now();
        const plain = await bench.stack.preview({ parallel: PARALLEL });
        figures.withoutMs.push(performance.now() - started);
        if (plain.changeSummary.update !== policies)
          throw new Error(`the preview should update ${policies} policies: ${JSON.stringify(plain.changeSummary)}`);

        fs.rmSync(output, { force: true });
        const mark = emulator.log.last;
        started = performance.now();
        const { peakKiB, cpuMs } = await packUsage(() =>
          bench.stack.preview({ parallel: PARALLEL, policyPacks: [POLICY_PACK] }),
        );
        figures.withMs.push(performance.now() - started);
        figures.peakKiB.push(peakKiB);
        figures.packCpuMs.push(cpuMs);
        figures.requests.push(emulator.log.since(mark).length);
        const reviewed = JSON.parse(fs.readFileSync(output, 'utf8')) as PackOutput;
        if (reviewed.error !== undefined) throw new Error(`the review failed: ${reviewed.error}`);
        if (reviewed.review?.policies.length !== policies)
          throw new Error(`the pack reviewed ${reviewed.review?.policies.length} policies, not ${policies}`);
        const fewer = reviewed.review.policies.find((policy) => policy.hostHeaders.length !== headers);
        if (fewer !== undefined)
          throw new Error(
            `${fewer.name} was judged with ${fewer.hostHeaders.length} headers of its host, not ${headers}`,
          );
        figures.bound = reviewed.review.requests.bound;
        figures.made = reviewed.review.requests.made;
        figures.plan = reviewed.review.requests.plan;
      }
      // Not execFileSync: the emulator answering the child runs in this process's event loop.
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          '--expose-gc',
          path.join(__dirname, 'review-child.js'),
          emulator.baseUrl,
          TOKEN,
          ZONE,
          String(policies),
          baseline,
        ],
        { encoding: 'utf8' },
      );
      const child = JSON.parse(stdout) as {
        retainedPeakBytes: number;
        maxRssKiB: number;
        requests: number;
        hostHeaders: number[];
        ms: number;
        readAhead: { ms: number; requests: number; retainedPeakBytes: number };
      };
      for (const made of [child.requests, child.readAhead.requests])
        if (made !== figures.made) throw new Error(`the child made ${made} requests, not ${figures.made}`);
      if (child.hostHeaders.join() !== String(headers))
        throw new Error(`the child judged with ${child.hostHeaders.join(' or ')} headers per host, not ${headers}`);
      figures.retained = {
        heapBytes: child.retainedPeakBytes,
        rssKiB: child.maxRssKiB,
        ms: child.ms,
        aheadHeapBytes: child.readAhead.retainedPeakBytes,
        aheadMs: child.readAhead.ms,
      };
      console.log(
        `review, ${sizeText(size)}, ${policies} changed policies (seeded in ${seconds(seedMs)}): requests ${figures.requests.join(', ')} ` +
          `(the pack counted ${figures.made}; bound ${figures.bound}: ${figures.plan}); ` +
          `preview without the pack ${figures.withoutMs.map(seconds).join(', ')}, with it ${figures.withMs.map(seconds).join(', ')}: ` +
          `ratio of medians ${(median(figures.withMs) / median(figures.withoutMs)).toFixed(2)}; pack peak RSS ${figures.peakKiB.map(mib).join(', ')}; pack CPU, its child included, ${figures.packCpuMs.map(seconds).join(', ')}; ` +
          `the same read in a child with a full GC every 50 ms: ${seconds(figures.retained.ms)}, heap kept ${mib(figures.retained.heapBytes / 1024)}, peak RSS ${mib(figures.retained.rssKiB)}; ` +
          `read ahead, then judged: ${seconds(figures.retained.aheadMs)}, heap kept ${mib(figures.retained.aheadHeapBytes / 1024)}`,
      );
      return figures;
    } finally {
      await bench.dispose();
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
}

/** The review benchmark at each size, and its verdicts against issue 9's targets. */
export async function reviewBenchmarks(options: ReviewBenchOptions = {}): Promise<void> {
  const sizes = options.sizes ?? [
    { scripts: 5_000, connections: 5_000 },
    { scripts: 50_000, connections: 0 },
    { scripts: 50_000, connections: 50_000 },
  ];
  const policies = options.policies ?? 20;
  const rounds = options.rounds ?? 3;
  const results: SizeFigures[] = [];
  for (const size of sizes) results.push(await reviewSize(size, policies, rounds));
  for (const figures of results) {
    const ratio = median(figures.withMs) / median(figures.withoutMs);
    const within = figures.requests.every((count) => count <= figures.bound);
    console.log(
      `review, ${sizeText(figures.size)}: requests ${Math.max(...figures.requests)} <= bound ${figures.bound}: ${within ? 'met' : 'MISSED'}; ` +
        `time ${ratio.toFixed(2)}x the preview without the pack (target <= 1.3): ${ratio <= 1.3 ? 'met' : 'missed'}`,
    );
  }
  if (results.length > 1) {
    const first = results[0]!;
    const last = results[results.length - 1]!;
    const growth = (a: number, b: number) => `${((b / a - 1) * 100).toFixed(0)}%`;
    const items = (size: ZoneSize) => size.scripts + size.connections;
    console.log(
      `review memory, ${sizeText(first.size)} -> ${sizeText(last.size)} (${(items(last.size) / items(first.size)).toFixed(0)}x; pages of 1,000): ` +
        `heap kept ${mib(first.retained.heapBytes / 1024)} -> ${mib(last.retained.heapBytes / 1024)} (${growth(first.retained.heapBytes, last.retained.heapBytes)}), ` +
        `read ahead ${mib(first.retained.aheadHeapBytes / 1024)} -> ${mib(last.retained.aheadHeapBytes / 1024)} (${growth(first.retained.aheadHeapBytes, last.retained.aheadHeapBytes)}); ` +
        `pack peak RSS ${mib(median(first.peakKiB))} -> ${mib(median(last.peakKiB))} (${growth(median(first.peakKiB), median(last.peakKiB))}), garbage not yet collected included`,
    );
  }
}
