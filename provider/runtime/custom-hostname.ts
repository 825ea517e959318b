import './compile-cache';
import { z } from 'zod';
import { COMMON_NAME_LIMIT } from '../../rules/hostname';
import { choice, hostnameField } from '../../rules/zod';
import {
  CERTIFICATE_AUTHORITIES,
  createCustomHostname,
  CUSTOM_HOSTNAME_STATUSES,
  deleteCustomHostname,
  editCustomHostname,
  findCustomHostname,
  getCustomHostname,
  isStatus,
  SSL_METHODS,
  SSL_TYPES,
  waitForStatus,
  type CustomHostname,
  type CustomHostnameSsl,
} from '../client/custom-hostnames';
import { ConflictError, EdgeGuardError, NotFoundError } from '../client/errors';
import { zoneIdSchema } from './check';
import {
  asRead,
  blockedAdvice,
  caaAdvice,
  movedAdvice,
  ownershipAdvice,
  REVALIDATE,
  serviceReports,
  statusText,
  waitSecondsField,
} from './custom-hostname-advice';
import { adopt, adoptIdField } from './adopt';
import { ownerOf, type Runtime, type RuntimeContext } from './contract';
import { PartialFailure } from './partial';

/**
 * Runtime of `CustomHostname`: a hostname of a customer that a zone serves, with its certificate
 * (spec 2.9, 3, 7, 8). The id is the custom hostname's id. Creates are paced under the issuance
 * limit; a hostname that exists but cannot work (CAA forbids its CA, its zone is held, or it did
 * not become active in time) fails the step as a partial failure, so the engine keeps it in the
 * state and the next `pulumi up` updates it (restarting validation) instead of losing it. With
 * `adoptId`, create takes over that hostname of the zone instead of making one (`adopt.ts`): it
 * keeps its ownership token and status.
 */

/** Contract: the error code of a duplicate hostname in the zone. */
const DUPLICATE_HOSTNAME = 1406;
/** Default of `waitTimeoutSeconds`. */
const DEFAULT_WAIT_TIMEOUT_SECONDS = 300;

const boolean = (what: string) =>
  z.boolean({ error: (issue) => `must be true or false (got ${JSON.stringify(issue.input)}): ${what}` });

/** The inputs, as `check` accepts them. */
export const inputsSchema = z
  .object({
    // The service cannot move a hostname to another zone, rename it or change its branding: those replace it.
    zoneId: zoneIdSchema.meta({
      description: 'The zone that serves the hostname: its 32-character hexadecimal id.',
      replaces: true,
    }),
    hostname: hostnameField({ allowWildcard: true }).meta({
      description: `The customer's hostname, such as \`shop.customer.com\` or \`*.customer.com\`; stored
        lowercase. Longer than 64 characters (a certificate Common Name's limit) it needs \`branding\`.`,
      replaces: true,
      output: 'The hostname as the service stores it (lowercase).',
    }),
    ssl: z
      .object(
        {
          method: choice(SSL_METHODS, 'how ownership is proven for the certificate').meta({
            description: 'How ownership is proven for the certificate: `txt` or `http`.',
          }),
          type: choice(SSL_TYPES, 'the certificate type').meta({ description: 'The certificate type: `dv`.' }),
          certificateAuthority: choice(
            ['', ...CERTIFICATE_AUTHORITIES],
            'the certificate authority ("" lets the service choose)',
          )
            .default('')
            .meta({
              description: `The certificate authority: \`google\`, \`lets_encrypt\`, or \`""\` to let the service
                choose (it prefers \`google\`, the more compatible one, unless CAA records forbid it). Any
                authority in use satisfies \`""\` (so a hostname adopted or imported needs no edit); naming
                another authority restarts validation.`,
            }),
        },
        {
          error: (issue) =>
            `${issue.input === undefined ? 'is required' : 'must be an object'}: the certificate settings, as in { method: "txt", type: "dv" }`,
        },
      )
      .meta({
        description: 'The certificate settings; the service restarts validation when they change.',
        output: 'The certificate settings as requested (not as chosen: see `certificateAuthorityInUse`).',
      }),
    branding: boolean('whether the certificate Common Name is a shared service hostname')
      .default(false)
      .meta({
        description: `Put a shared service hostname in the certificate's Common Name and this hostname in the
          Subject Alternative Name, which a hostname over 64 characters needs (else error 1469).`,
        replaces: true,
      }),
    waitForActive: boolean('whether create and update wait until the hostname is active')
      .default(false)
      .meta({
        description: `Make create and update wait until the hostname is \`active\`, and fail (keeping the
          hostname) if it is not within \`waitTimeoutSeconds\`. Ownership must then be proven by a record that
          does not wait for this resource's outputs (such as a CNAME into the zone), or the wait can only time
          out: when the stack publishes the ownership record from this resource's outputs, wait with a
          \`CustomHostnameValidation\` that depends on the record instead. Changing it calls nothing on the
          service.`,
      }),
    waitTimeoutSeconds: waitSecondsField(DEFAULT_WAIT_TIMEOUT_SECONDS).meta({
      description: 'How long `waitForActive` waits, in seconds, 1 to 3600.',
    }),
    adoptId: adoptIdField('custom hostname').meta({
      description: `The id of an existing custom hostname of the zone to adopt: create then takes it over instead
        of making one, so it keeps its ownership token and status, with one PATCH if the declared \`ssl\`
        differs (none if it is as declared), and \`pulumi up\` prints that it was adopted. Its \`hostname\`
        and \`branding\` must be the declared ones. A hostname of another zone, or none, fails the create and
        writes nothing. A create refused because the hostname exists names the id to set here.`,
    }),
  })
  .refine((inputs) => inputs.hostname.length <= COMMON_NAME_LIMIT || inputs.branding, {
    path: ['hostname'],
    // Judged only once hostname and branding are themselves valid (and known during preview).
    when: (payload) =>
      !payload.issues.some((issue) => issue.path?.[0] === 'hostname' || issue.path?.[0] === 'branding'),
    error: (issue) => tooLongMessage(issue.input),
  });

