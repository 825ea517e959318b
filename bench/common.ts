import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent, request } from 'undici';
import type { EmulatorOptions } from '../emulator/app';
import { startEmulator, type RunningEmulator } from '../emulator/server';

/**
 * What every benchmark shares: a fresh emulator on a loopback port, seeded with one account and
 * zone, spoken to over HTTP with one keep-alive pool.
 */

export const TOKEN = 'bench-token-0123456789';
export const ACCOUNT = 'a00000000000000000000000000000b1';
export const ZONE = 'c00000000000000000000000000000b1';
export const dispatcher = new Agent({ connections: 16 });

/** The envelope of a reply, as far as the benchmarks read it. */
export interface ApiReply {
  result: unknown[] & { length: number };
  result_info: { total_pages: number };
}

export async function call(method: string, url: string, body?: unknown): Promise<{ status: number; body: ApiReply }> {
  const response = await request(url, {
    method: method as never,
    dispatcher,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.statusCode, body: (await response.body.json()) as ApiReply };
}

/** A fresh emulator for `run`, in memory or `durable`, built with `options` beside the benchmarks' own. */
export async function withEmulator<T>(
  durable: boolean,
  run: (emulator: RunningEmulator) => Promise<T>,
  options: EmulatorOptions = {},
): Promise<T> {
  const dataDir = durable ? fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-bench-')) : undefined;
  // The benchmarks send tens of thousands of calls with one token to measure throughput: the
  // service's API limit (1,200 per 300 s) would measure its waits instead, unless `options` asks for it.
  const emulator = await startEmulator({
    apiRateLimit: 'off',
    ...options,
    port: 0,
    tokens: [TOKEN],
    seed: 'none',
    ...(dataDir ? { dataDir } : {}),
  });
  try {
    const seeded = await call('POST', `${emulator.controlUrl}/seed`, {
      accounts: [{ id: ACCOUNT, name: 'Bench' }],
      zones: [{ id: ZONE, name: 'example.com', account_id: ACCOUNT }],
    });
    if (seeded.status !== 200) throw new Error(`seed failed: ${JSON.stringify(seeded.body)}`);
    return await run(emulator);
  } finally {
    await emulator.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
