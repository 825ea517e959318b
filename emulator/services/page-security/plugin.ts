import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { LIST_PAGE_BOUNDS, PAGE_SECURITY_SEGMENT, type Dialect } from '../../../rules/dialect';
import { parseCspValue } from '../../../rules/csp';
import { parsePolicyExpression } from '../../../rules/expression';
import { choice, expecting, policyDescriptionField, ruleField } from '../../../rules/zod';
import { isoTime } from '../../core/clock';
import { ErrorCode, notFound } from '../../core/errors';
import { newId } from '../../core/ids';
import { successBody } from '../../core/envelope';
import { pageInfo, pageQuery, wholeListInfo } from '../../core/pagination';
import { routes, type Handled } from '../../core/routing';
import { ServedPages } from '../../core/served-pages';
import type { Collection } from '../../core/store';
import { requireZone, type EmulatorContext, type Zone } from '../../core/tenancy';
import { bodyObject, parseBody, parseQuery, pathId } from '../../core/validation';
import {
  connections,
  connectionView,
  cookies,
  cookieView,
  DETECTED_STATUSES,
  VENDOR_DETECTED_STATUSES,
  policies,
  POLICY_ACTIONS,
  policyView,
  scriptDetailView,
  scriptListView,
  scripts,
  settings,
  settingsView,
  vendorCookieView,
  vendorDetectedView,
  vendorPolicyView,
  VENDOR_POLICY_ACTIONS,
  type ConnectionRecord,
  type DetectedRecord,
  type PolicyRecord,
  type ScriptRecord,
  type SettingsRecord,
} from './records';
import { DetectedOrder } from './detected-order';
import { detectedFilterShape, refinementOf, type DetectedFilterQuery, type ListRefinement } from './list-filters';

/**
 * Page security (spec 2.2 to 2.6, 4; contract "Page security"): the zone's settings, the scripts,
 * connections and cookies it detected (read-only here; they come from seeds), and CSP policies.
 * Every operation requires an API token (spec 5.3). In the vendor's dialect (contract, "Two
 * dialects") the path segment is `page_shield`, lists are bounded to its `per_page`, policies show
 * `enabled` as a boolean, take its actions and partial updates and are deleted with a 204, and the
 * objects show only the fields its schema declares; the rules and filters are the same.
 */

type Params = Record<string, string | undefined>;

const settingsBody = z.object({
  enabled: z.boolean(expecting('a JSON boolean, true or false')),
});

/** The vendor's settings body: each of its three flags optional (its `PageShieldUpdateParams`). */
function vendorSettingsBody(vendor: string) {
  const flag = z.boolean(expecting('a JSON boolean, true or false')).optional();
  return z.object({ enabled: flag, [`use_${vendor}_reporting_endpoint`]: flag, use_connection_url_path: flag });
}

/**
 * The vendor's `status`: a comma-separated list of its statuses (`active`, `infrequent`, `inactive`,
 * which no object here has), each checked as the spec's one value is.
 */
const vendorStatuses = z
  .string({ error: 'must be given once, as a comma-separated list of statuses' })
  .transform((text) => text.split(',').map((item) => item.trim()))
  .pipe(z.array(choice(VENDOR_DETECTED_STATUSES, 'the status of the objects to list')).min(1));

/** Spec 4: a list's query; cookies are filtered by exact `hosts` alone. */
function listQueryOf(dialect: Dialect) {
  return pageQuery(20, LIST_PAGE_BOUNDS[dialect].pageSecurity).extend({
    status: (dialect === 'vendor'
      ? vendorStatuses
      : choice(DETECTED_STATUSES, 'the status of the objects to list')
    ).optional(),
    hosts: detectedFilterShape.hosts,
  });
}

/** The queries of a dialect: a list's, and (contract) the scripts' and connections' with the vendor's filters too. */
function listQueriesOf(dialect: Dialect) {
  const list = listQueryOf(dialect);
  return { list, filtered: list.extend(detectedFilterShape) };
}

const LIST_QUERIES: Record<Dialect, ReturnType<typeof listQueriesOf>> = {
  spec: listQueriesOf('spec'),
  vendor: listQueriesOf('vendor'),
};

/** Spec 2.6 / contract: the create body, which PUT takes whole as well (in `vendor`, over the policy). */
function policyBodyOf(dialect: Dialect) {
  return z.object({
    description: policyDescriptionField(),
    action:
      dialect === 'vendor'
        ? choice(VENDOR_POLICY_ACTIONS, 'the policy action')
        : choice(POLICY_ACTIONS, 'the policy action'),
    expression: ruleField(
      parsePolicyExpression,
      'the requests the policy covers, as in http.host eq "shop.example.com"',
    ),
    // The vendor's schema declares a JSON boolean; the spec's string is refused there.
    enabled: (dialect === 'vendor'
      ? z.boolean(expecting('a JSON boolean, true or false'))
      : z.union([z.enum(['true', 'false']), z.boolean()], expecting('"true" or "false", as a string or a JSON boolean'))
    )
      .optional()
      .transform((enabled): PolicyRecord['enabled'] =>
        enabled === undefined || enabled === true || enabled === 'true' ? 'true' : 'false',
      ),
    value: ruleField(parseCspValue, "the CSP directive, as in script-src 'self' cdn.example.com"),
  });
}

