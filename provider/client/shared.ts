import { createHash } from 'node:crypto';
import { HttpClient } from './http';
import { ApiBudget, Pacer } from './pacing';
import { resolveSettings, type Settings, type SettingsSources } from '../settings';

/**
 * The one place that turns settings into a client, for the resources' runtimes, the read helpers
 * and the tools. One client per distinct settings for the life of the process, so every caller
 * with the same settings shares its keep-alive connections; one pacer for all of them, since the
 * service counts custom hostname creates per zone whoever sends them; and one API budget per
 * credential, since the service's API limit counts every call of a credential whatever its other
 * settings. A provider plugin's instance gets a client and a pacer of its own, and the budget of
 * its credential ({@link instanceClient}).
 */

/** Options of {@link clientFor} and {@link instanceClient}. */
export interface SharedClientOptions {
  /**
   * Where the one line about waiting for the API limit goes, when this call makes the credential's
   * budget (the first client of a credential decides). Default: stderr.
   */
  notice?: (line: string) => void;
}

const pacer = new Pacer();
const clients = new Map<string, HttpClient>();
const budgets = new Map<string, ApiBudget>();

/** The service and credential the API limit counts under, hashed so the key holds no secret. */
function credentialKey(settings: Settings): string {
  const { credentials } = settings;
  const who = credentials.kind === 'token' ? `token:${credentials.token}` : `email:${credentials.email.toLowerCase()}`;
  return createHash('sha256').update(`${settings.baseUrl}\n${who}`).digest('hex');
}

/** The process's API budget of the credential of `settings`, made (with `options.notice`) by its first caller. */
function budgetFor(settings: Settings, options: SharedClientOptions): ApiBudget {
  const key = credentialKey(settings);
  let budget = budgets.get(key);
  if (budget === undefined) {
    budget = new ApiBudget(undefined, undefined, options.notice);
    budgets.set(key, budget);
  }
  return budget;
}

/** The process's client for `settings`. */
export function clientFor(settings: Settings, options: SharedClientOptions = {}): HttpClient {
  const key = JSON.stringify(settings);
  let client = clients.get(key);
  if (client === undefined) {
    client = new HttpClient(settings, { pacer, budget: budgetFor(settings, options) });
    clients.set(key, client);
  }
  return client;
}

/** The process's client for the settings `sources` resolve to (a `SettingsError` names what to set). */
export function clientFrom(sources: SettingsSources = {}, options: SharedClientOptions = {}): HttpClient {
  return clientFor(resolveSettings(sources), options);
}

/**
 * A client of its own, with a pacer of its own, for one provider instance of the provider plugin,
 * and the API budget of its credential: the service counts a credential's calls whichever instance
 * sends them, so two instances on one token share one budget, and instances on other credentials
 * (another account, a token limited to other zones) have theirs, a window filled by one not holding
 * back another.
 */
export function instanceClient(settings: Settings, options: SharedClientOptions = {}): HttpClient {
  return new HttpClient(settings, { pacer: new Pacer(), budget: budgetFor(settings, options) });
}