function tooLongMessage(inputs: unknown): string {
  const hostname =
    typeof inputs === 'object' && inputs !== null && 'hostname' in inputs && typeof inputs.hostname === 'string'
      ? inputs.hostname
      : '';
  return (
    `"${hostname}" is ${hostname.length} characters long, over the ${COMMON_NAME_LIMIT}-character limit of a certificate Common Name (RFC 5280): ` +
    `the service refuses it with error 1469. Set branding to true (the Common Name is then a shared service hostname and this ` +
    `hostname goes into the Subject Alternative Name), or use a hostname of at most ${COMMON_NAME_LIMIT} characters`
  );
}

/** The checked inputs. */
export type CustomHostnameInputs = z.output<typeof inputsSchema>;

/** The outputs that are not inputs: the hostname as read back. */
const outputsSchema = z.object({
  customHostnameId: z.string().meta({ description: 'The id the service gave the hostname (also the resource id).' }),
  // Any status the service gives is kept (the vendor has 16), `""` when it gives none; the
  // description (and so the schema and the SDKs) names the contract's.
  status: z.string().meta({
    description: '`pending` (ownership not proven yet), `active`, `moved`, `blocked` or `caa_error`.',
  }),
  sslStatus: z
    .string()
    .meta({ description: "The certificate's state: `pending_validation`, `active` or `caa_error`." }),
  certificateAuthorityInUse: z.string().meta({
    description: 'The certificate authority in use: for a requested `""`, the one the service chose.',
  }),
  verificationErrors: z
    .array(z.string())
    .meta({ description: 'Why validation has not succeeded yet (empty when active).' }),
  ownershipRecordName: z.string().meta({ description: 'Owner name of the TXT record that proves ownership.' }),
  ownershipRecordValue: z.string().meta({ description: 'Value of the TXT record that proves ownership.' }),
  createdAt: z.string().meta({ description: 'When the hostname was created (ISO 8601).' }),
});

/** The outputs kept in the state: the inputs (the `ssl` as requested) and the hostname as read back. */
export type CustomHostnameOutputs = Omit<CustomHostnameInputs, 'adoptId'> & z.output<typeof outputsSchema>;

// ---- Inputs, outputs and diff ----

function wireSsl(ssl: CustomHostnameInputs['ssl']): CustomHostnameSsl {
  return { method: ssl.method, type: ssl.type, certificate_authority: ssl.certificateAuthority };
}

function outputs(inputs: CustomHostnameInputs, record: CustomHostname): CustomHostnameOutputs {
  const { adoptId: _adoptId, ...declared } = inputs;
  return {
    ...declared,
    hostname: record.hostname,
    // The vendor's answers declare no branding: what was declared stands.
    branding: record.branding ?? inputs.branding,
    customHostnameId: record.id,
    status: asRead(record.status),
    sslStatus: asRead(record.ssl.status),
    certificateAuthorityInUse: asRead(record.ssl.certificate_authority),
    verificationErrors: record.verification_errors,
    ownershipRecordName: asRead(record.ownership_verification?.name),
    ownershipRecordValue: asRead(record.ownership_verification?.value),
    createdAt: asRead(record.created_at),
  };
}

