import { z } from 'zod';
import { LIST_PAGE_BOUNDS, type Dialect } from '../../../rules/dialect';
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
export const listQuery = pageQuery(20, LIST_PAGE_BOUNDS.spec.customHostnames).extend({
  hostname: z.string({ error: 'must be given once, as one hostname' }).optional(),
});

/**
 * The vendor's list query: its page bounds, and the exact hostname as `hostname.exact` (SDK 7.1.0,
 * `hostname: {exact}` with dotted keys) or `hostname` (its schema of 2024).
 */
export const vendorListQuery = pageQuery(20, LIST_PAGE_BOUNDS.vendor.customHostnames).extend({
  hostname: z.string({ error: 'must be given once, as one hostname' }).optional(),
  'hostname.exact': z.string({ error: 'must be given once, as one hostname' }).optional(),
});

/**
 * The vendor's `ssl` of a create: the same fields, but its certificate authorities have no `""`
 * (leave the field out to let the service choose).
 */
export const vendorCreateBody = createBody.extend({
  ssl: z.object(
    {
      method: sslMethod,
      type: sslType,
      certificate_authority: choice(
        ['google', 'lets_encrypt'],
        'the certificate authority (leave it out to let the service choose)',
      )
        .optional()
        .transform((ca): '' | 'google' | 'lets_encrypt' => ca ?? ''),
    },
    expecting('an object like {"method": "txt", "type": "dv"}'),
  ),
});

/** The vendor's edit body: `""` is no certificate authority there either. */
export const vendorPatchBody = z.object({
  ssl: z
    .object(
      {
        method: sslMethod.optional(),
        type: sslType.optional(),
        certificate_authority: choice(['google', 'lets_encrypt'], 'the certificate authority').optional(),
      },
      expecting('an object like {"certificate_authority": "lets_encrypt"}'),
    )
    .optional(),
});

/**
 * `<vendor>_branding` of a create body (default `false`): top-level in `spec`, `ssl.<vendor>_branding`
 * in the vendor's dialect (where a top-level one is not read, as the vendor does not read it).
 */
export function parseBranding(body: unknown, field: string, dialect: Dialect = 'spec'): boolean {
  const holder =
    dialect === 'vendor' ? (body as { ssl?: Record<string, unknown> }).ssl : (body as Record<string, unknown>);
  const value = holder?.[field];
  const name = dialect === 'vendor' ? `ssl.${field}` : field;
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw invalidField(name, `must be true or false (got ${shown(value)})`);
  return value;
}
