import type { FastifyInstance, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { isoTime } from '../core/clock';
import { ApiError, ErrorCode } from '../core/errors';
import { faultConfigSchema, type Faults } from '../core/faults';
import type { ApiRateLimiter } from '../core/rate-limit';
import { sha256Hex } from '../core/ids';
import type { RequestLog } from '../core/request-log';
import { routes } from '../core/routing';
import { zones, type EmulatorContext } from '../core/tenancy';
import { scriptDetailView } from '../services/page-security/records';
import { addScriptVersion, scriptVersionBody } from '../services/page-security/script-versions';
import { parseBody, parseQuery, pathId, queryInteger } from '../core/validation';
import { applySeed } from '../seed/seed';
import { clockState, dnsRecords, zoneHolds } from '../core/world';

/**
 * The control API of the contract, under `/__emulator/`: what tests and demos use to set the
 * world up (seed, DNS, zone holds, a detected script's new version), move time, inject faults and
 * read the request log. It is not part of the vendor API and is never logged or faulted.
 */

export interface ControlOptions {
  ctx: EmulatorContext;
  log: RequestLog;
  faults: Faults;
  /** The API rate limit's counts, which a reset forgets; `undefined` when the limit is off. */
  rateLimiter: ApiRateLimiter | undefined;
  /** The HTTP server's TCP connection counts (`GET /__emulator/connections`). */
  connections: { readonly opened: number; readonly open: number };
  /** When set, every control call needs `Authorization: Bearer <adminToken>`. */
  adminToken: string | undefined;
}

const hostnameSchema = z
  .string()
  .transform((s) => s.toLowerCase().replace(/\.$/, ''))
  .pipe(
    z
      .string()
      .regex(
        /^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/,
        'must be a DNS name like shop.example.com',
      ),
  );

const dnsBody = z
  .object({
    hostname: hostnameSchema,
    records: z
      .array(
        z
          .object({
            type: z.enum(['TXT', 'CNAME', 'CAA']),
            name: hostnameSchema.optional(),
            value: z.string().min(1).max(2048),
          })
          .strict(),
      )
      .max(100),
  })
  .strict();

const clockBody = z
  .object({
    advance_seconds: z
      .number()
      .min(0)
      .max(10 * 365 * 86400),
  })
  .strict();
const holdBody = z.object({ include_subdomains: z.boolean().default(false) }).strict();

export function registerControl(app: FastifyInstance, options: ControlOptions): void {
  const { ctx, log, faults, rateLimiter, connections, adminToken } = options;

  if (adminToken !== undefined) {
    const expected = Buffer.from(sha256Hex(adminToken));
    app.addHook('onRequest', async (request: FastifyRequest) => {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
      const given = Buffer.from(sha256Hex(match?.[1] ?? ''));
      if (!match || !timingSafeEqual(given, expected)) {
        throw new ApiError(401, [
          { code: ErrorCode.authentication, message: 'the control API requires "Authorization: Bearer <admin token>"' },
        ]);
      }
    });
  }

  routes(
    app,
    '/seed',
    { POST: (request) => ({ result: applySeed(ctx, request.body) }) },
    { bodyLimit: 512 * 1024 * 1024 },
  );

  routes(app, '/clock', {
    GET: () => ({ result: clockView(ctx) }),
    POST: (request) => {
      const { advance_seconds } = parseBody(clockBody, request.body);
      const offset = ctx.clock.offsetMs + Math.round(advance_seconds * 1000);
      ctx.store.write((tx) => tx.put(clockState, 'clock', { offset_ms: offset }));
      ctx.clock.offsetMs = offset;
      return { result: clockView(ctx) };
    },
  });

  routes(app, '/dns', {
    GET: () => ({ result: ctx.store.list(dnsRecords) }),
    POST: (request) => {
      const body = parseBody(dnsBody, request.body);
      const entry = {
        hostname: body.hostname,
        records: body.records.map((r) => ({ type: r.type, name: r.name ?? body.hostname, value: r.value })),
      };
      ctx.store.write((tx) =>
        entry.records.length > 0 ? tx.put(dnsRecords, body.hostname, entry) : tx.delete(dnsRecords, body.hostname),
      );
      return { result: entry };
    },
  });

  routes(app, '/zones/:zone_id/hold', {
    POST: (request) => {
      const zone = knownZone(ctx, (request.params as { zone_id: string }).zone_id);
      const { include_subdomains } = parseBody(holdBody, request.body ?? {});
      const hold = { zone_id: zone.id, zone_name: zone.name, include_subdomains };
      ctx.store.write((tx) => tx.put(zoneHolds, zone.id, hold));
      return { result: hold };
    },
    DELETE: (request) => {
      const zone = knownZone(ctx, (request.params as { zone_id: string }).zone_id);
      ctx.store.write((tx) => tx.delete(zoneHolds, zone.id));
      return { result: { zone_id: zone.id, held: false } };
    },
  });

  routes(app, '/zones/:zone_id/page_security/scripts/:script_id/versions', {
    POST: (request) => {
      const params = request.params as { zone_id: string; script_id: string };
      const zone = knownZone(ctx, params.zone_id);
      const body = parseBody(scriptVersionBody, request.body);
      return { result: scriptDetailView(addScriptVersion(ctx, zone, params.script_id, body)) };
    },
  });

  routes(app, '/faults', {
    GET: () => ({ result: faults.current ?? {} }),
    POST: (request) => {
      const config = parseBody(faultConfigSchema, request.body);
      faults.set(config);
      return { result: faults.current ?? {} };
    },
  });

  routes(app, '/requests', {
    GET: (request) => {
      const { since } = parseQuery(
        z.object({ since: queryInteger('since', 0, Number.MAX_SAFE_INTEGER).optional() }),
        request.query,
      );
      return { result: log.since(since), resultInfo: undefined };
    },
    DELETE: () => {
      log.clear();
      return { result: { cleared: true } };
    },
  });

  routes(app, '/connections', { GET: () => ({ result: { opened: connections.opened, open: connections.open } }) });

  routes(app, '/state', { GET: () => ({ result: ctx.store.dump() }) });

  routes(app, '/reset', {
    POST: () => {
      ctx.store.write((tx) => tx.clear());
      ctx.clock.offsetMs = 0;
      log.clear();
      rateLimiter?.clear();
      faults.set(faultConfigSchema.parse({}));
      return { result: { reset: true } };
    },
  });
}

function clockView(ctx: EmulatorContext): { now: string; offset_seconds: number } {
  return { now: isoTime(ctx.clock.nowMs()), offset_seconds: ctx.clock.offsetMs / 1000 };
}

function knownZone(ctx: EmulatorContext, raw: string) {
  const id = pathId(raw, 'zone_id');
  const zone = ctx.store.get(zones, id);
  if (!zone) throw new ApiError(404, [{ code: ErrorCode.invalidZoneOrAccount, message: `zone ${id} not found` }]);
  return zone;
}
