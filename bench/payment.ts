import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { EmulatorOptions } from '../emulator/app';
import type { LoggedRequest } from '../emulator/core/request-log';
import type { RunningEmulator } from '../emulator/server';
import { REVIEW_OUTPUT_ENV, type PackOutput } from '../provider/review/pack-analysis';
import { REVIEW_BASELINE_ENV } from '../provider/review/pack-input';
import { POLICY_PACK } from '../provider/review/review-stack';
import { requestBound } from '../provider/payment/scripts';
import { call, TOKEN, withEmulator, ZONE } from './common';
import { benchStack, PARALLEL, type BenchStack } from './engine';
import { median, mib, packUsage, seconds } from './review';

/**
 * Payment-page scripts (issues 25 and 30): the review of a `ScriptInventory`, `edgeguard-audit` and
 * a `pulumi refresh` on zones of growing size. The checkout's payment pages
 * (`checkout.example.com/pay`) always hold the same 60 scripts (bench/projects/payment-pages: 50
 * pinned vendor scripts, 10 of the checkout's own under a prefix); the zone's other scripts sit on
 * the checkout host's other pages (`share` of them, its own code under the same prefix, as the
 * enforcing policy covers every page of the host) and on twenty other hosts. The reading lists the
 * payment pages alone (`page_url`) and reads a script only when its listed hash is not the pinned
 * one (provider/payment/scripts.ts): the requests must not grow with the zone.
 *
 * Per zone, on a fresh in-memory emulator, after `pulumi up` of the project and a new version of
 * one pinned script:
 * - `edgeguard-audit --json` (the built command, as a weekly job runs it): its time, its requests
 *   (the emulator's log) against `requestBound` plus the policy list, its peak RSS;
 * - `pulumi refresh`: its time, the inventory's requests (those of the scripts) against
 *   `requestBound`, and its other requests (the CSP policy's read);
 * - the reading alone (`readPaymentScripts`) in a child with a full GC every 50 ms
 *   (bench/payment-child.ts): the heap it keeps, told apart from garbage V8 has not collected yet;
 * - the review of the change that re-pins that script: `pulumi preview` with the policy pack against
 *   the same preview without it, alternated, `rounds` times each (medians); the pack's requests,
 *   the inventory's among them (its listings and reads) against the bound the pack states for it;
 *   its peak RSS;
 * - the nightly set of 20 such zones (a review, an audit and a refresh each): the requests, the
 *   time the vendor's limit imposes on them (1,200 requests per 5 minutes per credential), and the
 *   time measured.
 */

/** A zone's size: its scripts, and the share of them on the checkout host's other pages. */
export interface PaymentZone {
  scripts: number;
  share: number;
}

/**
 * The benchmark's emulator: the API rate limit (contract, "API rate limit") off, so that the time
 * measured is the work's; the time the limit imposes is computed from the requests counted.
 */
const EMULATOR_OPTIONS: EmulatorOptions = { apiRateLimit: 'off' };

const PAGE = 'https://checkout.example.com/pay';
/** The pinned scripts of the payment pages, and the checkout's own there. */
export const PINNED = 50;
const OWN = 10;
const SEED_CHUNK = 10_000;
/** The nightly set of zones, each reviewed, audited and refreshed. */
const NIGHTLY_ZONES = 20;
/** The vendor's limit: requests per window per credential (contract, "API rate limit"). */
export const API_LIMIT = { requests: 1200, seconds: 300 };
/** Kept equal to bench/projects/payment-pages's `vendorScript` and `NEW_HASH`. */
const vendorScript = (i: number) => `https://vendor${i % 5}.example.net/pay/v${i}.js`;
const NEW_HASH = 'b'.repeat(64);