/**
 * The live hostname as inputs, so that a change made outside the stack shows as drift. The service
 * reports the CA in use, not the one asked for: a requested `""` stays `""` (the choice it led to is
 * `certificateAuthorityInUse`); a named CA is used as given, so a different one in use was set
 * by someone else.
 */
export function liveInputs(
  olds: Partial<CustomHostnameOutputs>,
  zoneId: string,
  record: CustomHostname,
): CustomHostnameInputs {
  return {
    zoneId,
    hostname: record.hostname,
    ssl: liveSsl(olds.ssl, record),
    // The vendor's answers declare no branding: the state's stands (default false).
    branding: record.branding ?? olds.branding ?? false,
    waitForActive: olds.waitForActive ?? false,
    waitTimeoutSeconds: olds.waitTimeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS,
  };
}

/** DNS names and ids compare case-insensitively; anything else (a preview unknown) as given. */
function sameName(left: unknown, right: unknown): boolean {
  return typeof left === 'string' && typeof right === 'string'
    ? left.toLowerCase() === right.toLowerCase()
    : left === right;
}

/**
 * Whether the declared `news` ask for nothing `olds` do not have. A declared `""` certificate
 * authority lets the service choose, so any authority satisfies it: the one chosen at create, the
 * one of an adopted or imported hostname (the service reports the authority in use, not whether it
 * was asked for), or one named earlier. Only naming another authority is a change, since an edit
 * restarts the hostname's validation.
 */
/**
 * The live certificate settings as inputs: what the service reports, a value EdgeGuard does not know
 * kept as it came (a difference shows as drift, and a check names it); where it reports nothing,
 * what `olds` held, else the defaults (`txt`, `dv`, `""`).
 */
function liveSsl(
  olds: Partial<CustomHostnameInputs['ssl']> | undefined,
  record: CustomHostname,
): CustomHostnameInputs['ssl'] {
  const inUse = record.ssl.certificate_authority;
  return {
    method: (record.ssl.method ?? olds?.method ?? 'txt') as CustomHostnameInputs['ssl']['method'],
    type: (record.ssl.type ?? olds?.type ?? 'dv') as CustomHostnameInputs['ssl']['type'],
    certificateAuthority: (olds?.certificateAuthority === '' || inUse === undefined
      ? (olds?.certificateAuthority ?? '')
      : inUse) as CustomHostnameInputs['ssl']['certificateAuthority'],
  };
}

function sameSsl(
  olds: Partial<CustomHostnameInputs['ssl']> | undefined,
  news: Partial<CustomHostnameInputs['ssl']> | undefined,
): boolean {
  const declared = news?.certificateAuthority ?? '';
  return (
    olds?.method === news?.method &&
    olds?.type === news?.type &&
    (declared === '' || (olds?.certificateAuthority ?? '') === declared)
  );
}

/**
 * The properties `diff` finds changed: the names compare case-insensitively, the `ssl` as
 * {@link sameSsl} judges it. A status in the state that needs validation again (`moved`,
 * `caa_error`, `blocked`), or a hostname not active while `waitForActive` asks for one, is a change
 * too, named on `status`, so that `pulumi up` after a refresh acts on it.
 */
export function diffCustomHostname(
  olds: Partial<CustomHostnameOutputs>,
  news: Partial<CustomHostnameInputs>,
): string[] {
  const changed: string[] = [];
  if (!sameName(olds.zoneId, news.zoneId)) changed.push('zoneId');
  if (!sameName(olds.hostname, news.hostname)) changed.push('hostname');
  if ((olds.branding ?? false) !== (news.branding ?? false)) changed.push('branding');
  if (!sameSsl(olds.ssl, news.ssl)) changed.push('ssl');
  if ((olds.waitForActive ?? false) !== (news.waitForActive ?? false)) changed.push('waitForActive');
  if (
    (olds.waitTimeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS) !==
    (news.waitTimeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS)
  )
    changed.push('waitTimeoutSeconds');
  const revalidate =
    olds.status !== undefined &&
    (isStatus(olds.status, REVALIDATE) || (news.waitForActive === true && olds.status !== 'active'));
  if (revalidate) changed.push('status');
  return changed;
}

// ---- Failures that say what to do ----

/**
 * A custom hostname that exists but cannot work yet. It carries the id and properties the
 * dynamic-provider host reports to the engine as a partial failure (`ErrorResourceInitFailed`):
 * the engine records the hostname with these outputs, fails the step with the message, and
 * updates the hostname on the next `pulumi up`, so it is neither orphaned nor created twice.
 */
