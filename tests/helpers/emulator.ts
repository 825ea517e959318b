import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import type { EmulatorOptions } from '../../emulator/app';
import { DEFAULT_DIALECT, isDialect, LIST_PAGE_BOUNDS, PAGE_SECURITY_SEGMENT, type Dialect } from '../../rules/dialect';
import type { Envelope } from '../../emulator/core/envelope';
import type { LoggedRequest } from '../../emulator/core/request-log';
import { startEmulator, type RunningEmulator } from '../../emulator/server';

/**
 * One emulator per test file, on a real loopback port, spoken to over HTTP with undici: the
 * integration tests see exactly what a client sees.
 */

/** The token every test emulator accepts for everything. */
export const TEST_TOKEN = 'test-token-0123456789';
/** Fixed ids for the basic fixture (any 32-hex strings would do). */
export const ACCOUNT_ID = 'a0000000000000000000000000000001';
export const ZONE_ID = 'c0000000000000000000000000000001';
export const ZONE_NAME = 'example.com';

/** What a test gets back from a call: status, headers and the parsed body. */
export interface Reply<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body: the envelope for API calls (loosely typed; tests assert its shape). */
  body: Partial<Envelope<T>> & Record<string, any> & { result: any; errors: any; result_info: any };
}

export interface CallOptions {
  /** A JSON body (serialized, with Content-Type: application/json). */
  body?: unknown;
  /** A raw body sent as is (for malformed-body tests); set the content type in `headers`. */
  rawBody?: string;
  /** Replaces the default `Authorization: Bearer <the emulator's first token>`; `{}` sends no credentials. */
  headers?: Record<string, string>;
  query?: Record<string, string | number>;
}

