import { EdgeGuardError } from '../client/errors';
import type { HttpClient } from '../client/http';
import type { Pool } from '../client/load-balancing';
import { DETECTED_STATUSES } from '../client/detected-statuses';
import type { Connection, Cookie, FilteredListParams, Script, ScriptDetail } from '../client/page-security';
import { isMaliciousScore } from '../../rules/malicious';
import type { SettingName } from '../settings';
import { clientLayer, type ClientLayer } from './lazy-client';

/**
 * Read helpers: plain async functions over what page security detected, for any program or
 * script (dynamic providers cannot serve invokes). Each takes optional settings as its last
 * parameter; whatever they leave out comes from the environment (`EDGEGUARD_*`). They load the
 * client at their first call (`lazy-client.ts`).
 */

export type { Connection, Cookie, Script, ScriptDetail, ScriptVersion } from '../client/page-security';
export type { Pool } from '../client/load-balancing';

/** Spec 1.2 and 8: a script whose `js_integrity_score` is below this is malicious (`rules/malicious.ts`). */
export { MALICIOUS_SCORE_THRESHOLD } from '../../rules/malicious';

/**
 * Explicit settings, by their names in the settings table (`SETTINGS` of `provider/settings.ts`:
 * `baseUrl`, `apiToken`, `apiEmail`, `apiKey`, `vendor`, ...); each one left out is read from the
 * environment (`EDGEGUARD_*`), then its default.
 */
export type ReadSettings = Partial<Record<SettingName, string>>;

/**
 * Options of the list helpers: the service's filters. Unlike the service, the helpers keep the
 * items under `/cdn-cgi/` unless `excludeCdnCgi` is `true`: a policy written from what they list
 * must allow those too, or it breaks the page.
 */
export interface ListOptions extends FilteredListParams {
  /** Items per request. Default 100. */
  perPage?: number;
}

/** Options of {@link maliciousScripts}: every status is searched, so there is none to choose. */
export type MaliciousScriptsOptions = Omit<ListOptions, 'status'>;

const DEFAULT_PER_PAGE = 100;

/**
 * A read helper's failure as a person should read it. Besides the setting to check, it carries
 * the marker by which the Pulumi SDK recognises a `RunError` (across SDK versions): a failure
 * that a program step does not handle is then printed as its message alone, instead of a stack
 * and a dump of the error's properties. Outside a Pulumi program the marker does nothing.
 */
function forProgram(error: unknown, layer: ClientLayer): unknown {
  layer.withSettingHint(error);
  if (error instanceof EdgeGuardError) Object.defineProperty(error, '__pulumiRunError', { value: true });
  return error;
}

/** `call` with the client for `settings`, its failure made {@link forProgram}. */
async function read<T>(
  settings: ReadSettings | undefined,
  call: (client: HttpClient, layer: ClientLayer) => Promise<T>,
): Promise<T> {
  const layer = clientLayer();
  try {
    return await call(layer.clientFrom({ explicit: settings ?? {} }), layer);
  } catch (error) {
    throw forProgram(error, layer);
  }
}

/** {@link read} for a paged list. */
async function* readEach<T>(
  settings: ReadSettings | undefined,
  list: (client: HttpClient, layer: ClientLayer) => AsyncGenerator<T>,
): AsyncGenerator<T> {
  const layer = clientLayer();
  try {
    yield* list(layer.clientFrom({ explicit: settings ?? {} }), layer);
  } catch (error) {
    throw forProgram(error, layer);
  }
}

function perPageOf(options: ListOptions): number {
  const perPage = options.perPage ?? DEFAULT_PER_PAGE;
  if (!Number.isInteger(perPage) || perPage < 1)
    throw new RangeError(`perPage must be a whole number of at least 1 (got ${perPage})`);
  return perPage;
}

/**
 * Every script detected on the zone, fetched page by page as the loop advances
 * (`for await (const script of listScripts(zoneId))`). Only `active` ones unless `status` says
 * otherwise (spec 3); `hosts` keeps scripts served from those hostnames.
 */
export async function* listScripts(
  zoneId: string,
  options: ListOptions = {},
  settings?: ReadSettings,
): AsyncGenerator<Script> {
  yield* readEach(settings, (client, { pageSecurity }) =>
    pageSecurity.listScripts(client, zoneId, { excludeCdnCgi: false, ...options }, perPageOf(options)),
  );
}

/** Every outgoing connection detected on the zone; options as for {@link listScripts}. */
export async function* listConnections(
  zoneId: string,
  options: ListOptions = {},
  settings?: ReadSettings,
): AsyncGenerator<Connection> {
  yield* readEach(settings, (client, { pageSecurity }) =>
    pageSecurity.listConnections(client, zoneId, { excludeCdnCgi: false, ...options }, perPageOf(options)),
  );
}

/** Every cookie detected on the zone; options as for {@link listScripts}. */
export async function* listCookies(
  zoneId: string,
  options: ListOptions = {},
  settings?: ReadSettings,
): AsyncGenerator<Cookie> {
  yield* readEach(settings, (client, { pageSecurity }) =>
    pageSecurity.listCookies(client, zoneId, options, perPageOf(options)),
  );
}

/** One script, with the pages it was seen on and its versions. A `NotFoundError` when there is none. */
export function getScript(zoneId: string, scriptId: string, settings?: ReadSettings): Promise<ScriptDetail> {
  return read(settings, (client, { pageSecurity }) => pageSecurity.getScript(client, zoneId, scriptId));
}

/** One connection. A `NotFoundError` when there is none. */
export function getConnection(zoneId: string, connectionId: string, settings?: ReadSettings): Promise<Connection> {
  return read(settings, (client, { pageSecurity }) => pageSecurity.getConnection(client, zoneId, connectionId));
}

/** One cookie. A `NotFoundError` when there is none. */
export function getCookie(zoneId: string, cookieId: string, settings?: ReadSettings): Promise<Cookie> {
  return read(settings, (client, { pageSecurity }) => pageSecurity.getCookie(client, zoneId, cookieId));
}

/**
 * Whether the script is malicious: its `js_integrity_score` is below
 * {@link MALICIOUS_SCORE_THRESHOLD} (spec 1.2; the API has no flag for it). A script without a
 * score (a plan without scores) is not.
 */
export function isMalicious(script: Pick<Script, 'js_integrity_score'>): boolean {
  return isMaliciousScore(script.js_integrity_score);
}

/** Every malicious script of the zone, of every status (active first, then infrequent). */
export async function maliciousScripts(
  zoneId: string,
  options: MaliciousScriptsOptions = {},
  settings?: ReadSettings,
): Promise<Script[]> {
  const found: Script[] = [];
  for (const status of DETECTED_STATUSES) {
    for await (const script of listScripts(zoneId, { ...options, status }, settings)) {
      if (isMalicious(script)) found.push(script);
    }
  }
  return found;
}

/**
 * Every load-balancing pool of the account, ordered by name (spec 4): for example the pool ids a
 * `HealthNotification` should cover.
 */
export function listPools(accountId: string, settings?: ReadSettings): Promise<Pool[]> {
  return read(settings, (client, { loadBalancing }) => loadBalancing.listPools(client, { accountId }));
}