/** Spec 2.2: the settings of a zone never written. */
function defaultSettings(zone: Zone): SettingsRecord {
  return {
    zone_id: zone.id,
    enabled: false,
    updated_at: zone.created_on,
    use_reporting_endpoint: true,
    use_connection_url_path: false,
  };
}

/**
 * A view of a detected object as JSON text, kept as long as the object is stored: the store
 * replaces an object on every change (it copies on write), so a kept text is never stale. Paging
 * a detected list served each object's view built and serialized anew at every request (about
 * 1 ms a page of 1,000 connections, most of the emulator's time in a review of 50,000 + 50,000);
 * a page built again now costs the join of its texts (and one asked again, nothing: {@link ServedPages}).
 */
function keptJson<T extends object>(view: (record: T) => unknown): (record: T) => string {
  const kept = new WeakMap<T, string>();
  return (record) => {
    let json = kept.get(record);
    if (json === undefined) {
      json = JSON.stringify(view(record));
      kept.set(record, json);
    }
    return json;
  };
}

/** Bytes of list pages each detected list keeps ({@link ServedPages}): a listing of 200,000 scripts is 140 MB. */
const SERVED_PAGES_BYTES = 192 * 2 ** 20;

/**
 * Spec 3 and 4: only active objects unless `status` says otherwise; oldest first, then by id. With
 * `refine` (scripts and connections), the contract's filters and order apply before paging.
 */
function listDetected<T extends DetectedRecord>(
  ctx: EmulatorContext,
  request: FastifyRequest,
  order: DetectedOrder<T>,
  served: ServedPages,
  json: (record: T) => string,
  refine?: (query: DetectedFilterQuery) => ListRefinement<T>,
): Handled {
  const zone = requireZone(ctx, request, (request.params as Params).zone_id, { tokenOnly: true });
  const queries = LIST_QUERIES[ctx.dialect];
  const query = parseQuery(refine ? queries.filtered : queries.list, request.query);
  const refinement = refine?.(query);
  const hosts = refinement ? refinement.hosts : new Set((query.hosts ?? []).map((host) => host.toLowerCase()));
  return {
    body: served.body(order.version, request.url, () => {
      const { items, total } = order.page(
        zone.id,
        query.status ?? 'active',
        hosts ?? new Set(),
        query.page,
        query.per_page,
        refinement,
      );
      return successBody(`[${items.map(json).join(',')}]`, pageInfo(query.page, query.per_page, items.length, total));
    }),
  };
}

/** One detected object of the zone, or a 404 with the kind's code. */
function getDetected<T extends DetectedRecord>(
  ctx: EmulatorContext,
  request: FastifyRequest,
  collection: Collection<T>,
  idParam: string,
  kind: string,
  code: number,
): T {
  const params = request.params as Params;
  const zone = requireZone(ctx, request, params.zone_id, { tokenOnly: true });
  const id = pathId(params[idParam], idParam);
  const record = ctx.store.get(collection, id);
  if (!record || record.zone_id !== zone.id) throw notFound(kind, id, code);
  return record;
}

/** The zone's policy named by the path, or a 404. */
function getPolicy(ctx: EmulatorContext, request: FastifyRequest): PolicyRecord {
  const params = request.params as Params;
  const zone = requireZone(ctx, request, params.zone_id, { tokenOnly: true });
  const id = pathId(params.policy_id, 'policy_id');
  const record = ctx.store.get(policies, id);
  if (!record || record.zone_id !== zone.id) throw notFound('policy', id, ErrorCode.policyNotFound);
  return record;
}