export class CustomHostnameNotReadyError extends PartialFailure {
  override name = 'CustomHostnameNotReadyError';
}

/** Why `record` does not satisfy `inputs`, as a message that says what to do; `undefined` when it does. */
function notReadyMessage(record: CustomHostname, inputs: CustomHostnameInputs): string | undefined {
  const subject = `custom hostname "${record.hostname}" (${record.id} in zone ${inputs.zoneId})`;
  const waited = inputs.waitForActive
    ? ` after waiting up to ${inputs.waitTimeoutSeconds} s for it to become active`
    : '';
  switch (record.status) {
    case 'active':
      return undefined;
    case 'caa_error':
      return `${subject} has status caa_error${waited}: ${caaAdvice(record, inputs.ssl.certificateAuthority)}${serviceReports(record)}`;
    case 'blocked':
      return `${subject} has status blocked${waited}: ${blockedAdvice()}${serviceReports(record)}`;
    case 'moved':
      return `${subject} has status moved${waited}: ${movedAdvice(record)}${serviceReports(record)}`;
    case 'pending':
      if (!inputs.waitForActive) return undefined;
      return (
        `${subject} did not become active within ${inputs.waitTimeoutSeconds} s (waitForActive): its status is pending. To prove ownership, ` +
        `${ownershipAdvice(record)}, then run pulumi up again to wait again (or set waitForActive to false).${serviceReports(record)}`
      );
    default:
      // A status EdgeGuard does not know (the vendor has 16), or none: not a failure unless waited for.
      if (!inputs.waitForActive) return undefined;
      return (
        `${subject} did not become active within ${inputs.waitTimeoutSeconds} s (waitForActive): its status is ${JSON.stringify(record.status ?? 'not reported')}, ` +
        `which EdgeGuard does not know. Run pulumi up again to wait again (or set waitForActive to false).${serviceReports(record)}`
      );
  }
}

/**
 * After a create or an edit: waits for `active` when asked, then fails the step if the hostname
 * cannot work, as a partial failure that keeps it in the state (see {@link CustomHostnameNotReadyError}).
 */
async function ensureReady(
  ctx: RuntimeContext,
  record: CustomHostname,
  inputs: CustomHostnameInputs,
): Promise<CustomHostname> {
  let current = record;
  if (inputs.waitForActive && current.status !== 'active') {
    current = (
      await waitForStatus(ctx.client, inputs.zoneId, current, {
        statuses: ['active'],
        timeoutMs: inputs.waitTimeoutSeconds * 1000,
      })
    ).record;
  }
  const message = notReadyMessage(current, inputs);
  if (message !== undefined) {
    throw new CustomHostnameNotReadyError(message, current.id, outputs(inputs, current));
  }
  return current;
}

/** The first-attempt 409 of a create: someone else's hostname of that name, and how to adopt it. */
async function alreadyExists(
  ctx: RuntimeContext,
  inputs: CustomHostnameInputs,
  conflict: ConflictError,
): Promise<EdgeGuardError> {
  // Only to name the existing id in the message: the conflict is what must be reported either way.
  const existing = await findCustomHostname(ctx.client, inputs.zoneId, inputs.hostname).catch(() => undefined);
  const which =
    existing !== undefined
      ? `as custom hostname ${existing.id}, which this stack does not manage. To take it over as it is (it keeps its ownership token and status, and nothing is created), set adoptId: "${existing.id}"`
      : `and this stack does not manage it. To take it over as it is (it keeps its ownership token and status, and nothing is created), set adoptId to its id (GET zones/${inputs.zoneId}/custom_hostnames?hostname=${inputs.hostname} shows it)`;
  return new EdgeGuardError(
    `custom hostname "${inputs.hostname}" already exists in zone ${inputs.zoneId} ${which} in this CustomHostname's arguments and run pulumi up again. (${conflict.message})`,
    { cause: conflict },
  );
}

/**
 * Takes over the zone's hostname `adoptId`: its hostname and branding must be the declared ones
 * (the service cannot change them), and one PATCH sets the declared `ssl` if it differs (as
 * {@link sameSsl} judges it: a declared `""` certificate authority matches the one in use).
 */
