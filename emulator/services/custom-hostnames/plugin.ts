import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { COMMON_NAME_LIMIT } from '../../../rules/hostname';
import { isoTime } from '../../core/clock';
import { ApiError, ErrorCode, invalidField, notFound } from '../../core/errors';
import { newId } from '../../core/ids';
import { paginate } from '../../core/pagination';
import { routes } from '../../core/routing';
import type { Transaction } from '../../core/store';
import { requireZone, type EmulatorContext, type Zone } from '../../core/tenancy';
import { parseBody, parseQuery, pathId } from '../../core/validation';
import { dnsRecords, zoneHolds } from '../../core/world';
import { decideIssuance } from './issuance';
import {
  byCreationThenId,
  customHostnames,
  customHostnameView,
  issuance,
  vendorCustomHostnameView,
  ownershipRecordName,
  type Judgement,
  type StoredCustomHostname,
} from './records';
import {
  createBody,
  listQuery,
  parseBranding,
  patchBody,
  vendorCreateBody,
  vendorListQuery,
  vendorPatchBody,
} from './schemas';
import { dnsLookup, evaluateCustomHostname } from './validation';

/**
 * Custom hostnames (spec 2.9, 3, 4, 7, 8; contract "Custom hostnames (zone level)"). Zone level;
 * both credential kinds are accepted. The status is judged on every read against the DNS and zone
 * holds published through the control API, and what the judgement must remember (validation,
 * the time a hostname was first seen moved, deletion 7 days later) is persisted as it happens.
 */

type ZoneParams = { zone_id: string };
type HostnameParams = ZoneParams & { custom_hostname_id: string };

/** A live record as judged now, with the stored form to write back when the judgement changed it. */
interface Judged {
  record: StoredCustomHostname;
  judgement: Judgement;
  changed: boolean;
}

/** The judgement of several records: the live ones and those whose 7 days in `moved` are over. */
interface Judgements {
  live: Judged[];
  expired: string[];
}

