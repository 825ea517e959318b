import type { EngineStack } from '../../helpers/engine';
import { ACCOUNT_ID, startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { PAYMENT_PAGES, paymentPagesStack } from '../../helpers/payment-pages';
import { runAudit, runReview, type AuditRun, type ReviewRun } from '../../helpers/stack-commands';

/**
 * Several zones at once under the service's API limit (issue 30, item 5): a nightly set of stacks
 * of tests/engine/projects/payment-pages, each on a zone of its own, runs as parallel CI jobs on ONE
 * token, each `edgeguard-review --refresh --fail-on-drift` then `edgeguard-audit`, against an
 * emulator whose limit, scaled down to a short window, is below what the jobs need together. Each
 * job must end with its right exit status, and none may fail on a 429.
 *
 * Two stacks, not three: two processes on one token already share its budget, each learning it
 * from the service's answers, and a third cost about 25 s of CPU (an up, a review, an audit). The
 * limit is scaled down with them, so that the jobs need at least as many windows' calls as three
 * needed of 20 per window (39 calls in one run, about 13 a job).
 */

const TOKEN = 'e2e-limits-token-8c1d5a09';
const STACKS = 2;
/**
 * Below what the jobs need together (the test checks it), with a window short enough that
 * waiting for a few of them keeps the test within a couple of minutes.
 */
const LIMIT = { limit: 12, windowSeconds: 5 };
const { page: PAY, card: CARD, cardHash: V1, ownCode: OWN_CODE } = PAYMENT_PAGES;

let emu: TestEmulator;
const engines: EngineStack[] = [];

beforeAll(async () => {
  emu = await startTestEmulator({ tokens: [TOKEN], apiRateLimit: LIMIT });
  for (let i = 0; i < STACKS; i++) {
    const zone = `c00000000000000000000000000003${i}0`;
    await emu.seed({
      zones: [{ id: zone, name: `shop${i}.example`, account_id: ACCOUNT_ID }],
      scripts: [
        { zone_id: zone, url: CARD, hash: V1, js_integrity_score: 70, page_urls: [PAY, `${PAY}/confirm`] },
        { zone_id: zone, url: `${OWN_CODE}checkout.js`, js_integrity_score: 90, page_urls: [PAY] },
      ],
    });
    engines.push(await paymentPagesStack(emu, TOKEN, { zoneId: zone }));
  }
  // Deployed in parallel too, under the same limit.
  await Promise.all(engines.map((engine) => engine.up()));
}, 300_000);
afterAll(async () => {
  for (const engine of engines) await engine.dispose();
  await emu?.close();
});

/** One zone's nightly job: the review of its stack, then its audit. */
async function nightlyJob(engine: EngineStack): Promise<{ review: ReviewRun; audit: AuditRun }> {
  const review = await runReview(engine, '--refresh', '--fail-on-drift');
  const audit = await runAudit(engine);
  return { review, audit };
}

test('two zones’ nightly jobs in parallel on one token all finish, with their exit status, past the limit', async () => {
  // Every credential starts on a fresh window, as a night's first job would.
  await emu.control('POST', 'clock', { advance_seconds: 3600 });
  const mark = emu.mark();
  const started = Date.now();
  const jobs = await Promise.all(engines.map(nightlyJob));
  const seconds = (Date.now() - started) / 1000;
  const calls = await emu.requests(mark);

  for (const { review, audit } of jobs) {
    expect({ code: review.code, stderr: review.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(review.json.violations).toEqual([]);
    expect({ code: audit.code, stderr: audit.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    for (const text of [review.stdout, review.stderr, audit.stdout, audit.stderr]) {
      expect(text).not.toMatch(/RateLimitError|HTTP 429/);
      expect(text).not.toContain(TOKEN);
    }
  }
  // The limit bound them: together they needed more than one window's calls, and more time.
  const answered = calls.filter((call) => call.status !== 429);
  process.stdout.write(
    `nightly jobs: ${calls.length} API calls (${calls.length - answered.length} refused with 429) in ${seconds.toFixed(1)} s ` +
      `under ${LIMIT.limit} per ${LIMIT.windowSeconds} s\n`,
  );
  expect(answered.length).toBeGreaterThan(LIMIT.limit);
  expect(seconds).toBeGreaterThan(LIMIT.windowSeconds);
}, 240_000);
