#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_DIALECT, DIALECTS, isDialect } from '../rules/dialect';
import { parseApiRateLimit, type ApiRateLimit } from './core/rate-limit';
import type { SeedDocument } from './seed/seed';
import { startEmulator } from './server';

/**
 * `edgeguard-emulator`: the contract's command line. Prints exactly one line to stdout when it
 * listens; everything else goes to stderr. SIGINT/SIGTERM finish in-flight requests, make the
 * state durable and exit 0.
 */

const USAGE = `usage: edgeguard-emulator [--host 127.0.0.1] [--port 8787] [--data-dir DIR] [--token TOKEN]...
                          [--email E --key K] [--dialect spec|vendor] [--vendor NAME] [--seed FILE|demo|none]
                          [--admin-token T] [--api-rate-limit REQUESTS/SECONDS|off]
  --dialect  the API served: spec (default) or vendor (the vendor's paths and shapes)
  --vendor   the <vendor> token of wire field names (default: edgeguard in spec, cloudflare in vendor)`;

function fail(message: string): never {
  process.stderr.write(`edgeguard-emulator: ${message}\n${USAGE}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '8787' },
        'data-dir': { type: 'string' },
        token: { type: 'string', multiple: true },
        email: { type: 'string' },
        key: { type: 'string' },
        dialect: { type: 'string', default: DEFAULT_DIALECT },
        vendor: { type: 'string' },
        seed: { type: 'string' },
        'admin-token': { type: 'string' },
        'api-rate-limit': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535)
    fail(`--port: "${values.port}" is not a port number (0 picks a free one)`);
  if ((values.email === undefined) !== (values.key === undefined)) fail('--email and --key go together');
  const dialect = values.dialect;
  if (!isDialect(dialect)) fail(`--dialect: "${dialect}" is not a dialect (one of ${DIALECTS.join(', ')})`);

  let apiRateLimit: ApiRateLimit | 'off' | undefined;
  if (values['api-rate-limit'] !== undefined) {
    try {
      apiRateLimit = parseApiRateLimit(values['api-rate-limit']);
    } catch (error) {
      fail((error as Error).message);
    }
  }

  let seed: 'demo' | 'none' | SeedDocument | undefined;
  if (values.seed === 'demo' || values.seed === 'none') seed = values.seed;
  else if (values.seed !== undefined) {
    try {
      seed = JSON.parse(readFileSync(values.seed, 'utf8')) as SeedDocument;
    } catch (error) {
      fail(`--seed: cannot read a JSON seed document from ${values.seed}: ${(error as Error).message}`);
    }
  }

  const emulator = await startEmulator({
    host: values.host,
    port,
    dialect,
    ...(values.vendor !== undefined ? { vendor: values.vendor } : {}),
    ...(values['data-dir'] !== undefined ? { dataDir: values['data-dir'] } : {}),
    ...(values.token !== undefined ? { tokens: values.token } : {}),
    ...(values.email !== undefined ? { email: values.email, key: values.key! } : {}),
    ...(values['admin-token'] !== undefined ? { adminToken: values['admin-token'] } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(apiRateLimit !== undefined ? { apiRateLimit } : {}),
  });
  process.stdout.write(`edgeguard-emulator listening on ${emulator.baseUrl}\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`edgeguard-emulator: error while stopping on ${signal}: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`edgeguard-emulator: ${(error as Error).message}\n`);
  process.exit(1);
});