function adoptHostname(ctx: RuntimeContext, inputs: CustomHostnameInputs, adoptId: string): Promise<CustomHostname> {
  const client = ctx.client;
  return adopt(ctx, {
    resource: 'CustomHostname',
    noun: 'custom hostname',
    owner: { kind: 'zone', id: inputs.zoneId },
    id: adoptId,
    read: () => getCustomHostname(client, inputs.zoneId, adoptId),
    describe: (record) => `"${record.hostname}", ${statusText(record.status, CUSTOM_HOSTNAME_STATUSES)}`,
    conflicts: (record) => [
      ...(record.hostname !== inputs.hostname
        ? [
            `its hostname is "${record.hostname}", not "${inputs.hostname}", and a hostname cannot change in place: declare hostname "${record.hostname}" to adopt it`,
          ]
        : []),
      ...(record.branding !== undefined && record.branding !== inputs.branding
        ? [
            `its branding is ${record.branding}, not ${inputs.branding}, and branding cannot change in place: declare branding: ${record.branding} to adopt it`,
          ]
        : []),
    ],
    differences: (record) => {
      return sameSsl(liveSsl(inputs.ssl, record), inputs.ssl) ? [] : ['ssl'];
    },
    write: () => editCustomHostname(client, inputs.zoneId, adoptId, { ssl: wireSsl(inputs.ssl) }),
  });
}

function goneSinceRefresh(id: string, zoneId: string, error: NotFoundError): EdgeGuardError {
  return new EdgeGuardError(
    `custom hostname ${id} no longer exists in zone ${zoneId} (the service deletes a hostname 7 days after it moved): ` +
      `run pulumi refresh, then pulumi up to create it again. (${error.message})`,
    { cause: error },
  );
}

/** The runtime of `CustomHostname`. */
export const runtime: Runtime<CustomHostnameInputs, CustomHostnameOutputs> = {
  resource: 'CustomHostname',
  description: `A custom hostname of a zone, with its certificate (spec 2.9, 3). The id is the custom hostname's
    id. Creates are paced under the issuance limit (\`edgeguard:issuanceLimit\`, default 15 per
    \`edgeguard:issuanceWindowSeconds\`, default 60, per zone). A hostname whose CAA records forbid its CA
    (\`caa_error\`) or whose zone is held (\`blocked\`) fails the step with what the owner must do, and stays in
    the state; the next \`pulumi up\` restarts its validation. Publish \`ownershipRecordName\` /
    \`ownershipRecordValue\` as a TXT record to prove ownership.`,
  inputs: inputsSchema,
  outputs: outputsSchema,
  diff: diffCustomHostname,
  // The same hostname cannot be created again while the old one exists (409, code 1406).
  deleteBeforeReplace: (replaces) => replaces.length > 0 && !replaces.includes('hostname'),

  async create(ctx, inputs) {
    if (inputs.adoptId !== undefined) {
      const record = await ensureReady(ctx, await adoptHostname(ctx, inputs, inputs.adoptId), inputs);
      return { id: record.id, outs: outputs(inputs, record) };
    }
    let record: CustomHostname;
    try {
      record = await createCustomHostname(ctx.client, inputs.zoneId, {
        hostname: inputs.hostname,
        ssl: wireSsl(inputs.ssl),
        branding: inputs.branding,
      });
    } catch (error) {
      if (error instanceof ConflictError && error.hasCode(DUPLICATE_HOSTNAME))
        throw await alreadyExists(ctx, inputs, error);
      throw error;
    }
    record = await ensureReady(ctx, record, inputs);
    return { id: record.id, outs: outputs(inputs, record) };
  },

  async read(ctx, id, props) {
    const zoneId = ownerOf('CustomHostname', id, props, 'zoneId');
    const record = await getCustomHostname(ctx.client, zoneId, id);
    const inputs = liveInputs(props, zoneId, record);
    return { props: outputs(inputs, record), inputs };
  },

  async update(ctx, id, olds, inputs) {
    // An edit restarts validation, so it is sent only when it changes something or is the way out.
    const revalidate = !sameSsl(olds.ssl, inputs.ssl) || isStatus(olds.status, REVALIDATE);
    let record: CustomHostname;
    try {
      record = revalidate
        ? await editCustomHostname(ctx.client, inputs.zoneId, id, { ssl: wireSsl(inputs.ssl) })
        : await getCustomHostname(ctx.client, inputs.zoneId, id);
    } catch (error) {
      if (error instanceof NotFoundError) throw goneSinceRefresh(id, inputs.zoneId, error);
      throw error;
    }
    return outputs(inputs, await ensureReady(ctx, record, inputs));
  },

  async delete(ctx, id, props) {
    await deleteCustomHostname(ctx.client, ownerOf('CustomHostname', id, props, 'zoneId'), id);
  },
};
