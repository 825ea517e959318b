import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import type { RunningEmulator } from '../emulator/server';
import { DETECTED_STATUSES } from '../provider/client/detected-statuses';
import { mapLimited } from '../provider/client/map-limited';
import { REVIEW_OUTPUT_ENV, type PackOutput } from '../provider/review/pack-analysis';
import { REVIEW_BASELINE_ENV } from '../provider/review/pack-input';
import { POLICY_PACK } from '../provider/review/review-stack';
import { PARALLEL_READS, PER_PAGE, requestBound } from '../provider/payment/scripts';
import { call, TOKEN, withEmulator, ZONE } from './common';
import { benchStack, PARALLEL } from './engine';
import { median, mib, packPeakRss, seconds } from './review';

/**
 * Payment-page scripts (issue 25): `edgeguard-audit` and the review of a `ScriptInventory` on zones
 * of growing size. The checkout's payment pages (`checkout.example.com/pay`) always hold the same 60
 * scripts (bench/projects/payment-pages: 50 pinned vendor scripts, 10 of the checkout's own under a
 * prefix); the zone's other scripts sit on the checkout host's other pages (`share` of them, its own
 * code under the same prefix, as the enforcing policy covers every page of the host) and on twenty
 * other hosts. Page security's list filters by host, not by page, so every script of the
 * checkout host is read once for the pages it was seen on (provider/payment/scripts.ts): the
 * requests grow with the host's scripts, the memory must not.
 *
 * Per zone, on a fresh in-memory emulator, after `pulumi up` of the project and a new version of
 * one pinned script:
 * - `edgeguard-audit --json` (the built command, as a weekly job runs it): its time, its requests
 *   (the emulator's log) against `requestBound` plus the policy list, its peak RSS; and the same
 *   requests made by a bare loop (list pages, then one GET per script, 8 at a time, nothing parsed
 *   or judged) in this process: the audit's time as a ratio to that floor.
 * - the reading alone (`readPaymentScripts`) in a child with a full GC every 50 ms
 *   (bench/payment-child.ts): the heap it keeps, which must not grow with the host's scripts, told
 *   apart from garbage V8 has not collected yet, which the peak RSS of the audit and the pack include;
 * - the review of the change that re-pins that script: `pulumi preview` with the policy pack against
 *   the same preview without it, alternated, `rounds` times each (medians); the pack's requests and
 *   the bound it states; its peak RSS.
 */

/** A zone's size: its scripts, and the share of them on the checkout host's other pages. */
export interface PaymentZone {
  scripts: number;
  share: number;
}

const PAGE = 'https://checkout.example.com/pay';
const PINNED = 50;
const OWN = 10;
const SEED_CHUNK = 10_000;
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

async function seed(emulator: RunningEmulator, zone: PaymentZone): Promise<void> {
  const all = scriptsOf(zone);
  for (let offset = 0; offset < all.length; offset += SEED_CHUNK) {
    const reply = await call('POST', `${emulator.controlUrl}/seed`, {
      scripts: all.slice(offset, offset + SEED_CHUNK),
    });
    if (reply.status !== 200) throw new Error(`seed failed: ${JSON.stringify(reply.body).slice(0, 300)}`);
  }
}

/** The same requests the reading makes, with nothing parsed or judged: the floor of its time. */
async function bareReading(baseUrl: string): Promise<{ ms: number; requests: number; listed: number }> {
  const dispatcher = new Agent({ connections: PARALLEL_READS });
  const get = async (url: string) => {
    const response = await request(url, { dispatcher, headers: { authorization: `Bearer ${TOKEN}` } });
    return (await response.body.json()) as { result: Array<{ id: string }>; result_info?: { total_pages: number } };
  };
  const started = performance.now();
  let requests = 0;
  let listed = 0;
  for (const status of DETECTED_STATUSES) {
    for (let page = 1; ; page++) {
      const body = await get(
        `${baseUrl}/zones/${ZONE}/page_security/scripts?hosts=checkout.example.com&status=${status}&per_page=${PER_PAGE}&page=${page}`,
      );
      requests++;
      listed += body.result.length;
      await mapLimited(body.result, PARALLEL_READS, async (script) => {
        await get(`${baseUrl}/zones/${ZONE}/page_security/scripts/${script.id}`);
        requests++;
      });
      if (page >= (body.result_info?.total_pages ?? 1)) break;
    }
  }
  const ms = performance.now() - started;
  await dispatcher.close();
  return { ms, requests, listed };
}

interface ZoneFigures {
  zone: PaymentZone;
  listed: number;
  audit: { ms: number; requests: number; bound: number; rssKiB: number; exit: number; scripts: number };
  bare: { ms: number; requests: number };
  review: { withoutMs: number[]; withMs: number[]; requests: number[]; bound: number; peakKiB: number[] };
  /** The reading alone in a child with a full GC every 50 ms: the heap it kept, its peak RSS, its time. */
  retained: { heapBytes: number; rssKiB: number; ms: number };
}

