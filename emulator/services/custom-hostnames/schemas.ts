import { z } from 'zod';
import { choice, expecting, hostnameField, shown } from '../../../rules/zod';
import { invalidField } from '../../core/errors';
import { pageQuery } from '../../core/pagination';

/** Request bodies and queries of the custom hostname routes (contract "Custom hostnames"). */

const sslMethod = choice(['txt', 'http'], 'the domain control validation method');
const sslType = choice(['dv'], 'the certificate type');
/** Spec 2.9: `""` lets the service choose. */
const certificateAuthority = choice(
  ['', 'google', 'lets_encrypt'],
  'the certificate authority ("" lets the service choose)',
);

/** Create body; `<vendor>_branding` is read by {@link parseBranding} because its name is configuration. */
export const createBody = z.object({
  hostname: hostnameField({ allowWildcard: true }),
  ssl: z.object(
    {
      method: sslMethod,
      type: sslType,
      certificate_authority: certificateAuthority.optional().default(''),
    },
    expecting('an object like {"method": "txt", "type": "dv", "certificate_authority": ""}'),
  ),
});

/** Edit body (spec 4): only `ssl` may change; a hostname or branding sent along is ignored. */
export const patchBody = z.object({
  ssl: z
    .object(
      {
        method: sslMethod.optional(),
        type: sslType.optional(),
        certificate_authority: certificateAuthority.optional(),
      },
      expecting('an object like {"certificate_authority": "lets_encrypt"}'),
    )
    .optional(),
});

/** List query: `hostname` (exact match), `page`, `per_page`. */
export const listQuery = pageQuery(20).extend({
  hostname: z.string({ error: 'must be given once, as one hostname' }).optional(),
});

/** `<vendor>_branding` of a create body (default `false`). */
export function parseBranding(body: unknown, field: string): boolean {
  const value = (body as Record<string, unknown>)[field];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw invalidField(field, `must be true or false (got ${shown(value)})`);
  return value;
}