function scriptsOf(zone: PaymentZone): Array<Record<string, unknown>> {
  const onPage = [
    ...Array.from({ length: PINNED }, (_, i) => vendorScript(i)),
    ...Array.from({ length: OWN }, (_, i) => `https://checkout.example.com/js/m${i}.js`),
  ].map((url) => ({ zone_id: ZONE, url, page_urls: [PAGE] }));
  const others = zone.scripts - onPage.length;
  const onHost = Math.round(others * zone.share);
  return [
    ...onPage,
    // The checkout host's other pages load its own code (allowed by the inventory's prefix: the
    // enforcing policy covers every page of the host); the other hosts, CDN scripts.
    ...Array.from({ length: others }, (_, i) => ({
      zone_id: ZONE,
      url:
        i < onHost ? `https://checkout.example.com/js/lib/s-${i}.js` : `https://cdn${i % 10}.example.net/lib/s-${i}.js`,
      page_urls: [
        i < onHost ? `https://checkout.example.com/account/${i % 500}` : `https://h${i % 20}.example.com/p/${i % 50}`,
      ],
      ...(i % 10 === 9 ? { status: 'infrequent' } : {}),
    })),
  ];
}

/** Seeds `zone`'s scripts through the control API (which the API limit does not count). */
export async function seed(emulator: RunningEmulator, zone: PaymentZone): Promise<void> {
  const all = scriptsOf(zone);
  for (let offset = 0; offset < all.length; offset += SEED_CHUNK) {
    const reply = await call('POST', `${emulator.controlUrl}/seed`, {
      scripts: all.slice(offset, offset + SEED_CHUNK),
    });
    if (reply.status !== 200) throw new Error(`seed failed: ${JSON.stringify(reply.body).slice(0, 300)}`);
  }
}

/**
 * A new version of the first pinned script: the audit finds it changed, the change re-pins it.
 * `segment` is the dialect's path of page security (`PAGE_SECURITY_SEGMENT`).
 */
export async function newPinnedVersion(emulator: RunningEmulator, segment = 'page_security'): Promise<void> {
  const listed = await call(
    'GET',
    `${emulator.baseUrl}/zones/${ZONE}/${segment}/scripts?urls=${encodeURIComponent(vendorScript(0))}`,
  );
  const first = (listed.body.result as unknown as Array<{ id: string; url: string }>).find(
    (script) => script.url === vendorScript(0),
  );
  if (first === undefined) throw new Error('the first vendor script was not listed');
  const posted = await call('POST', `${emulator.controlUrl}/zones/${ZONE}/page_security/scripts/${first.id}/versions`, {
    hash: NEW_HASH,
  });
  if (posted.status !== 200) throw new Error(`new version failed: ${JSON.stringify(posted.body)}`);
}

/** The requests of the payment pages' reading: its listings (with `page_url`) and its single-script reads. */
function inventoryRequests(log: readonly LoggedRequest[]): number {
  return log.filter((request) =>
    /\/page_security\/scripts$/.test(request.path)
      ? request.query.page_url !== undefined
      : /\/page_security\/scripts\/\w+$/.test(request.path),
  ).length;
}

interface ZoneFigures {
  zone: PaymentZone;
  /** The bound of the reading for this zone: the 60 scripts on the pages, the changed one read. */
  bound: number;
  audit: { ms: number; requests: number; rssKiB: number; exit: number; scripts: number };
  refresh: { ms: number; inventory: number; other: number };
  review: {
    withoutMs: number[];
    withMs: number[];
    requests: number[];
    inventory: number[];
    bound: number;
    inventoryTerm: string;
    peakKiB: number[];
    /** The pack's CPU in each review (`packUsage`). */
    packCpuMs: number[];
  };
  /** The reading alone in a child with a full GC every 50 ms: the heap it kept, its peak RSS, its time. */
  retained: { heapBytes: number; rssKiB: number; ms: number };
}

/** A zone's size in words. */
export const zoneText = (zone: PaymentZone) =>
  `${zone.scripts} scripts (${Math.round(zone.share * 100)}% of the others on the checkout host)`;