/** Registers the custom hostname routes under `zones/:zone_id/custom_hostnames`. */
export function registerCustomHostnames(app: FastifyInstance, ctx: EmulatorContext): void {
  const vendorDialect = ctx.dialect === 'vendor';
  const brandingField = `${ctx.vendor}_branding`;
  const brandingName = vendorDialect ? `ssl.${brandingField}` : brandingField;
  const view = ({ record, judgement }: Judged): unknown =>
    vendorDialect
      ? vendorCustomHostnameView(record, judgement, ctx.vendor)
      : customHostnameView(record, judgement, ctx.vendor);

  const judge = (zone: Zone, records: readonly StoredCustomHostname[], nowMs: number): Judgements => {
    const dns = dnsLookup(ctx.store.list(dnsRecords));
    const holds = ctx.store.list(zoneHolds);
    const out: Judgements = { live: [], expired: [] };
    for (const record of records) {
      const evaluation = evaluateCustomHostname({ record, zoneName: zone.name, dns, holds, nowMs });
      if (evaluation.deleted) out.expired.push(record.id);
      else if (evaluation.changes)
        out.live.push({ record: { ...record, ...evaluation.changes }, judgement: evaluation.judgement, changed: true });
      else out.live.push({ record, judgement: evaluation.judgement, changed: false });
    }
    return out;
  };

  const persist = (tx: Transaction, judgements: Judgements) => {
    for (const id of judgements.expired) tx.delete(customHostnames, id);
    for (const judged of judgements.live) if (judged.changed) tx.put(customHostnames, judged.record.id, judged.record);
  };

  /** The record of the path in this zone, or 404 (also for a record of another zone). */
  const existing = (zone: Zone, rawId: unknown): StoredCustomHostname => {
    const id = pathId(rawId, 'custom_hostname_id');
    const record = ctx.store.get(customHostnames, id);
    if (!record || record.zone_id !== zone.id) throw notFound('custom hostname', id, ErrorCode.customHostnameNotFound);
    return record;
  };

  /** Judges one record, persists what that changed, and answers 404 if it turned out to be gone. */
  const judgeOne = (zone: Zone, record: StoredCustomHostname): Judged => {
    const judgements = judge(zone, [record], ctx.clock.nowMs());
    ctx.store.write((tx) => persist(tx, judgements));
    const [judged] = judgements.live;
    if (!judged) throw notFound('custom hostname', record.id, ErrorCode.customHostnameNotFound);
    return judged;
  };

  /** A record whose 7 days in `moved` are over is deleted now and answered as 404. */
  const refuseExpired = (zone: Zone, record: StoredCustomHostname, nowMs: number): void => {
    const judgements = judge(zone, [record], nowMs);
    if (judgements.expired.length === 0) return;
    ctx.store.write((tx) => persist(tx, judgements));
    throw notFound('custom hostname', record.id, ErrorCode.customHostnameNotFound);
  };

  /** Judges a record never seen moved (new, or with validation restarted), which cannot have expired. */
  const judgeFresh = (zone: Zone, record: StoredCustomHostname, nowMs: number): Judged => {
    const [judged] = judge(zone, [record], nowMs).live;
    if (!judged) throw new Error(`custom hostname ${record.id} was judged expired without ever having been moved`);
    return judged;
  };

  routes(app, '/zones/:zone_id/custom_hostnames', {
    GET: (request: FastifyRequest) => {
      const zone = requireZone(ctx, request, (request.params as ZoneParams).zone_id);
      const query: {
        page: number;
        per_page: number;
        hostname?: string | undefined;
        'hostname.exact'?: string | undefined;
      } = parseQuery(vendorDialect ? vendorListQuery : listQuery, request.query);
      const wanted = (query['hostname.exact'] ?? query.hostname)?.toLowerCase();
      const candidates = ctx.store
        .list(customHostnames)
        .filter((r) => r.zone_id === zone.id && (wanted === undefined || r.hostname === wanted));
      const judgements = judge(zone, candidates, ctx.clock.nowMs());
      ctx.store.write((tx) => persist(tx, judgements));
      const ordered = [...judgements.live].sort((a, b) => byCreationThenId(a.record, b.record));
      const page = paginate(ordered, query.page, query.per_page);
      return { result: page.items.map(view), resultInfo: page.resultInfo };
    },

    POST: (request: FastifyRequest) => {
      const zone = requireZone(ctx, request, (request.params as ZoneParams).zone_id);
      const body = parseBody(vendorDialect ? vendorCreateBody : createBody, request.body);
      const branding = parseBranding(request.body, brandingField, ctx.dialect);
      if (body.hostname.length > COMMON_NAME_LIMIT && !branding) {
        throw invalidField(
          'hostname',
          `"${body.hostname}" is ${body.hostname.length} characters long, over the ${COMMON_NAME_LIMIT}-character limit of a certificate Common Name (RFC 5280); set ${brandingName} to true to put a shared service hostname in the Common Name and this hostname in the Subject Alternative Name`,
          ErrorCode.hostnameTooLong,
        );
      }

      const nowMs = ctx.clock.nowMs();
      const decision = decideIssuance(ctx.store.get(issuance, zone.id), zone.id, nowMs);
      if (!decision.allowed) {
        const { blockStarted } = decision;
        if (blockStarted) ctx.store.write((tx) => tx.put(issuance, zone.id, blockStarted));
        throw decision.error;
      }

      const sameName = judge(
        zone,
        ctx.store.list(customHostnames).filter((r) => r.zone_id === zone.id && r.hostname === body.hostname),
        nowMs,
      );
      const [duplicate] = sameName.live;
      if (duplicate) {
        throw new ApiError(409, [
          {
            code: ErrorCode.duplicateCustomHostname,
            message: `hostname: ${body.hostname} already exists in this zone as custom hostname ${duplicate.record.id}`,
          },
        ]);
      }

      const record: StoredCustomHostname = {
        id: newId(),
        zone_id: zone.id,
        hostname: body.hostname,
        ssl: body.ssl,
        branding,
        ownership_verification: {
          type: 'txt',
          name: ownershipRecordName(ctx.vendor, body.hostname),
          value: randomUUID(),
        },
        created_at: isoTime(nowMs),
        validated_ca: null,
        moved_at_ms: null,
      };
      const judged = judgeFresh(zone, record, nowMs);
      ctx.store.write((tx) => {
        for (const id of sameName.expired) tx.delete(customHostnames, id);
        tx.put(issuance, zone.id, decision.afterCreate);
        tx.put(customHostnames, judged.record.id, judged.record);
      });
      return { result: view(judged) };
    },
  });

  routes(app, '/zones/:zone_id/custom_hostnames/:custom_hostname_id', {
    GET: (request: FastifyRequest) => {
      const params = request.params as HostnameParams;
      const zone = requireZone(ctx, request, params.zone_id);
      return { result: view(judgeOne(zone, existing(zone, params.custom_hostname_id))) };
    },

    PATCH: (request: FastifyRequest) => {
      const params = request.params as HostnameParams;
      const zone = requireZone(ctx, request, params.zone_id);
      const record = existing(zone, params.custom_hostname_id);
      const { ssl } = parseBody(vendorDialect ? vendorPatchBody : patchBody, request.body);
      const nowMs = ctx.clock.nowMs();
      refuseExpired(zone, record, nowMs);
      // Spec 3/4: an edit restarts validation, so what was validated (or seen moved) is forgotten.
      const restarted: StoredCustomHostname = {
        ...record,
        ssl: {
          method: ssl?.method ?? record.ssl.method,
          type: ssl?.type ?? record.ssl.type,
          certificate_authority: ssl?.certificate_authority ?? record.ssl.certificate_authority,
        },
        validated_ca: null,
        moved_at_ms: null,
      };
      const judged = judgeFresh(zone, restarted, nowMs);
      ctx.store.write((tx) => tx.put(customHostnames, judged.record.id, judged.record));
      return { result: view(judged) };
    },

    DELETE: (request: FastifyRequest) => {
      const params = request.params as HostnameParams;
      const zone = requireZone(ctx, request, params.zone_id);
      const record = existing(zone, params.custom_hostname_id);
      refuseExpired(zone, record, ctx.clock.nowMs());
      ctx.store.write((tx) => tx.delete(customHostnames, record.id));
      // The vendor answers a custom hostname's delete with a bare `{id}`, no envelope.
      return vendorDialect ? { bare: { id: record.id } } : { result: { id: record.id } };
    },
  });
}
