import type { Socket } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import { DEFAULT_DIALECT, DIALECT_DEFAULT_VENDOR, DIALECTS, isDialect, type Dialect } from '../rules/dialect';
import { VENDOR_TOKEN_FORM, VENDOR_TOKEN_PATTERN } from '../rules/limits';
import { OffsetClock } from './core/clock';
import { failure } from './core/envelope';
import { ApiError, ErrorCode } from './core/errors';
import { Faults } from './core/faults';
import { API_RATE_LIMIT_FORM, ApiRateLimiter, DEFAULT_API_RATE_LIMIT, type ApiRateLimit } from './core/rate-limit';
import { RequestLog } from './core/request-log';
import { Store } from './core/store';
import { clockState } from './core/world';
import { rateLimitKey, type EmulatorContext } from './core/tenancy';
import { registerControl } from './control/plugin';
import { applySeed, type SeedDocument } from './seed/seed';
import { demoSeed } from './seed/demo';
import { registerCustomHostnames } from './services/custom-hostnames/plugin';
import { registerLoadBalancing } from './services/load-balancing/plugin';
import { registerNotifications } from './services/notifications/plugin';
import { registerPageSecurity } from './services/page-security/plugin';

/** Contract: the API is served under this prefix. */
export const API_PREFIX = '/client/v4';

/** Options of {@link buildEmulator}; every one has a default. */
export interface EmulatorOptions {
  /** Data directory for durable state; none keeps state in memory. */
  dataDir?: string;
  /** Tokens with access to everything. Default: `["dev-token"]`. */
  tokens?: string[];
  /** E-mail + key accepted as the alternative credentials (spec 5.2). Default: none. */
  email?: string;
  key?: string;
  /**
   * The dialect served (contract, "Two dialects"): `spec` (the default) or `vendor`, the vendor's
   * own paths and shapes with the same rules, limits and filters.
   */
  dialect?: Dialect;
  /** The spec's `<vendor>` token in field names. Default: the dialect's (`edgeguard` in `spec`). */
  vendor?: string;
  /** When set, the control API requires `Authorization: Bearer <adminToken>`. */
  adminToken?: string;
  /**
   * What to load at start: `demo`, `none`, or a seed document. Default: `demo` when the data
   * directory is new (or there is none), nothing otherwise.
   */
  seed?: 'demo' | 'none' | SeedDocument;
  /** Real time source under the emulator's clock; tests may replace it. Default `Date.now`. */
  now?: () => number;
  /**
   * The API rate limit per credential (contract, "API rate limit"): `limit` calls per
   * `windowSeconds`, and a block of `windowSeconds` past it; `off` counts nothing and sends no
   * budget headers. Default 1,200 calls per 300 s.
   */
  apiRateLimit?: ApiRateLimit | 'off';
}

/** A built emulator: the fastify app and the parts tests and the control API reach. */
export interface Emulator {
  app: FastifyInstance;
  ctx: EmulatorContext;
  log: RequestLog;
  faults: Faults;
  /** Counts API calls per credential; `undefined` when the limit is off. */
  rateLimiter: ApiRateLimiter | undefined;
  /** TCP connections the HTTP server accepted (`opened`) and those still open (`open`). */
  connections: ConnectionCounts;
  /** Stops serving (in-flight requests finish) and makes the state durable. */
  close(): Promise<void>;
}

/** Counted from the HTTP server's `connection` events; `inject` opens none. */
export interface ConnectionCounts {
  opened: number;
  open: number;
}

/**
 * Builds the emulator without listening, so tests can `inject` or listen on a port of their own.
 */