/**
 * `run` on a fresh emulator (`options`) seeded with `zone`, and a stack of bench/projects/payment-pages
 * on it (with `env` beside the stack's own), with a scratch folder; both removed after.
 */
export async function withPaymentStack<T>(
  zone: PaymentZone,
  options: EmulatorOptions,
  env: Record<string, string>,
  run: (emulator: RunningEmulator, bench: BenchStack, scratch: string) => Promise<T>,
): Promise<T> {
  return withEmulator(
    false,
    async (emulator) => {
      await seed(emulator, zone);
      const bench = await benchStack('payment-pages', emulator.baseUrl, { zoneId: ZONE, pinned: String(PINNED) });
      bench.stack.workspace.envVars = { ...bench.stack.workspace.envVars, ...env };
      const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-bench-payment-'));
      try {
        return await run(emulator, bench, scratch);
      } finally {
        await bench.dispose();
        fs.rmSync(scratch, { recursive: true, force: true });
      }
    },
    options,
  );
}

async function paymentZone(zone: PaymentZone, rounds: number): Promise<ZoneFigures> {
  return withPaymentStack(zone, EMULATOR_OPTIONS, {}, async (emulator, bench, scratch) => {
    await bench.up();
    await newPinnedVersion(emulator);
    // The 60 scripts of the pages listed in each status, the changed one read for its versions.
    const bound = requestBound(PINNED + OWN, 1);

    // The audit, as a weekly job runs it.
    const env = { ...process.env, ...bench.stack.workspace.envVars };
    const rssFile = path.join(scratch, 'rss');
    const json = path.join(scratch, 'audit.json');
    let mark = emulator.log.last;
    let started = performance.now();
    let exit = 0;
    try {
      await promisify(execFile)(
        process.execPath,
        [
          '--require',
          path.join(__dirname, 'max-rss.js'),
          path.join(__dirname, '..', 'provider', 'cli', 'audit.js'),
          '--cwd',
          bench.stack.workspace.workDir,
          '--stack',
          bench.stack.name,
          '--json',
          json,
        ],
        { env: { ...env, EDGEGUARD_BENCH_RSS_FILE: rssFile }, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 },
      );
    } catch (error) {
      exit = (error as { code?: number }).code ?? -1;
      if (exit !== 1) throw error;
    }
    const auditMs = performance.now() - started;
    const auditRequests = emulator.log.since(mark).length;
    const evidence = JSON.parse(fs.readFileSync(json, 'utf8')) as unknown;
    const auditScripts = countScripts(evidence);

    // The review of the change that re-pins the script, on the state before the refresh.
    const baseline = path.join(scratch, 'baseline.json');
    fs.writeFileSync(baseline, JSON.stringify(await bench.stack.exportStack()));

    // A refresh: the inventory reads what is detected on its pages again.
    mark = emulator.log.last;
    started = performance.now();
    await bench.stack.refresh({ parallel: PARALLEL });
    const refreshMs = performance.now() - started;
    const refreshLog = emulator.log.since(mark);
    const refresh = {
      ms: refreshMs,
      inventory: inventoryRequests(refreshLog),
      other: refreshLog.length - inventoryRequests(refreshLog),
    };

    const output = path.join(scratch, 'review.json');
    const workspace = bench.stack.workspace;
    workspace.envVars = { ...workspace.envVars, [REVIEW_BASELINE_ENV]: baseline, [REVIEW_OUTPUT_ENV]: output };
    await bench.stack.setConfig('edgeguard-bench-payment-pages:variant', { value: 'after' });
    const review: ZoneFigures['review'] = {
      withoutMs: [],
      withMs: [],
      requests: [],
      inventory: [],
      bound: 0,
      inventoryTerm: '',
      peakKiB: [],
      packCpuMs: [],
    };
    // Once unmeasured: the first preview after the config change compiles the program anew.
    await bench.stack.preview({ parallel: PARALLEL });
    for (let round = 0; round < rounds; round++) {
      started = performance.now();
      await bench.stack.preview({ parallel: PARALLEL });
      review.withoutMs.push(performance.now() - started);
      fs.rmSync(output, { force: true });
      mark = emulator.log.last;
      started = performance.now();
      const { peakKiB, cpuMs } = await packUsage(() =>
        bench.stack.preview({ parallel: PARALLEL, policyPacks: [POLICY_PACK] }),
      );
      review.withMs.push(performance.now() - started);
      review.peakKiB.push(peakKiB);
      review.packCpuMs.push(cpuMs);
      const served = emulator.log.since(mark);
      review.requests.push(served.length);
      review.inventory.push(inventoryRequests(served));
      const reviewed = JSON.parse(fs.readFileSync(output, 'utf8')) as PackOutput;
      if (reviewed.error !== undefined) throw new Error(`the review failed: ${reviewed.error}`);
      const mandatory = reviewed.violations.filter((violation) => violation.policy.startsWith('payment-script-'));
      if (mandatory.length > 0) throw new Error(`the re-pin should pass: ${JSON.stringify(mandatory).slice(0, 500)}`);
      review.bound = reviewed.review?.requests.bound ?? 0;
      review.inventoryTerm =
        reviewed.review?.requests.plan.split('; ').find((term) => term.startsWith('inventory ')) ?? '';
    }
    // Not execFileSync: the emulator answering the child runs in this process's event loop.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', path.join(__dirname, 'payment-child.js'), emulator.baseUrl, TOKEN, ZONE, baseline],
      { encoding: 'utf8' },
    );
    const child = JSON.parse(stdout) as {
      scripts: number;
      ms: number;
      retainedPeakBytes: number;
      maxRssKiB: number;
    };
    if (child.scripts !== PINNED + OWN) throw new Error(`the child read ${child.scripts} scripts, not ${PINNED + OWN}`);
    const rssKiB = Number(fs.readFileSync(rssFile, 'utf8'));
    const figures: ZoneFigures = {
      zone,
      bound,
      audit: { ms: auditMs, requests: auditRequests, rssKiB, exit, scripts: auditScripts },
      refresh,
      review,
      retained: { heapBytes: child.retainedPeakBytes, rssKiB: child.maxRssKiB, ms: child.ms },
    };
    console.log(
      `payment pages, ${zoneText(zone)}: the reading's bound ${bound}; ` +
        `audit ${seconds(auditMs)} (exit ${exit}, ${auditScripts} scripts in the evidence), ${auditRequests} requests (bound ${bound} + 1 policy list), peak RSS ${mib(rssKiB)}; ` +
        `refresh ${seconds(refresh.ms)}, the inventory's requests ${refresh.inventory} (bound ${bound}), others ${refresh.other}; ` +
        `review of a re-pin: preview without the pack ${review.withoutMs.map(seconds).join(', ')}, with it ${review.withMs.map(seconds).join(', ')}: ` +
        `ratio of medians ${(median(review.withMs) / median(review.withoutMs)).toFixed(2)}; requests ${review.requests.join(', ')} (bound ${review.bound}), ` +
        `the inventory's ${review.inventory.join(', ')} (${review.inventoryTerm}); pack peak RSS ${review.peakKiB.map(mib).join(', ')}; pack CPU, its child included, ${review.packCpuMs.map(seconds).join(', ')}; ` +
        `the reading in a child with a full GC every 50 ms: ${seconds(child.ms)}, heap kept ${mib(child.retainedPeakBytes / 1024)}, peak RSS ${mib(child.maxRssKiB)}`,
    );
    return figures;
  });
}

