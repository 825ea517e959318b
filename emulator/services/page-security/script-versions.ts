import { z } from 'zod';
import { isoTime } from '../../core/clock';
import { ErrorCode, invalidField, notFound } from '../../core/errors';
import type { EmulatorContext, Zone } from '../../core/tenancy';
import { pathId, timestampSchema } from '../../core/validation';
import { scripts, type ScriptRecord, type ScriptVersion } from './records';
import { contentHash, scoreShape } from './seed';

/**
 * Contract, control API: a detected script's content changed. The new version goes first in the
 * script's `versions` and becomes the script's current one, so a test or demo can show a pinned
 * script drifting without seeding it again.
 */

/** The body of `POST /__emulator/zones/{zone_id}/page_security/scripts/{script_id}/versions`. */
export const scriptVersionBody = z
  .object({ hash: contentHash, ...scoreShape, fetched_at: timestampSchema.optional() })
  .strict();

/**
 * Adds `body` as the newest version of the zone's script `rawScriptId` and returns the script as
 * stored: its `hash`, scores, `fetched_at` and `last_seen_at` become the version's, scores left
 * out keep the script's, and `fetched_at` defaults to the emulator's clock. The store copies on
 * write, so the lists' kept JSON of the old record is not served again.
 */
export function addScriptVersion(
  ctx: EmulatorContext,
  zone: Zone,
  rawScriptId: unknown,
  body: z.output<typeof scriptVersionBody>,
): ScriptRecord {
  const id = pathId(rawScriptId, 'script_id');
  return ctx.store.write((tx) => {
    const script = tx.get(scripts, id);
    if (!script || script.zone_id !== zone.id) throw notFound('script', id, ErrorCode.scriptNotFound);
    const fetchedAt = body.fetched_at ?? isoTime(ctx.clock.nowMs());
    // The seed refuses last_seen_at before first_seen_at; a version may not make one either.
    if (fetchedAt < script.first_seen_at) {
      throw invalidField('fetched_at', `must not be before the script's first_seen_at (${script.first_seen_at})`);
    }
    const version: ScriptVersion = {
      hash: body.hash,
      js_integrity_score: body.js_integrity_score ?? script.js_integrity_score,
      obfuscation_score: body.obfuscation_score ?? script.obfuscation_score,
      dataflow_score: body.dataflow_score ?? script.dataflow_score,
      malware_score: body.malware_score ?? script.malware_score,
      cryptomining_score: body.cryptomining_score ?? script.cryptomining_score,
      magecart_score: body.magecart_score ?? script.magecart_score,
      fetched_at: fetchedAt,
    };
    const updated: ScriptRecord = {
      ...script,
      ...version,
      last_seen_at: fetchedAt,
      versions: [version, ...script.versions],
    };
    tx.put(scripts, id, updated);
    return updated;
  });
}