export function buildEmulator(options: EmulatorOptions = {}): Emulator {
  const dialect = options.dialect ?? DEFAULT_DIALECT;
  if (!isDialect(dialect)) throw new Error(`dialect: "${String(dialect)}" must be one of ${DIALECTS.join(', ')}`);
  const vendor = options.vendor ?? DIALECT_DEFAULT_VENDOR[dialect];
  if (!VENDOR_TOKEN_PATTERN.test(vendor)) {
    throw new Error(`vendor: "${vendor}" must be ${VENDOR_TOKEN_FORM}`);
  }
  const store = Store.open(options.dataDir ? { dataDir: options.dataDir } : {});
  const clock = new OffsetClock(store.get(clockState, 'clock')?.offset_ms ?? 0, options.now);
  const credentials: EmulatorContext['credentials'] = {
    tokens: options.tokens?.length ? options.tokens : ['dev-token'],
  };
  if (options.email !== undefined) credentials.email = options.email;
  if (options.key !== undefined) credentials.key = options.key;
  const ctx: EmulatorContext = { store, clock, vendor, dialect, credentials };
  const rate = options.apiRateLimit ?? DEFAULT_API_RATE_LIMIT;
  if (rate !== 'off' && !(isWholeFromOne(rate.limit) && isWholeFromOne(rate.windowSeconds))) {
    throw new Error(
      `apiRateLimit: ${JSON.stringify(rate)} must be {limit, windowSeconds}, two whole numbers from 1, or "off" (the command line's ${API_RATE_LIMIT_FORM})`,
    );
  }
  const rateLimiter = rate === 'off' ? undefined : new ApiRateLimiter(rate, clock, store);

  const seed = options.seed ?? (store.isNew ? 'demo' : 'none');
  if (seed === 'demo') applySeed(ctx, demoSeed());
  else if (seed !== 'none') applySeed(ctx, seed);

  const log = new RequestLog();
  const faults = new Faults();
  const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024 });
  // Spec 4: request bodies are JSON. Fastify would otherwise hand a text/plain body to handlers as
  // a string; without its parser such a body gets the contract's 415 like any other non-JSON one.
  app.removeContentTypeParser('text/plain');
  acceptEmptyJsonOnReads(app);

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    const { status, entries, headers } = describeError(error, request);
    void reply.code(status).headers(headers).send(failure(entries));
  });
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send(
        failure([{ code: ErrorCode.noRoute, message: `no route for ${request.method} ${request.url.split('?')[0]}` }]),
      );
  });

  instrumentApi(app, ctx, log, faults, rateLimiter);

  const connections: ConnectionCounts = { opened: 0, open: 0 };
  app.server.on('connection', (socket: Socket) => {
    connections.opened++;
    connections.open++;
    socket.once('close', () => void connections.open--);
  });

  void app.register(
    async (api) => {
      registerPageSecurity(api, ctx);
      registerCustomHostnames(api, ctx);
      registerLoadBalancing(api, ctx);
      registerNotifications(api, ctx);
    },
    { prefix: API_PREFIX },
  );
  void app.register(
    async (control) =>
      registerControl(control, { ctx, log, faults, rateLimiter, connections, adminToken: options.adminToken }),
    {
      prefix: '/__emulator',
    },
  );

  let closed = false;
  return {
    app,
    ctx,
    log,
    faults,
    rateLimiter,
    connections,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      rateLimiter?.persist(store);
      store.close();
    },
  };
}

interface DescribedError {
  status: number;
  entries: { code: number; message: string }[];
  headers: Record<string, string>;
}

/** Every error becomes the contract's envelope here, and only here. */
function describeError(error: FastifyError | ApiError, request: FastifyRequest): DescribedError {
  if (error instanceof ApiError) return { status: error.status, entries: error.errors, headers: { ...error.headers } };
  const fastifyError = error;
  const one = (status: number, code: number, message: string): DescribedError => ({
    status,
    entries: [{ code, message }],
    headers: {},
  });
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return one(
        415,
        ErrorCode.unsupportedMediaType,
        `Content-Type: must be application/json (got "${request.headers['content-type'] ?? ''}")`,
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return one(400, ErrorCode.malformedBody, 'body: empty, but Content-Type says JSON; send a JSON object');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return one(413, ErrorCode.bodyTooLarge, 'body: larger than the emulator accepts');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return one(400, ErrorCode.malformedBody, 'Content-Length: does not match the body');
    default:
      break;
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    const malformedJson = fastifyError instanceof SyntaxError || /JSON/i.test(fastifyError.message);
    if (malformedJson) return one(400, ErrorCode.malformedBody, `body: malformed JSON (${fastifyError.message})`);
    return one(status, ErrorCode.invalidInput, fastifyError.message);
  }
  process.stderr.write(
    `edgeguard-emulator: internal error on ${request.method} ${request.url.split('?')[0]}: ${fastifyError.stack ?? fastifyError.message}\n`,
  );
  return one(500, ErrorCode.internal, 'internal error in the emulator');
}

