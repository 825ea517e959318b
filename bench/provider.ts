import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as path from 'node:path';
import { configure } from '../provider/dynamic/context';
import { provider as migration } from '../provider/dynamic/runtime/pool-notification-migration';
import { ACCOUNT, call, TOKEN, withEmulator, ZONE } from './common';

/**
 * The provider's figures against their lower bounds (figures 1 and 4 of bench/RESULTS.md): the migration's
 * requests against ceil(N/perPage) + 2, and reading detected scripts through the read helpers,
 * whose memory must not grow with the count.
 */

async function useEmulator(baseUrl: string): Promise<void> {
  await configure({
    config: {
      get: (key: string) => ({ 'edgeguard:baseUrl': baseUrl, 'edgeguard:apiToken': TOKEN })[key],
      require: (key: string) => key,
    },
  });
}

/** Item 1: PoolNotificationMigration over N pools that all carry an e-mail. */
export async function migrationBenchmarks(): Promise<void> {
  for (const count of [1_000, 10_000]) {
    await withEmulator(false, async (emulator) => {
      const pools = Array.from({ length: count }, (_, i) => ({
        account_id: ACCOUNT,
        name: `pool-${String(i).padStart(5, '0')}`,
        notification_email: 'noc@example.com',
      }));
      const seeded = await call('POST', `${emulator.controlUrl}/seed`, { pools });
      if (seeded.status !== 200) throw new Error(`seed failed: ${JSON.stringify(seeded.body).slice(0, 300)}`);
      await useEmulator(emulator.baseUrl);
      const perPage = 1000;
      const mark = emulator.log.last;
      const started = performance.now();
      const result = await migration.create({ accountId: ACCOUNT, perPage, maxRounds: 3 });
      const ms = performance.now() - started;
      const requests = emulator.log.since(mark);
      const bound = Math.ceil(count / perPage) + 2;
      const outs = result.outs as { poolsSeen: number; poolsCleared: number };
      console.log(
        `migration, ${count} pools, perPage ${perPage}: ${requests.length} requests (lower bound ceil(N/perPage)+2 = ${bound}; ` +
          `${requests.map((r) => r.method).join(' ')}), ${ms.toFixed(0)} ms; ${outs.poolsSeen} seen, ${outs.poolsCleared} cleared`,
      );
    });
  }
}

/** Item 4: every script through `listScripts`, in a child process that reports its own peak memory. */
export async function readingBenchmarks(): Promise<void> {
  const child = path.join(__dirname, 'read-child.js');
  for (const [count, flags] of [
    [5_000, []],
    [50_000, []],
    [5_000, ['--expose-gc']],
    [50_000, ['--expose-gc']],
  ] as Array<[number, string[]]>) {
    await withEmulator(false, async (emulator) => {
      for (let offset = 0; offset < count; offset += 10_000) {
        const scripts = Array.from({ length: Math.min(10_000, count - offset) }, (_, i) => ({
          zone_id: ZONE,
          url: `https://cdn${(offset + i) % 50}.example.net/s${offset + i}.js`,
          host: 'www.example.com',
        }));
        const seeded = await call('POST', `${emulator.controlUrl}/seed`, { scripts });
        if (seeded.status !== 200) throw new Error(`seed failed: ${JSON.stringify(seeded.body).slice(0, 300)}`);
      }
      const perPage = 1000;
      // Not execFileSync: the emulator answering the child runs in this process's event loop.
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [...flags, child, emulator.baseUrl, TOKEN, ZONE, String(perPage)],
        { encoding: 'utf8' },
      );
      const report = JSON.parse(stdout) as {
        count: number;
        ms: number;
        maxRssKiB: number;
        heapPeakBytes: number;
        retainedPeakBytes: number;
      };
      if (report.count !== count) throw new Error(`read ${report.count} of ${count} scripts`);
      const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
      console.log(
        `read helpers, ${count} scripts, perPage ${perPage} (child process${flags.length ? `, ${flags.join(' ')}: heap measured after a full GC every 1000 scripts` : ''}): ` +
          `${report.ms.toFixed(0)} ms = ${((count / report.ms) * 1000).toFixed(0)} scripts/s; peak RSS ${mib(report.maxRssKiB * 1024)} MiB, ` +
          (flags.length
            ? `peak retained heap ${mib(report.retainedPeakBytes)} MiB`
            : `peak heap ${mib(report.heapPeakBytes)} MiB`),
      );
    });
  }
}
