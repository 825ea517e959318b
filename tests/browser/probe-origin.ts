/**
 * The payment pages' origin for the tests of `edgeguard-probe`: one HTTPS server, with a
 * certificate made at run time, that answers for the checkout's host and the payment processor's
 * as a real site would (told apart by the `Host` header), serving the payment page with its
 * headers and scripts, each part of which a test can change: what a browser receives.
 */

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import https from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { probeReportSchema, type ProbeReport } from '../../provider/payment/probe-schema';
import type { EngineStack } from '../helpers/engine';
import { PROBE_CLI, runOnStack } from '../helpers/stack-commands';
import { BROWSER_EXECUTABLES } from './browsers';
import { selfSignedCertificate } from './server';

/**
 * The loopback address the origin listens on, port 443 as a payment page's: not 127.0.0.1, whose
 * port 443 the browser truth's server takes when both tier files run at once.
 */
export const ORIGIN_ADDRESS = '127.0.0.53';

/** What the origin serves; each test changes a part and puts it back. */
export interface OriginContent {
  /** The payment page's status: 200, or what a page that is down answers. */
  status: number;
  /** The payment page's response headers, by lowercase name. */
  headers: Record<string, string>;
  /** The `src` of each `<script>` of the payment page, in order. */
  scripts: string[];
  /** The body of each script, by URL. */
  bodies: Record<string, string>;
  /** A status other than 200 a script is served with, by URL (its body still sent). */
  statuses?: Record<string, number>;
}

/** The SHA-256 of a body, in page security's hash format (lowercase hexadecimal). */
export function sha256(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}

/** A running origin; {@link ProbeOrigin.content} is what it serves now. */
export interface ProbeOrigin {
  content: OriginContent;
  /** The requests it answered, as `host path`. */
  requests: string[];
  close(): Promise<void>;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** Starts the origin on {@link ORIGIN_ADDRESS}:443 for `hosts`, serving `content` (a copy is kept). */
export async function startProbeOrigin(
  hosts: readonly string[],
  content: OriginContent,
  page: string,
): Promise<ProbeOrigin> {
  const origin: ProbeOrigin = {
    content: structuredClone(content),
    requests: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = https.createServer(selfSignedCertificate(hosts), (request, response) => {
    const host = (request.headers.host ?? '').replace(/:443$/, '');
    const url = `https://${host}${request.url ?? '/'}`;
    origin.requests.push(`${host} ${request.url ?? '/'}`);
    const now = origin.content;
    if (url === page) {
      response.writeHead(now.status, {
        ...now.headers,
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      });
      response.end(
        `<!doctype html><title>Pay</title><form id="card"></form>${now.scripts
          .map((src) => `<script src="${escapeAttribute(src)}"></script>`)
          .join('')}`,
      );
      return;
    }
    const body = now.bodies[url];
    if (body === undefined) {
      response.writeHead(404).end();
      return;
    }
    response
      .writeHead(now.statuses?.[url] ?? 200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' })
      .end(body);
  });
  await listenOn443(server, ORIGIN_ADDRESS, "the probe's origin");
  return origin;
}

/** Starts `server` on `address`:443, a payment page's port; throws naming `what` when it cannot. */
export async function listenOn443(server: Server, address: string, what: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(`${what} cannot listen on ${address}:443 (${error.code ?? error.message}; port 443 needs root)`),
      ),
    );
    server.listen(443, address, resolve);
  });
  if ((server.address() as AddressInfo).port !== 443) throw new Error(`${what} is not on port 443`);
}

/**
 * Fails, saying what to do, unless the probe's browser test can run: Chromium installed and the
 * probe built. Never a skip: a browser test that cannot run fails.
 */
export function assertProbeCanRun(): void {
  if (!fs.existsSync(BROWSER_EXECUTABLES.chromium))
    throw new Error(
      `${BROWSER_EXECUTABLES.chromium} is missing: install it with \`bash scripts/setup-browsers.sh\` (as root: apt-get install chromium)`,
    );
  if (!fs.existsSync(PROBE_CLI)) throw new Error(`${PROBE_CLI} is missing: build first (npm run build)`);
}

/** How a probe ended: its status, stdout (the Markdown when `--markdown -`), stderr, and its JSON report checked by its schema. */
export interface ProbeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  report?: ProbeReport;
}

/**
 * The built `edgeguard-probe` on `engine`'s stack as a weekly job runs it, with `--json` to a file
 * of the project and `args`; fails when `token` shows in anything it wrote.
 */
export async function runProbe(engine: EngineStack, token: string, args: readonly string[]): Promise<ProbeRun> {
  const json = path.join(engine.workDir, 'probe.json');
  fs.rmSync(json, { force: true });
  const run = await runOnStack(engine, PROBE_CLI, ['--json', json, ...args]);
  const written = fs.existsSync(json) ? fs.readFileSync(json, 'utf8') : undefined;
  if ([run.stdout, run.stderr, written ?? ''].some((text) => text.includes(token)))
    throw new Error('the probe wrote the API token');
  return {
    code: run.status,
    stdout: run.stdout,
    stderr: run.stderr,
    ...(written !== undefined ? { report: probeReportSchema.parse(JSON.parse(written)) } : {}),
  };
}