/** Methods whose requests carry no body: a JSON content type without one is not an error on them. */
const BODILESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'DELETE']);

/**
 * The vendor's examples (and its SDK) send `Content-Type: application/json` on every call, a GET or
 * a DELETE included, with no body (issue 42). Fastify's JSON parser refuses an empty body it is
 * told is JSON; on those methods the empty body is taken as no body, and any other is parsed as
 * before (a PUT, POST or PATCH with an empty JSON body stays a 400 naming `body`).
 */
function acceptEmptyJsonOnReads(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0 && BODILESS_METHODS.has(request.method)) {
      done(null, undefined);
      return;
    }
    void parseJson(request, String(body), done);
  });
}

function isWholeFromOne(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 1;
}

/**
 * Request log, API rate limit and fault injection for API requests (not the control API). The
 * limit comes before the faults: an injected failure is an answered call, and counts.
 */
function instrumentApi(
  app: FastifyInstance,
  ctx: EmulatorContext,
  log: RequestLog,
  faults: Faults,
  rateLimiter: ApiRateLimiter | undefined,
): void {
  const started = new WeakMap<
    FastifyRequest,
    { at: number; realStart: number; reset: 'before' | 'after' | undefined }
  >();
  const isApi = (request: FastifyRequest) => request.url === API_PREFIX || request.url.startsWith(`${API_PREFIX}/`);
  const record = (request: FastifyRequest, status: number | null) => {
    const start = started.get(request);
    if (!start) return;
    const [path = ''] = request.url.split('?');
    log.add({
      method: request.method,
      path,
      query: { ...(request.query as Record<string, string | string[]> | undefined) },
      status,
      time: new Date(start.at).toISOString(),
      duration_ms: Math.round(performance.now() - start.realStart),
      credential:
        request.headers.authorization !== undefined
          ? 'token'
          : request.headers['x-auth-key'] !== undefined
            ? 'key'
            : 'none',
      content_type: request.headers['content-type'] ?? null,
      body: request.body ?? null,
    });
  };

  app.addHook('onRequest', async (request, reply) => {
    if (!isApi(request)) return;
    const at = ctx.clock.nowMs();
    const realStart = performance.now();
    const credential = rateLimiter === undefined ? undefined : rateLimitKey(ctx, request);
    const verdict = credential === undefined ? undefined : rateLimiter?.decide(credential);
    if (verdict?.allowed === false) {
      started.set(request, { at, realStart, reset: undefined });
      throw verdict.error;
    }
    if (verdict?.allowed) void reply.headers(verdict.headers);
    const apiPath = request.url.split('?')[0]!.slice(API_PREFIX.length + 1);
    const decision = faults.decide(request.method, apiPath);
    started.set(request, { at, realStart, reset: decision.reset });
    if (decision.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, decision.latencyMs));
    if (decision.reset === 'before') {
      record(request, null);
      reply.hijack();
      request.raw.socket.destroy();
      return;
    }
    if (decision.error !== undefined) {
      throw new ApiError(decision.error, [
        { code: ErrorCode.internal, message: `injected fault: HTTP ${decision.error}` },
      ]);
    }
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (started.get(request)?.reset === 'after') {
      record(request, null);
      started.delete(request);
      request.raw.socket.destroy();
    }
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    record(request, reply.statusCode);
  });
}
