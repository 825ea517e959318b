import * as fs from 'node:fs';
import { clientFrom } from '../provider/client/shared';
import { stackPolicyIds } from '../provider/stack/export';
import { reviewService } from '../provider/review/plan';
import { REVIEW_PER_PAGE, type PolicyUnderReview } from '../provider/impact/model';
import { ReadAhead } from '../provider/impact/read-ahead';

/**
 * Child process of the review benchmark: the pack's read and judgement of a zone (`reviewService`)
 * for the bench project's policies (bench/projects/csp-review, `variant: after`), run with
 * `--expose-gc`, reporting the most heap it kept alive (a full GC every 50 ms, then `heapUsed`)
 * and its peak RSS; then the same with the listings read ahead first (`provider/impact/read-ahead.ts`,
 * on the policies' hosts), the heap measured from the start of the read ahead to the end of the
 * review. As `edgeguard-review` reviews, from the stack's state before the change (its `pulumi stack
 * export`): each policy replaces the live one of its URN, and the stack's live policies are the
 * ones it manages, so that only the other teams' policies are judged beside the proposed ones
 * (`hostHeaders`: the numbers of headers the policies were judged with). Arguments: base URL, token, zone id, policies, the file of the stack's state.
 */
async function main(): Promise<void> {
  const [baseUrl, apiToken, zoneId, count, stateFile] = process.argv.slice(2) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const managed = stackPolicyIds(JSON.parse(fs.readFileSync(stateFile, 'utf8')));
  /** The live policy the stack's state holds for `name`. */
  const liveId = (name: string) => {
    const id = [...managed].find(([urn]) => urn.endsWith(`::${name}`))?.[1];
    if (id === undefined) throw new Error(`the stack's state holds no policy ${name}`);
    return id;
  };
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
    replaces: { id: liveId(`policy-${i}`) },
  }));
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  const client = clientFrom({ explicit: { baseUrl, apiToken } });
  const input = { policies, managedPolicyIds: [...managed.values()], migrations: [], notifications: [] };
  /** The most heap `run` keeps alive, with a full GC every 50 ms, and how long it takes. */
  const measured = async <T>(run: () => Promise<T>) => {
    gc();
    let retained = process.memoryUsage().heapUsed;
    const timer = setInterval(() => {
      gc();
      retained = Math.max(retained, process.memoryUsage().heapUsed);
    }, 50);
    const started = performance.now();
    const value = await run();
    clearInterval(timer);
    return { value, ms: performance.now() - started, retained };
  };
  gc();
  const before = process.memoryUsage().heapUsed;
  const plain = await measured(() => reviewService(client, input));
  const hosts = new Set(policies.map((_, i) => `h${i}.example.com`));
  const ahead = await measured(async () => {
    const reading = new ReadAhead(client.settings, new Map([[zoneId, hosts]]), REVIEW_PER_PAGE).start();
    try {
      await reading.ended();
      return await reviewService(client, input, { readAhead: reading });
    } finally {
      reading.dispose();
    }
  });
  process.stdout.write(
    `${JSON.stringify({
      ms: plain.ms,
      requests: plain.value.requests.made,
      hostHeaders: [...new Set(plain.value.policies.map((policy) => policy.hostHeaders.length))],
      heapBeforeBytes: before,
      retainedPeakBytes: plain.retained,
      readAhead: { ms: ahead.ms, requests: ahead.value.requests.made, retainedPeakBytes: ahead.retained },
      maxRssKiB: process.resourceUsage().maxRSS,
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
