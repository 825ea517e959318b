import { EdgeGuardError } from '../client/errors';
import { hexIdSchema, hexOrUuidIdSchema } from '../runtime/check';
import type { PluginResource } from './resources';

/**
 * A resource's id in the plugin, which is also its import id: `<zoneId>/<policyId>` for a CSP
 * policy, `<zoneId>` for page security (see {@link PluginResource}). Both parts are the API's
 * 32-hexadecimal identifiers, taken in either case and kept in lower case, as the inputs are.
 */

const ID_PART = hexIdSchema('id');
const UUID_OR_ID_PART = hexOrUuidIdSchema('id');

/** An id that is not of its resource's form; the message shows the form. */
export class IdFormError extends EdgeGuardError {
  override name = 'IdFormError';
}

/** `<zoneId>/<policyId>`: the form of `entry`'s id, for messages and documentation. */
export function idForm(entry: PluginResource): string {
  return entry.idName === undefined ? `<${entry.owner}>` : `<${entry.owner}>/<${entry.idName}>`;
}

/** The plugin's id of the object the runtime calls `runtimeId`, owned by `owner`. */
export function pluginId(entry: PluginResource, owner: string, runtimeId: string): string {
  return entry.idName === undefined ? owner : `${owner}/${runtimeId}`;
}

/** The owner and the runtime's id in a plugin id, or an {@link IdFormError} that shows the form. */
export function parsePluginId(entry: PluginResource, id: string): { owner: string; runtimeId: string } {
  const parts = id.split('/');
  const expected = entry.idName === undefined ? 1 : 2;
  const parsed = parts.map((part, index) => (index === 1 && entry.uuidId ? UUID_OR_ID_PART : ID_PART).safeParse(part));
  if (parts.length !== expected || parsed.some((result) => !result.success)) {
    const example = Array.from({ length: expected }, (_, index) => `${index}`.repeat(32)).join('/');
    const uuid = entry.uuidId ? `; the ${entry.idName} may also be a UUID` : '';
    throw new IdFormError(
      `${entry.runtime.resource} id ${JSON.stringify(id)} is not of the form ${idForm(entry)} (32 hexadecimal characters each, as in ${example}${uuid})`,
    );
  }
  const [owner, runtimeId] = parsed.map((result) => result.data!);
  return { owner: owner!, runtimeId: runtimeId ?? owner! };
}