/** The scripts the audit's JSON holds, wherever its shape keeps them: every object with a `url` and an `integrity`. */
function countScripts(value: unknown): number {
  const seen = new Set<string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      if (typeof record.url === 'string' && typeof record.integrity === 'string') seen.add(record.url);
      Object.values(record).forEach(walk);
    }
  };
  walk(value);
  return seen.size;
}

const verdict = (met: boolean) => (met ? 'met' : 'MISSED');

/** The payment-page benchmark at each zone, and its verdicts: requests within the bounds and the targets, time against a preview. */
export async function paymentBenchmarks(options: { zones?: PaymentZone[]; rounds?: number } = {}): Promise<void> {
  const zones = options.zones ?? [
    { scripts: 5_000, share: 1 },
    { scripts: 50_000, share: 1 },
    { scripts: 200_000, share: 1 },
  ];
  const rounds = options.rounds ?? 3;
  const results: ZoneFigures[] = [];
  for (const zone of zones) results.push(await paymentZone(zone, rounds));
  for (const figures of results) {
    const { review, audit, refresh, bound } = figures;
    const ratio = median(review.withMs) / median(review.withoutMs);
    const reviewInventory = Math.max(...review.inventory);
    console.log(
      `payment pages, ${zoneText(figures.zone)}: ` +
        `review requests ${Math.max(...review.requests)} <= ${review.bound}: ${verdict(review.requests.every((count) => count <= review.bound))}; ` +
        `the inventory's ${reviewInventory} <= ${bound} and <= 10: ${verdict(reviewInventory <= bound && reviewInventory <= 10)}; ` +
        `review time ${ratio.toFixed(2)}x a plain preview <= 1.3: ${verdict(ratio <= 1.3)}; ` +
        `audit requests ${audit.requests} <= ${bound + 1} and <= 10: ${verdict(audit.requests <= bound + 1 && audit.requests <= 10)}; ` +
        `refresh, the inventory's requests ${refresh.inventory} <= ${bound}: ${verdict(refresh.inventory <= bound)}; ` +
        `the evidence holds the ${audit.scripts} scripts of the payment pages (expected ${PINNED + OWN}): ${verdict(audit.scripts === PINNED + OWN)}`,
    );
    // A nightly review, audit and refresh of each of 20 such zones, with one credential.
    const requests =
      NIGHTLY_ZONES * (Math.max(...review.requests) + audit.requests + refresh.inventory + refresh.other);
    const limitSeconds = (requests / API_LIMIT.requests) * API_LIMIT.seconds;
    const measuredSeconds = (NIGHTLY_ZONES * (median(review.withMs) + audit.ms + refresh.ms)) / 1000;
    console.log(
      `payment pages, nightly set of ${NIGHTLY_ZONES} zones of ${zoneText(figures.zone)}: ${requests} requests; ` +
        `at ${API_LIMIT.requests} per ${API_LIMIT.seconds / 60} minutes they take at least ${seconds(limitSeconds * 1000)} ` +
        `(${requests <= API_LIMIT.requests ? 'within one window: the limit imposes no wait' : `${Math.ceil(requests / API_LIMIT.requests)} windows`}); ` +
        `measured without the limit ${seconds(measuredSeconds * 1000)}`,
    );
  }
  if (results.length > 1) {
    const first = results[0]!;
    const growth = (a: number, b: number) => `${((b / a - 1) * 100).toFixed(0)}%`;
    for (const last of results.slice(1)) {
      console.log(
        `payment pages memory, ${zoneText(first.zone)} -> ${zoneText(last.zone)}: ` +
          `the reading's heap kept ${mib(first.retained.heapBytes / 1024)} -> ${mib(last.retained.heapBytes / 1024)} (${growth(first.retained.heapBytes, last.retained.heapBytes)}); ` +
          `audit peak RSS ${mib(first.audit.rssKiB)} -> ${mib(last.audit.rssKiB)}, ` +
          `pack peak RSS ${mib(median(first.review.peakKiB))} -> ${mib(median(last.review.peakKiB))}`,
      );
    }
  }
}
