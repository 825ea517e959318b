import * as os from 'node:os';
import { parseArgs } from 'node:util';
import { ACCOUNT, call, dispatcher, withEmulator, ZONE } from './common';

/**
 * `npm run bench`: the emulator's own figures, each printed with its method. Every benchmark
 * starts a fresh emulator on a loopback port and talks to it over HTTP with one keep-alive pool.
 *
 * `npm run bench -- [emulator] [provider] [engine] [review] [payment] [vendor] [--resources=N[,N...]] [--rounds=N]
 * [--hostnames=N] [--scripts=N[,N...]] [--list]` (`node dist/bench/run.js ...` after a build) runs only the groups named
 * (all by default); the flags size the engine benchmarks: the sizes of the overhead benchmark
 * (default 200,1000), its rounds at each size (default 3, also the rounds of the review and payment
 * benchmarks) and the custom hostnames of the issuance benchmark (default 45); `--scripts` the zones of
 * the payment and vendor groups (bench/payment.ts and bench/vendor.ts, each zone's scripts all on the
 * checkout host; default 5000,50000,200000). `--list` prints the
 * groups and sizes the command line selects and runs nothing.
 */

const GROUPS = ['emulator', 'provider', 'engine', 'review', 'payment', 'vendor'] as const;

function commandLine(): {
  groups: Set<string>;
  resources: number[] | undefined;
  rounds: number | undefined;
  hostnames: number | undefined;
  scripts: number[] | undefined;
  list: boolean;
} {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      resources: { type: 'string' },
      rounds: { type: 'string' },
      hostnames: { type: 'string' },
      scripts: { type: 'string' },
      list: { type: 'boolean' },
    },
  });
  for (const name of positionals) {
    if (!(GROUPS as readonly string[]).includes(name))
      throw new Error(`unknown benchmark group "${name}"; the groups are ${GROUPS.join(', ')}`);
  }
  const positive = (flag: string, text: string): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${flag}: must be a positive integer (got "${text}")`);
    return value;
  };
  return {
    groups: new Set(positionals.length > 0 ? positionals : GROUPS),
    resources: values.resources?.split(',').map((text) => positive('resources', text)),
    rounds: values.rounds === undefined ? undefined : positive('rounds', values.rounds),
    hostnames: values.hostnames === undefined ? undefined : positive('hostnames', values.hostnames),
    scripts: values.scripts?.split(',').map((text) => positive('scripts', text)),
    list: values.list === true,
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const policy = (i: number) => ({
  description: `bench ${i}`,
  action: 'log',
  expression: 'http.host eq "shop.example.com"',
  enabled: 'true',
  value: "script-src 'self' cdn.example.com",
});

async function writeLatency(durable: boolean, count: number): Promise<void> {
  await withEmulator(durable, async (emulator) => {
    const url = `${emulator.baseUrl}/zones/${ZONE}/page_security/policies`;
    const times: number[] = [];
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      const reply = await call('POST', url, policy(i));
      if (reply.status !== 200) throw new Error(`create failed: ${JSON.stringify(reply.body)}`);
      times.push(performance.now() - t);
    }
    const total = performance.now() - started;
    times.sort((a, b) => a - b);
    console.log(
      `policy create, ${durable ? 'durable (fsync per write)' : 'in memory'}: ${count} sequential POSTs in ${total.toFixed(0)} ms = ` +
        `${((count / total) * 1000).toFixed(0)}/s; latency p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms`,
    );
  });
}

async function concurrentWrites(workers: number, perWorker: number): Promise<void> {
  await withEmulator(true, async (emulator) => {
    const url = `${emulator.baseUrl}/zones/${ZONE}/page_security/policies`;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        for (let i = 0; i < perWorker; i++) await call('POST', url, policy(w * perWorker + i));
      }),
    );
    const total = performance.now() - started;
    console.log(
      `policy create, durable, ${workers} concurrent clients x ${perWorker}: ${((workers * perWorker * 1000) / total).toFixed(0)}/s`,
    );
  });
}

async function listScripts(count: number, perPage: number): Promise<void> {
  await withEmulator(false, async (emulator) => {
    const scripts = Array.from({ length: count }, (_, i) => ({
      zone_id: ZONE,
      url: `https://cdn${i % 50}.example.net/s${i}.js`,
      host: 'www.example.com',
    }));
    const seedStart = performance.now();
    const seeded = await call('POST', `${emulator.controlUrl}/seed`, { scripts });
    if (seeded.status !== 200) throw new Error(`seed failed: ${JSON.stringify(seeded.body).slice(0, 300)}`);
    const seedMs = performance.now() - seedStart;
    const started = performance.now();
    let seen = 0;
    let requests = 0;
    for (let page = 1; ; page++) {
      const reply = await call(
        'GET',
        `${emulator.baseUrl}/zones/${ZONE}/page_security/scripts?per_page=${perPage}&page=${page}`,
      );
      requests++;
      seen += reply.body.result.length;
      if (page >= reply.body.result_info.total_pages) break;
    }
    const total = performance.now() - started;
    if (seen !== count) throw new Error(`listed ${seen} of ${count} scripts`);
    console.log(
      `list scripts: ${count} scripts seeded in ${seedMs.toFixed(0)} ms; paged through with per_page ${perPage} in ${requests} requests, ` +
        `${total.toFixed(0)} ms (${(total / requests).toFixed(1)} ms a page) = ${((count / total) * 1000).toFixed(0)} scripts/s`,
    );
  });
}

