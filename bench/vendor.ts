import * as fs from 'node:fs';
import * as path from 'node:path';
import { PAGE_SECURITY_SEGMENT } from '../rules/dialect';
import type { EmulatorOptions } from '../emulator/app';
import type { LoggedRequest } from '../emulator/core/request-log';
import { REVIEW_OUTPUT_ENV, type PackOutput } from '../provider/review/pack-analysis';
import { REVIEW_BASELINE_ENV } from '../provider/review/pack-input';
import { REVIEW_SCOPE_ENV, REVIEW_SCOPES } from '../provider/review/plan';
import { POLICY_PACK } from '../provider/review/review-stack';
import type { ReviewScope } from '../provider/impact/model';
import { call } from './common';
import { PARALLEL } from './engine';
import { API_LIMIT, newPinnedVersion, withPaymentStack, zoneText, type PaymentZone } from './payment';
import { seconds } from './review';

/**
 * The review in the vendor's dialect within the vendor's budget (issue 42, item 6): the review of a
 * re-pin (bench/payment.ts's zones and project) against an emulator that speaks `--dialect vendor`
 * (page security lists ≤ 100 a page) with the contract's API limit ON (1,200 requests per 300 s per
 * credential), the stack configured with `edgeguard:dialect` `vendor`.
 *
 * Per zone, after `pulumi up` and a new version of one pinned script, the change that re-pins it is
 * reviewed (`pulumi preview` with the policy pack, as `edgeguard-review` runs it) once in each scope
 * of `EDGEGUARD_REVIEW_SCOPE`: `full` (every list read) and `change` (a zone the change leaves as it
 * is not listed), after one preview without the pack that is not measured (the program's first
 * compile after the config change). Before each, the emulator's clock is moved past a window, so each review starts
 * with the whole budget, as a job of its own would. Printed: the requests (the emulator's log), the
 * time the limit imposes on them (the windows they need beyond the first), the time measured, the
 * 429s answered, whether the review said it waited for the limit, and whether the two scopes'
 * verdicts (every violation but `csp-change-impact`'s, which says what was not read) are equal.
 */

/** The emulator: the vendor's dialect and the contract's API limit. */
const EMULATOR_OPTIONS: EmulatorOptions = {
  dialect: 'vendor',
  apiRateLimit: { limit: API_LIMIT.requests, windowSeconds: API_LIMIT.seconds },
};

/** One review's figures. */
interface ScopeFigures {
  scope: ReviewScope;
  ms: number;
  requests: number;
  /** Answered 429 (the limit refused them). */
  refused: number;
  /** The line the review printed when it waited for the limit, if it did. */
  waitLine: string | undefined;
  bound: number;
  plan: string;
  /** The verdicts: each violation but the advisory impact's, as policy, resource and message. */
  verdicts: string[];
}

/** The time the limit imposes on `requests` sent by one credential from a fresh window: the windows they need beyond the first. */
export function imposedSeconds(requests: number): number {
  return Math.max(0, Math.ceil(requests / API_LIMIT.requests) - 1) * API_LIMIT.seconds;
}

const verdictsOf = (output: PackOutput) =>
  output.violations
    .filter((violation) => violation.policy !== 'csp-change-impact')
    .map((violation) => `${violation.policy} ${violation.urn ?? ''} ${violation.message}`)
    .sort();