/** Registers the page security routes on `app` (mounted under the API prefix). */
export function registerPageSecurity(app: FastifyInstance, ctx: EmulatorContext): void {
  const vendorDialect = ctx.dialect === 'vendor';
  const PREFIX = `/zones/:zone_id/${PAGE_SECURITY_SEGMENT[ctx.dialect]}`;
  const policyBody = policyBodyOf(ctx.dialect);
  const showPolicy = (record: PolicyRecord): unknown => (vendorDialect ? vendorPolicyView(record) : policyView(record));
  const scriptsOrder = new DetectedOrder(ctx.store, scripts);
  const connectionsOrder = new DetectedOrder(ctx.store, connections);
  const cookiesOrder = new DetectedOrder(ctx.store, cookies);
  routes(app, PREFIX, {
    GET: (request) => {
      const zone = requireZone(ctx, request, (request.params as Params).zone_id, { tokenOnly: true });
      const record = ctx.store.get(settings, zone.id) ?? defaultSettings(zone);
      return { result: settingsView(record, ctx.vendor) };
    },
    PUT: (request) => {
      const zone = requireZone(ctx, request, (request.params as Params).zone_id, { tokenOnly: true });
      const current = ctx.store.get(settings, zone.id) ?? defaultSettings(zone);
      if (vendorDialect) {
        // The vendor's update: any of its three flags, the others kept; the answer is the whole settings.
        const body = parseBody(vendorSettingsBody(ctx.vendor), request.body) as Record<string, boolean | undefined>;
        const updated: SettingsRecord = {
          ...current,
          enabled: body.enabled ?? current.enabled,
          use_reporting_endpoint: body[`use_${ctx.vendor}_reporting_endpoint`] ?? current.use_reporting_endpoint,
          use_connection_url_path: body.use_connection_url_path ?? current.use_connection_url_path,
          updated_at: isoTime(ctx.clock.nowMs()),
        };
        ctx.store.write((tx) => tx.put(settings, zone.id, updated));
        return { result: settingsView(updated, ctx.vendor) };
      }
      const { enabled } = parseBody(settingsBody, request.body);
      const updated: SettingsRecord = { ...current, enabled, updated_at: isoTime(ctx.clock.nowMs()) };
      ctx.store.write((tx) => tx.put(settings, zone.id, updated));
      return { result: { enabled: updated.enabled, updated_at: updated.updated_at } };
    },
  });

  const scriptPages = new ServedPages(SERVED_PAGES_BYTES);
  const connectionPages = new ServedPages(SERVED_PAGES_BYTES);
  const cookiePages = new ServedPages(SERVED_PAGES_BYTES);
  const scriptJson = keptJson(
    vendorDialect ? (record: ScriptRecord) => vendorDetectedView(scriptListView(record)) : scriptListView,
  );
  const connectionJson = keptJson(
    vendorDialect ? (record: ConnectionRecord) => vendorDetectedView(connectionView(record)) : connectionView,
  );
  const cookieJson = keptJson(vendorDialect ? vendorCookieView : cookieView);
  const scriptDetail = (record: ScriptRecord) =>
    vendorDialect ? vendorDetectedView(scriptDetailView(record)) : scriptDetailView(record);
  const connectionDetail = (record: ConnectionRecord) =>
    vendorDialect ? vendorDetectedView(connectionView(record)) : connectionView(record);
  const cookieDetail = vendorDialect ? vendorCookieView : cookieView;
  routes(app, `${PREFIX}/scripts`, {
    GET: (request) => listDetected(ctx, request, scriptsOrder, scriptPages, scriptJson, refinementOf),
  });
  routes(app, `${PREFIX}/scripts/:script_id`, {
    GET: (request) => ({
      result: scriptDetail(getDetected(ctx, request, scripts, 'script_id', 'script', ErrorCode.scriptNotFound)),
    }),
  });
  routes(app, `${PREFIX}/connections`, {
    GET: (request) => listDetected(ctx, request, connectionsOrder, connectionPages, connectionJson, refinementOf),
  });
  routes(app, `${PREFIX}/connections/:connection_id`, {
    GET: (request) => ({
      result: connectionDetail(
        getDetected(ctx, request, connections, 'connection_id', 'connection', ErrorCode.connectionNotFound),
      ),
    }),
  });
  routes(app, `${PREFIX}/cookies`, {
    GET: (request) => listDetected(ctx, request, cookiesOrder, cookiePages, cookieJson),
  });
  routes(app, `${PREFIX}/cookies/:cookie_id`, {
    GET: (request) => ({
      result: cookieDetail(getDetected(ctx, request, cookies, 'cookie_id', 'cookie', ErrorCode.cookieNotFound)),
    }),
  });

  routes(app, `${PREFIX}/policies`, {
    GET: (request) => {
      const zone = requireZone(ctx, request, (request.params as Params).zone_id, { tokenOnly: true });
      const list = ctx.store.list(policies).filter((policy) => policy.zone_id === zone.id);
      return { result: list.map(showPolicy), resultInfo: wholeListInfo(list.length) };
    },
    POST: (request) => {
      const zone = requireZone(ctx, request, (request.params as Params).zone_id, { tokenOnly: true });
      const body = parseBody(policyBody, request.body);
      const record: PolicyRecord = { zone_id: zone.id, id: newId(), ...body };
      ctx.store.write((tx) => tx.put(policies, record.id, record));
      return { result: showPolicy(record) };
    },
  });
  routes(app, `${PREFIX}/policies/:policy_id`, {
    GET: (request) => ({ result: showPolicy(getPolicy(ctx, request)) }),
    PUT: (request) => {
      const current = getPolicy(ctx, request);
      // The vendor's update takes any of the fields (its `PolicyUpdateParams`), the others kept.
      const given = vendorDialect
        ? { ...policyView(current), enabled: current.enabled === 'true', ...bodyObject(request.body) }
        : request.body;
      const body = parseBody(policyBody, given);
      const record: PolicyRecord = { zone_id: current.zone_id, id: current.id, ...body };
      ctx.store.write((tx) => tx.put(policies, record.id, record));
      return { result: showPolicy(record) };
    },
    DELETE: (request) => {
      const current = getPolicy(ctx, request);
      ctx.store.write((tx) => tx.delete(policies, current.id));
      // The vendor answers a policy's delete with 204 and no body.
      return vendorDialect ? { noContent: true } : { result: { id: current.id } };
    },
  });
}
