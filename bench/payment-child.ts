import * as fs from 'node:fs';
import { clientFrom } from '../provider/client/shared';
import { readPaymentScripts } from '../provider/payment/scripts';
import { exportedResources } from '../provider/stack/export';
import { parseScriptInventory, type ScriptInventoryInput } from '../rules/inventory';

/**
 * Child process of the payment-page benchmark: the one reading of the payment pages' scripts
 * (`readPaymentScripts`, what the audit, the review and the resource share) for the inventory of
 * the bench stack's state, run with `--expose-gc`, reporting the most heap it kept alive (a full GC
 * every 50 ms, then `heapUsed`), its peak RSS, and how long it took. Garbage V8 has not collected yet
 * is so told apart from memory kept. Arguments: base URL, token, zone id, the file of the stack's state.
 */
async function main(): Promise<void> {
  const [baseUrl, apiToken, zoneId, stateFile] = process.argv.slice(2) as [string, string, string, string];
  const inputs = exportedResources(JSON.parse(fs.readFileSync(stateFile, 'utf8'))).find(
    (resource) => resource.kind === 'ScriptInventory',
  )?.inputs as ScriptInventoryInput | undefined;
  if (inputs === undefined) throw new Error(`the stack's state holds no ScriptInventory`);
  const parsed = parseScriptInventory(inputs);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  const client = clientFrom({ explicit: { baseUrl, apiToken } });
  gc();
  let retained = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    gc();
    retained = Math.max(retained, process.memoryUsage().heapUsed);
  }, 50);
  const started = performance.now();
  const scripts = await readPaymentScripts(client, zoneId, parsed.value);
  const ms = performance.now() - started;
  clearInterval(timer);
  process.stdout.write(
    JSON.stringify({
      scripts: scripts.length,
      ms,
      retainedPeakBytes: retained,
      maxRssKiB: process.resourceUsage().maxRSS,
    }),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