const zoneText = (zone: PaymentZone) =>
  `${zone.scripts} scripts (${Math.round(zone.share * 100)}% of the others on the checkout host)`;

async function paymentZone(zone: PaymentZone, rounds: number): Promise<ZoneFigures> {
  return withEmulator(false, async (emulator) => {
    await seed(emulator, zone);
    const bench = await benchStack('payment-pages', emulator.baseUrl, { zoneId: ZONE, pinned: String(PINNED) });
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-bench-payment-'));
    try {
      await bench.up();
      // A new version of the first pinned script: the audit finds it changed, the change re-pins it.
      let first: { id: string; url: string } | undefined;
      for (let page = 1; first === undefined; page++) {
        const listed = await call(
          'GET',
          `${emulator.baseUrl}/zones/${ZONE}/page_security/scripts?hosts=checkout.example.com&per_page=1000&page=${page}`,
        );
        const scripts = listed.body.result as unknown as Array<{ id: string; url: string }>;
        first = scripts.find((script) => script.url === vendorScript(0));
        if (first === undefined && page >= listed.body.result_info.total_pages)
          throw new Error('the first vendor script was not listed');
      }
      const posted = await call(
        'POST',
        `${emulator.controlUrl}/zones/${ZONE}/page_security/scripts/${first.id}/versions`,
        {
          hash: NEW_HASH,
        },
      );
      if (posted.status !== 200) throw new Error(`new version failed: ${JSON.stringify(posted.body)}`);

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
            path.join(__dirname, '..', 'provider', 'audit', 'cli.js'),
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
      const hostScripts = Math.round((zone.scripts - PINNED - OWN) * zone.share) + PINNED + OWN;
      const bare = await bareReading(emulator.baseUrl);
      if (bare.listed !== hostScripts)
        throw new Error(`the checkout host lists ${bare.listed} scripts, not ${hostScripts}`);

      // The review of the change that re-pins the script.
      const baseline = path.join(scratch, 'baseline.json');
      fs.writeFileSync(baseline, JSON.stringify(await bench.stack.exportStack()));
      const output = path.join(scratch, 'review.json');
      const workspace = bench.stack.workspace;
      workspace.envVars = { ...workspace.envVars, [REVIEW_BASELINE_ENV]: baseline, [REVIEW_OUTPUT_ENV]: output };
      await bench.stack.setConfig('edgeguard-bench-payment-pages:variant', { value: 'after' });
      const review: ZoneFigures['review'] = { withoutMs: [], withMs: [], requests: [], bound: 0, peakKiB: [] };
      // Once unmeasured: the first preview after the config change compiles the program anew.
      await bench.stack.preview({ parallel: PARALLEL });
      for (let round = 0; round < rounds; round++) {
        started = performance.now();
        await bench.stack.preview({ parallel: PARALLEL });
        review.withoutMs.push(performance.now() - started);
        fs.rmSync(output, { force: true });
        mark = emulator.log.last;
        started = performance.now();
        const { peakKiB } = await packPeakRss(() =>
          bench.stack.preview({ parallel: PARALLEL, policyPacks: [POLICY_PACK] }),
        );
        review.withMs.push(performance.now() - started);
        review.peakKiB.push(peakKiB);
        review.requests.push(emulator.log.since(mark).length);
        const reviewed = JSON.parse(fs.readFileSync(output, 'utf8')) as PackOutput;
        if (reviewed.error !== undefined) throw new Error(`the review failed: ${reviewed.error}`);
        const mandatory = reviewed.violations.filter((violation) => violation.policy.startsWith('payment-script-'));
        if (mandatory.length > 0) throw new Error(`the re-pin should pass: ${JSON.stringify(mandatory).slice(0, 500)}`);
        review.bound = reviewed.review?.requests.bound ?? 0;
      }
      // Not execFileSync: the emulator answering the child runs in this process's event loop.
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--expose-gc', path.join(__dirname, 'payment-child.js'), emulator.baseUrl, TOKEN, ZONE, baseline],
        { encoding: 'utf8' },
      );
      const child = JSON.parse(stdout) as { scripts: number; ms: number; retainedPeakBytes: number; maxRssKiB: number };
      if (child.scripts !== PINNED + OWN)
        throw new Error(`the child read ${child.scripts} scripts, not ${PINNED + OWN}`);
      const rssKiB = Number(fs.readFileSync(rssFile, 'utf8'));
      const figures: ZoneFigures = {
        zone,
        listed: hostScripts,
        audit: {
          ms: auditMs,
          requests: auditRequests,
          // The reading, and the zone's policies listed once.
          bound: requestBound(hostScripts) + 1,
          rssKiB,
          exit,
          scripts: auditScripts,
        },
        bare: { ms: bare.ms, requests: bare.requests },
        review,
        retained: { heapBytes: child.retainedPeakBytes, rssKiB: child.maxRssKiB, ms: child.ms },
      };
      console.log(
        `payment pages, ${zoneText(zone)}: the checkout host lists ${hostScripts}; ` +
          `audit ${seconds(auditMs)} (exit ${exit}, ${auditScripts} scripts in the evidence), ${auditRequests} requests (bound ${figures.audit.bound}), peak RSS ${mib(rssKiB)}; ` +
          `the bare reading ${seconds(bare.ms)} in ${bare.requests} requests: audit ${(auditMs / bare.ms).toFixed(2)}x it; ` +
          `review of a re-pin: preview without the pack ${review.withoutMs.map(seconds).join(', ')}, with it ${review.withMs.map(seconds).join(', ')}: ` +
          `ratio of medians ${(median(review.withMs) / median(review.withoutMs)).toFixed(2)}; requests ${review.requests.join(', ')} (bound ${review.bound}); pack peak RSS ${review.peakKiB.map(mib).join(', ')}; ` +
          `the reading in a child with a full GC every 50 ms: ${seconds(child.ms)}, heap kept ${mib(child.retainedPeakBytes / 1024)}, peak RSS ${mib(child.maxRssKiB)}`,
      );
      return figures;
    } finally {
      await bench.dispose();
      fs.rmSync(scratch, { recursive: true, force: true });
    }
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

/** The payment-page benchmark at each zone, and its verdicts: requests within the bounds, memory flat. */
export async function paymentBenchmarks(options: { zones?: PaymentZone[]; rounds?: number } = {}): Promise<void> {
  const zones = options.zones ?? [
    { scripts: 5_000, share: 0.1 },
    { scripts: 50_000, share: 0.1 },
    { scripts: 50_000, share: 1 },
  ];
  const rounds = options.rounds ?? 3;
  const results: ZoneFigures[] = [];
  for (const zone of zones) results.push(await paymentZone(zone, rounds));
  for (const figures of results) {
    const auditWithin = figures.audit.requests <= figures.audit.bound;
    const reviewWithin = figures.review.requests.every((count) => count <= figures.review.bound);
    console.log(
      `payment pages, ${zoneText(figures.zone)}: audit requests ${figures.audit.requests} <= ${figures.audit.bound}: ${auditWithin ? 'met' : 'MISSED'}; ` +
        `review requests ${Math.max(...figures.review.requests)} <= ${figures.review.bound}: ${reviewWithin ? 'met' : 'MISSED'}; ` +
        `the evidence holds the ${figures.audit.scripts} scripts of the payment pages (expected ${PINNED + OWN}): ${figures.audit.scripts === PINNED + OWN ? 'met' : 'MISSED'}`,
    );
  }
  if (results.length > 1) {
    const first = results[0]!;
    for (const last of results.slice(1)) {
      // The audit's start (node, the Automation API, the stack's export) does not grow with the
      // scripts: what it adds per request is compared with the bare loop's.
      const audit = last.audit.ms - first.audit.ms;
      const bare = last.bare.ms - first.bare.ms;
      const requests = last.audit.requests - first.audit.requests;
      console.log(
        `payment pages, ${zoneText(first.zone)} -> ${zoneText(last.zone)}: ${requests} more requests; the audit took ${seconds(audit)} more, ` +
          `the bare reading ${seconds(bare)} more: ${(audit / bare).toFixed(2)}x per added script`,
      );
    }
    const growth = (a: number, b: number) => `${((b / a - 1) * 100).toFixed(0)}%`;
    for (const last of results.slice(1)) {
      console.log(
        `payment pages memory, ${zoneText(first.zone)} -> ${zoneText(last.zone)} (${(last.listed / first.listed).toFixed(0)}x the host's scripts): ` +
          `the reading's heap kept ${mib(first.retained.heapBytes / 1024)} -> ${mib(last.retained.heapBytes / 1024)} (${growth(first.retained.heapBytes, last.retained.heapBytes)}), its peak RSS with a full GC every 50 ms ${mib(first.retained.rssKiB)} -> ${mib(last.retained.rssKiB)} (${growth(first.retained.rssKiB, last.retained.rssKiB)}); ` +
          `without forced GCs, garbage not yet collected included: audit peak RSS ${mib(first.audit.rssKiB)} -> ${mib(last.audit.rssKiB)} (${growth(first.audit.rssKiB, last.audit.rssKiB)}), ` +
          `pack peak RSS ${mib(median(first.review.peakKiB))} -> ${mib(median(last.review.peakKiB))} (${growth(median(first.review.peakKiB), median(last.review.peakKiB))})`,
      );
    }
  }
}
