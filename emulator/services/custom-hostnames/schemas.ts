import { z } from 'zod';
import { validateHostname } from '../../../rules/hostname';
import { invalidField } from '../../core/errors';
import { pageQuery } from '../../core/pagination';

/** Request bodies and queries of the custom hostname routes (contract "Custom hostnames"). */

function choice<const T extends readonly [string, ...string[]]>(values: T, what: string) {
  const listed = values.map((v) => JSON.stringify(v)).join(', ');
  return z.enum(values, {
    error: (issue) =>
      issue.input === undefined
        ? `required: the ${what}, one of ${listed}`
        : `must be one of ${listed} (got ${JSON.stringify(issue.input)?.slice(0, 100)})`,
  });
}

const sslMethod = choice(['txt', 'http'], 'domain control validation method');
const sslType = choice(['dv'], 'certificate type');
/** Spec 2.9: `""` lets the service choose. */
const certificateAuthority = choice(['', 'google', 'lets_encrypt'], 'certificate authority ("" lets the service choose)');

const hostname = z
  .string({ error: (issue) => (issue.input === undefined ? 'required: a DNS name such as shop.example.com' : 'must be a string: a DNS name such as shop.example.com') })
  .transform((value, ctx) => {
    const checked = validateHostname(value, { allowWildcard: true });
    if (checked.ok) return checked.value;
    ctx.addIssue({ code: 'custom', message: checked.error.message });
    return z.NEVER;
  });

const objectError = (example: string) => (issue: { input: unknown }) =>
  issue.input === undefined ? `required: an object like ${example}` : `must be an object like ${example}`;

/** Create body; `<vendor>_branding` is read by {@link parseBranding} because its name is configuration. */
export const createBody = z.object({
  hostname,
  ssl: z.object(
    {
      method: sslMethod,
      type: sslType,
      certificate_authority: certificateAuthority.optional().default(''),
    },
    { error: objectError('{"method": "txt", "type": "dv", "certificate_authority": ""}') },
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
      { error: objectError('{"certificate_authority": "lets_encrypt"}') },
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
  if (typeof value !== 'boolean') throw invalidField(field, `must be true or false (got ${JSON.stringify(value)?.slice(0, 100)})`);
  return value;
}