async function clearPools(count: number, perPage: number): Promise<void> {
  await withEmulator(true, async (emulator) => {
    const pools = Array.from({ length: count }, (_, i) => ({
      account_id: ACCOUNT,
      name: `pool-${String(i).padStart(5, '0')}`,
      notification_email: 'noc@example.com',
    }));
    const seeded = await call('POST', `${emulator.controlUrl}/seed`, { pools });
    if (seeded.status !== 200) throw new Error(`seed failed: ${JSON.stringify(seeded.body).slice(0, 300)}`);
    const url = `${emulator.baseUrl}/accounts/${ACCOUNT}/load_balancers/pools`;
    const started = performance.now();
    let requests = 0;
    for (let page = 1; page <= Math.ceil(count / perPage); page++) {
      const reply = await call('PATCH', `${url}?per_page=${perPage}&page=${page}`, { notification_email: '' });
      requests++;
      if (reply.status !== 200) throw new Error(`PATCH failed: ${JSON.stringify(reply.body)}`);
    }
    const patchMs = performance.now() - started;
    const listStart = performance.now();
    const listed = await call('GET', url);
    const listMs = performance.now() - listStart;
    const left = (listed.body.result as Array<{ notification_email: string }>).filter(
      (p) => p.notification_email !== '',
    ).length;
    if (left !== 0) throw new Error(`${left} pools still carry an e-mail`);
    console.log(
      `clear pools, durable: ${count} pools with per_page ${perPage}: ${requests} PATCHes in ${patchMs.toFixed(0)} ms ` +
        `(${(patchMs / requests).toFixed(1)} ms each); verifying full list of ${count} in ${listMs.toFixed(0)} ms`,
    );
  });
}

/**
 * A group's module, loaded when the group runs: the engine's, the review's and the payment groups
 * load the Pulumi SDK, the pack and the provider, which `--list` and a run of another group never use.
 */
function group<T>(module: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(module) as T;
}

async function main(): Promise<void> {
  const { groups, resources, rounds, hostnames, scripts, list } = commandLine();
  if (list) {
    const sizes = [
      resources !== undefined ? `resources ${resources.join(',')}` : undefined,
      rounds !== undefined ? `rounds ${rounds}` : undefined,
      hostnames !== undefined ? `hostnames ${hostnames}` : undefined,
      scripts !== undefined ? `scripts ${scripts.join(',')}` : undefined,
    ].filter((size) => size !== undefined);
    console.log(`groups: ${GROUPS.filter((group) => groups.has(group)).join(', ')}`);
    console.log(`sizes: ${sizes.length > 0 ? sizes.join('; ') : 'the defaults'}`);
    await dispatcher.close();
    return;
  }
  console.log(
    `EdgeGuard benchmarks — ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString()}`,
  );
  console.log(`data directory on ${os.tmpdir()}\n`);
  if (groups.has('emulator')) {
    await writeLatency(false, 500);
    await writeLatency(true, 500);
    await concurrentWrites(8, 100);
    await listScripts(50_000, 1000);
    await clearPools(10_000, 1000);
    console.log('');
  }
  if (groups.has('provider')) {
    const { migrationBenchmarks, readingBenchmarks } = group<typeof import('./provider')>('./provider');
    await migrationBenchmarks();
    console.log('');
    await readingBenchmarks();
    console.log('');
  }
  if (groups.has('engine')) {
    await group<typeof import('./engine')>('./engine').engineBenchmarks({
      ...(resources !== undefined ? { resources } : {}),
      ...(rounds !== undefined ? { rounds } : {}),
      ...(hostnames !== undefined ? { hostnames } : {}),
    });
  }
  if (groups.has('review')) {
    console.log('');
    await group<typeof import('./review')>('./review').reviewBenchmarks(rounds !== undefined ? { rounds } : {});
  }
  if (groups.has('payment')) {
    console.log('');
    await group<typeof import('./payment')>('./payment').paymentBenchmarks({
      ...(rounds !== undefined ? { rounds } : {}),
      ...(scripts !== undefined ? { zones: scripts.map((count) => ({ scripts: count, share: 1 })) } : {}),
    });
  }
  if (groups.has('vendor')) {
    console.log('');
    await group<typeof import('./vendor')>('./vendor').vendorBenchmarks(
      scripts !== undefined ? { zones: scripts.map((count) => ({ scripts: count, share: 1 })) } : {},
    );
  }
  await dispatcher.close();
}

main().catch((error: unknown) => {
  console.error(`bench: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
