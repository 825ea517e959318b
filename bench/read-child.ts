import { listScripts } from '../provider/helpers/read';

/**
 * Child process of the reading benchmark: iterates every script of a zone through the read helper
 * and reports its own peak memory, so the emulator's memory (which holds the scripts) is not
 * counted. Arguments: base URL, token, zone id, per page.
 */
async function main(): Promise<void> {
  const [baseUrl, apiToken, zoneId, perPage] = process.argv.slice(2) as [string, string, string, string];
  const started = performance.now();
  let count = 0;
  let heapPeak = 0;
  let retainedPeak = 0;
  const gc = (globalThis as { gc?: () => void }).gc;
  for await (const script of listScripts(zoneId, { perPage: Number(perPage) }, { baseUrl, apiToken })) {
    if (script.id) count++;
    if (count % 1000 === 0) {
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
      // With --expose-gc: what the loop really keeps alive, apart from garbage not yet collected.
      if (gc) {
        gc();
        retainedPeak = Math.max(retainedPeak, process.memoryUsage().heapUsed);
      }
    }
  }
  const ms = performance.now() - started;
  process.stdout.write(
    `${JSON.stringify({ count, ms, maxRssKiB: process.resourceUsage().maxRSS, heapPeakBytes: heapPeak, retainedPeakBytes: retainedPeak })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
