import { HttpClient } from './http';
import { Pacer } from './pacing';
import { resolveSettings, type Settings, type SettingsSources } from '../settings';

/**
 * The one place that turns settings into a client, for the resources' runtimes, the read helpers
 * and the tools. One client per distinct settings for the life of the process, so every caller
 * with the same settings shares its keep-alive connections; and one pacer for all of them, since
 * the service counts custom hostname creates per zone whoever sends them. A provider plugin's
 * instance is the exception: it gets a client and a pacer of its own ({@link instanceClient}).
 */

const pacer = new Pacer();
const clients = new Map<string, HttpClient>();

/** The process's client for `settings`. */
export function clientFor(settings: Settings): HttpClient {
  const key = JSON.stringify(settings);
  let client = clients.get(key);
  if (client === undefined) {
    client = new HttpClient(settings, { pacer });
    clients.set(key, client);
  }
  return client;
}

/** The process's client for the settings `sources` resolve to (a `SettingsError` names what to set). */
export function clientFrom(sources: SettingsSources = {}): HttpClient {
  return clientFor(resolveSettings(sources));
}

/**
 * A client of its own, with a pacer of its own, for one provider instance of the provider plugin:
 * each explicit provider of a program stands for its own credential (another account, or a token
 * limited to other zones), so a window filled by one must not hold back another.
 */
export function instanceClient(settings: Settings): HttpClient {
  return new HttpClient(settings, { pacer: new Pacer() });
}
