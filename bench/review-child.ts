import { clientFrom } from '../provider/clients';
import { reviewService, type PolicyUnderReview } from '../provider/review/plan';

/**
 * Child process of the review benchmark: the pack's read and judgement of a zone (`reviewService`)
 * for the bench project's policies (bench/projects/csp-review, `variant: after`), run with
 * `--expose-gc`, reporting the most heap it kept alive (a full GC every 50 ms, then `heapUsed`)
 * and its peak RSS. Arguments: base URL, token, zone id, policies.
 */
async function main(): Promise<void> {
  const [baseUrl, apiToken, zoneId, count] = process.argv.slice(2) as [string, string, string, string];
  const cdns = Array.from({ length: 10 }, (_, i) => `cdn${i}.example.net`).join(' ');
  const apis = Array.from({ length: 10 }, (_, i) => `api${i}.example.net`).join(' ');
  const policies: PolicyUnderReview[] = Array.from({ length: Number(count) }, (_, i) => ({
    key: `policy-${i}`,
    name: `policy-${i}`,
    zoneId,
    policy: {
      action: 'allow',
      enabled: true,
      expression: `http.host eq "h${i}.example.com"`,
      value: `script-src 'self' ${cdns} cdn-new.example.net; connect-src 'self' ${apis}`,
    },
    replaces: 'none',
  }));
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  gc();
  const before = process.memoryUsage().heapUsed;
  let retained = before;
  const timer = setInterval(() => {
    gc();
    retained = Math.max(retained, process.memoryUsage().heapUsed);
  }, 50);
  const started = performance.now();
  const result = await reviewService(clientFrom({ explicit: { baseUrl, apiToken } }), {
    policies,
    migrations: [],
    notifications: [],
  });
  const ms = performance.now() - started;
  clearInterval(timer);
  process.stdout.write(
    `${JSON.stringify({ ms, requests: result.requests.made, heapBeforeBytes: before, retainedPeakBytes: retained, maxRssKiB: process.resourceUsage().maxRSS })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