export interface TestEmulator {
  emulator: RunningEmulator;
  baseUrl: string;
  /** The control API's admin token, when the emulator was started with one (`control` sends it). */
  adminToken: string | undefined;
  /** The dialect it speaks: the option's, else `EDGEGUARD_DIALECT` (`vendor`), else `spec`. */
  dialect: Dialect;
  /** Page security's path segment in that dialect (`page_security`, the vendor's `page_shield`). */
  pageSecurity: string;
  /** A policy's `enabled` as a request body of that dialect carries it: the spec's string, the vendor's boolean. */
  wireEnabled(enabled: boolean): string | boolean;
  /** Calls the vendor API: `path` is relative to the base address (`zones/<id>/...`). */
  api<T = any>(method: string, path: string, options?: CallOptions): Promise<Reply<T>>;
  /** Calls the control API: `path` is relative to `/__emulator/`. */
  control<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  /** Seeds `document` through the control API; throws unless it answers 200. */
  seed(document: Record<string, unknown>): Promise<void>;
  /** The API requests served after position `since`; throws unless the control API answers 200 with a list. */
  requests(since?: number): Promise<LoggedRequest[]>;
  /** The request log's newest position, to pass to `requests` or `writesSince` later. */
  mark(): number;
  /** Requests after `since` with a method that can change state. */
  writesSince(since: number): Promise<LoggedRequest[]>;
  /**
   * A new zone of the fixture's account ({@link ACCOUNT_ID}, a random id) holding `scripts`, each
   * seeded with its `zone_id`; its id. A zone of a test's own, so tests never see each other's scripts.
   */
  zoneWithScripts(scripts: Array<Record<string, unknown>>): Promise<string>;
  /**
   * The id of the zone's detected script at `url`, active or infrequent (a list shows one status
   * at a time, active by default); throws when neither lists it.
   */
  scriptIdOf(zoneId: string, url: string): Promise<string>;
  /**
   * Makes `version` (`hash`, scores, `fetched_at`) the new current version of the zone's detected
   * script at `url` (of either status), a change of its content, through the control API's
   * versions route; throws unless the script is listed and the route answers 200.
   */
  newScriptVersion(zoneId: string, url: string, version: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

/** Sends one HTTP request and parses the JSON answer. */
export async function call<T = any>(method: string, url: string, options: CallOptions = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const target = new URL(url);
  for (const [key, value] of Object.entries(options.query ?? {})) target.searchParams.set(key, String(value));
  const response = await request(target, { method: method as never, headers, body });
  const text = await response.body.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    throw new Error(
      `${method} ${url}: HTTP ${response.statusCode} with a body that is not JSON: ${text.slice(0, 200)}`,
    );
  }
  return { status: response.statusCode, headers: response.headers, body: parsed };
}

/**
 * The API limit of a test's emulator when the test gives none: 100 times the service's (120,000
 * calls per 300 s per credential), which no file's calls meet, and under which the client's waits
 * on the service's work poll every 25 ms at first rather than every 2.5 s (a tenth of the budget
 * the service reports). The limit is still on and reported, so the client paces on it as on the
 * service's. A test whose subject is the budget or that floor gives its own (the service's is
 * `DEFAULT_API_RATE_LIMIT` of emulator/core/rate-limit.ts).
 */
export const TEST_API_RATE_LIMIT = { limit: 120_000, windowSeconds: 300 };

/**
 * Starts an emulator for one test file. By default it has no seed, accepts {@link TEST_TOKEN},
 * and (with `fixture`) one account and zone with the fixed ids above. The API limit is on, at
 * {@link TEST_API_RATE_LIMIT}: `apiRateLimit` gives another (the service's, or a small one such as
 * `{limit: 20, windowSeconds: 4}`), turns it `'off'`, or, given as `undefined`, leaves the
 * emulator's own default. `dialect: 'vendor'` serves the vendor's paths and shapes (contract, "Two
 * dialects"), and so does `EDGEGUARD_DIALECT=vendor` when no `dialect` is given (the variable the
 * provider's clients read too, so a file can be run in either dialect); the helpers below follow it.
 */
export async function startTestEmulator(options: EmulatorOptions & { fixture?: boolean } = {}): Promise<TestEmulator> {
  const { fixture = true, ...given } = options;
  // A file run with EDGEGUARD_DIALECT=vendor speaks the vendor's dialect on both sides: its clients read the same variable.
  const fromEnv = process.env.EDGEGUARD_DIALECT?.trim() ?? '';
  const emulatorOptions = { ...given, dialect: given.dialect ?? (isDialect(fromEnv) ? fromEnv : DEFAULT_DIALECT) };
  const dialect = emulatorOptions.dialect;
  const pageSecurity = PAGE_SECURITY_SEGMENT[dialect];
  const emulator = await startEmulator({
    port: 0,
    tokens: [TEST_TOKEN],
    seed: 'none',
    apiRateLimit: TEST_API_RATE_LIMIT,
    ...emulatorOptions,
  });
  // `api` speaks with the first token the emulator was given, so tests need not repeat it.
  const auth = { authorization: `Bearer ${emulatorOptions.tokens?.[0] ?? TEST_TOKEN}` };
  const adminToken = emulatorOptions.adminToken;
  const controlAuth: Record<string, string> = adminToken !== undefined ? { authorization: `Bearer ${adminToken}` } : {};
  const test: TestEmulator = {
    emulator,
    baseUrl: emulator.baseUrl,
    adminToken,
    dialect,
    pageSecurity,
    wireEnabled: (enabled) => (dialect === 'vendor' ? enabled : String(enabled)),
    api: (method, path, callOptions = {}) =>
      call(method, `${emulator.baseUrl}/${path}`, { ...callOptions, headers: callOptions.headers ?? auth }),
    control: (method, path, body) =>
      call(method, `${emulator.controlUrl}/${path}`, { headers: controlAuth, ...(body === undefined ? {} : { body }) }),
    seed: async (document) => {
      const reply = await test.control('POST', 'seed', document);
      if (reply.status !== 200) throw new Error(`seed failed: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
    },
    requests: async (since = 0) => {
      // A failed read of the log must fail the test: an empty list would pass every "no write happened" check.
      const reply = await call<LoggedRequest[]>('GET', `${emulator.controlUrl}/requests?since=${since}`, {
        headers: controlAuth,
      });
      if (reply.status !== 200 || !Array.isArray(reply.body?.result)) {
        throw new Error(`GET /__emulator/requests?since=${since}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
      }
      return reply.body.result as LoggedRequest[];
    },
    mark: () => emulator.log.last,
    writesSince: async (since) => (await test.requests(since)).filter((r) => r.method !== 'GET'),
    zoneWithScripts: async (scripts) => {
      const zone = randomBytes(16).toString('hex');
      await test.seed({
        zones: [{ id: zone, name: `z${zone.slice(0, 8)}.example`, account_id: ACCOUNT_ID }],
        scripts: scripts.map((script) => ({ zone_id: zone, ...script })),
      });
      return zone;
    },
    scriptIdOf: async (zoneId, url) => {
      for (const status of ['active', 'infrequent']) {
        const listed = await test.api('GET', `zones/${zoneId}/${pageSecurity}/scripts`, {
          query: { status, urls: url, per_page: LIST_PAGE_BOUNDS[dialect].pageSecurity.max },
        });
        const script = (listed.body.result as Array<{ id: string; url: string }> | undefined)?.find(
          (item) => item.url === url,
        );
        if (script !== undefined) return script.id;
      }
      throw new Error(`no script at ${url} is listed in zone ${zoneId}, active or infrequent`);
    },
    newScriptVersion: async (zoneId, url, version) => {
      const id = await test.scriptIdOf(zoneId, url);
      const posted = await test.control('POST', `zones/${zoneId}/page_security/scripts/${id}/versions`, version);
      if (posted.status !== 200)
        throw new Error(`new version of ${url}: HTTP ${posted.status} ${JSON.stringify(posted.body)}`);
    },
    close: () => emulator.close(),
  };
  if (fixture) {
    await test.seed({
      accounts: [{ id: ACCOUNT_ID, name: 'Acme' }],
      zones: [{ id: ZONE_ID, name: ZONE_NAME, account_id: ACCOUNT_ID }],
    });
  }
  return test;
}