async function vendorZone(zone: PaymentZone): Promise<ScopeFigures[]> {
  return withPaymentStack(zone, EMULATOR_OPTIONS, { EDGEGUARD_DIALECT: 'vendor' }, async (emulator, bench, scratch) => {
    const workspace = bench.stack.workspace;
    await bench.up();
    await newPinnedVersion(emulator, PAGE_SECURITY_SEGMENT.vendor);
    const baseline = path.join(scratch, 'baseline.json');
    fs.writeFileSync(baseline, JSON.stringify(await bench.stack.exportStack()));
    await bench.stack.setConfig('edgeguard-bench-payment-pages:variant', { value: 'after' });
    const output = path.join(scratch, 'review.json');
    // Once unmeasured, without the pack: the first preview after the config change compiles the program anew.
    await bench.stack.preview({ parallel: PARALLEL });
    const figures: ScopeFigures[] = [];
    for (const scope of [...REVIEW_SCOPES].reverse()) {
      // A fresh window: the review alone, as a job with the credential to itself.
      const moved = await call('POST', `${emulator.controlUrl}/clock`, { advance_seconds: API_LIMIT.seconds + 1 });
      if (moved.status !== 200) throw new Error(`the clock did not move: ${JSON.stringify(moved.body)}`);
      workspace.envVars = {
        ...workspace.envVars,
        [REVIEW_BASELINE_ENV]: baseline,
        [REVIEW_OUTPUT_ENV]: output,
        [REVIEW_SCOPE_ENV]: scope,
      };
      fs.rmSync(output, { force: true });
      const mark = emulator.log.last;
      const started = performance.now();
      const result = await bench.stack.preview({ parallel: PARALLEL, policyPacks: [POLICY_PACK] });
      const ms = performance.now() - started;
      const served: LoggedRequest[] = emulator.log.since(mark);
      const reviewed = JSON.parse(fs.readFileSync(output, 'utf8')) as PackOutput;
      if (reviewed.error !== undefined) throw new Error(`the review failed: ${reviewed.error}`);
      const mandatory = reviewed.violations.filter((violation) => violation.policy.startsWith('payment-script-'));
      if (mandatory.length > 0) throw new Error(`the re-pin should pass: ${JSON.stringify(mandatory).slice(0, 500)}`);
      const said = `${result.stdout}\n${result.stderr}`;
      figures.push({
        scope,
        ms,
        requests: served.length,
        refused: served.filter((request) => request.status === 429).length,
        waitLine: /edgeguard: waiting \d+ s for the service's API limit[^\n]*/.exec(said)?.[0],
        bound: reviewed.review?.requests.bound ?? 0,
        plan: reviewed.review?.requests.plan ?? '',
        verdicts: verdictsOf(reviewed),
      });
      const last = figures.at(-1)!;
      console.log(
        `vendor, review of a re-pin, ${zoneText(zone)}, scope ${scope}: ${last.requests} requests (bound ${last.bound}: ${last.plan}); ` +
          `the limit imposes ${seconds(imposedSeconds(last.requests) * 1000)}; measured ${seconds(ms)}; ${last.refused} × 429; ` +
          `${last.waitLine !== undefined ? `it said: "${last.waitLine}"` : 'no wait for the limit said'}`,
      );
    }
    return figures;
  });
}

const verdict = (met: boolean) => (met ? 'met' : 'MISSED');

/** The review of a re-pin in the vendor's dialect, with the limit on, in each scope; its verdicts against the targets of issue 42, item 6. */
export async function vendorBenchmarks(options: { zones?: PaymentZone[] } = {}): Promise<void> {
  const zones = options.zones ?? [
    { scripts: 5_000, share: 1 },
    { scripts: 50_000, share: 1 },
    { scripts: 200_000, share: 1 },
  ];
  for (const zone of zones) {
    const figures = await vendorZone(zone);
    const full = figures.find((one) => one.scope === 'full')!;
    const change = figures.find((one) => one.scope === 'change')!;
    const same = JSON.stringify(full.verdicts) === JSON.stringify(change.verdicts);
    console.log(
      `vendor, review of a re-pin, ${zoneText(zone)}: requests full ${full.requests}, change ${change.requests} ` +
        `(${zone.scripts <= 50_000 ? `issue 42's target, at most 1,000 up to 50,000: full ${verdict(full.requests <= 1000)}, change ${verdict(change.requests <= 1000)}` : 'past the 50,000 of the target of at most 1,000'}); 429s ${full.refused} / ${change.refused}: ${verdict(full.refused + change.refused === 0)}; ` +
        `within the bound: ${verdict(full.requests <= full.bound && change.requests <= change.bound)}; ` +
        `the verdicts of change equal those of full (${full.verdicts.length} violations): ${verdict(same)}; ` +
        `a wait said where the limit imposed one: ${verdict(figures.every((one) => imposedSeconds(one.requests) === 0 || one.waitLine !== undefined))}`,
    );
  }
}
