import './compile-cache';
import { z } from 'zod';
import {
  editCustomHostname,
  getCustomHostname,
  hasStatus,
  CUSTOM_HOSTNAME_STATUSES,
  isStatus,
  knownValue,
  SSL_STATUSES,
  SSL_METHODS,
  SSL_TYPES,
  waitForStatus,
  type CustomHostname,
  type CustomHostnameStatus,
} from '../client/custom-hostnames';
import { hexIdSchema, zoneIdSchema } from './check';
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
import { ownerOf, type Runtime, type RuntimeContext } from './contract';
import { changedInputs } from './wire';
import { PartialFailure } from './partial';

/**
 * Runtime of `CustomHostnameValidation`: waits until a custom hostname is `active`, its certificate
 * included, as AWS's `acm.CertificateValidation` waits for a certificate. It owns nothing on the
 * service: create and update read the hostname (and restart its validation with one PATCH when
 * only an edit gets it out of its status), wait, and fail as a partial failure with what the owner
 * must do; read reports the hostname's status; delete sends nothing. The id is the hostname's id.
 */

/** Default of `timeoutSeconds`. */
const DEFAULT_TIMEOUT_SECONDS = 600;
/** Where waiting ends: active (with its certificate), or a status that waiting alone will not change. */
const SETTLED: readonly CustomHostnameStatus[] = ['active', 'caa_error', 'blocked', 'moved'];

/** The inputs, as `check` accepts them. */
export const inputsSchema = z.object({
  // Another zone or hostname is another validation; the old one has nothing to delete.
  zoneId: zoneIdSchema.meta({
    description: 'The zone of the hostname: its 32-character hexadecimal id.',
    replaces: true,
  }),
  customHostnameId: hexIdSchema("the custom hostname's id (a CustomHostname's customHostnameId)").meta({
    description: `The hostname to wait for (32 hexadecimal characters): pass the \`CustomHostname\`'s \`id\`, the
      same value as its \`customHostnameId\` output, because a preview keeps the id of a hostname that only
      updates, while its outputs are not known until it has updated (and an unknown hostname id here would show
      as a replacement).`,
    replaces: true,
    output: "The hostname's id (also the resource id).",
  }),
  timeoutSeconds: waitSecondsField(DEFAULT_TIMEOUT_SECONDS).meta({
    description: 'How long create and update wait for the hostname to become active, in seconds, 1 to 3600.',
  }),
});

/** The checked inputs. */
export type CustomHostnameValidationInputs = z.output<typeof inputsSchema>;

/** The outputs that are not inputs: the hostname as last read. */
const outputsSchema = z.object({
  hostname: z.string().meta({ description: 'The hostname, as the service stores it (lowercase).' }),
  // Any status the service gives is kept, `""` when it gives none (see `CustomHostname`'s).
  status: z.string().meta({
    description: "The hostname's status as last read: `active` after a successful create or update.",
  }),
  sslStatus: z
    .string()
    .meta({ description: "The certificate's state: `pending_validation`, `active` or `caa_error`." }),
  certificateAuthorityInUse: z.string().meta({ description: 'The certificate authority in use.' }),
  verificationErrors: z
    .array(z.string())
    .meta({ description: 'Why validation has not succeeded (empty when active).' }),
});

/** The outputs kept in the state: the inputs and the hostname as last read. */
export type CustomHostnameValidationOutputs = CustomHostnameValidationInputs & z.output<typeof outputsSchema>;

function outputs(inputs: CustomHostnameValidationInputs, record: CustomHostname): CustomHostnameValidationOutputs {
  return {
    ...inputs,
    hostname: record.hostname,
    status: asRead(record.status),
    sslStatus: asRead(record.ssl.status),
    certificateAuthorityInUse: asRead(record.ssl.certificate_authority),
    verificationErrors: record.verification_errors,
  };
}

/**
 * The properties `diff` finds changed: the inputs (`changedInputs`), and a hostname recorded as anything
 * but active (a refresh that found it `moved`, a failed validation kept in the state), so the next
 * `pulumi up` validates it again: named on `status` (or `sslStatus`), the output that shows it.
 */
export function diffValidation(
  olds: Partial<CustomHostnameValidationOutputs>,
  news: Partial<CustomHostnameValidationInputs>,
): string[] {
  const changed = changedInputs(runtime, olds, news as CustomHostnameValidationInputs);
  if (olds.status !== undefined && olds.status !== 'active') changed.push('status');
  else if (olds.sslStatus !== undefined && olds.sslStatus !== 'active') changed.push('sslStatus');
  return changed;
}

// ---- Progress ----

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

/** The status as a progress line shows it: `pending ("custom hostname does not CNAME to this zone.")`. */
function describeStatus(record: CustomHostname): string {
  const notes = record.status === 'active' ? [`certificate ${statusText(record.ssl.status, SSL_STATUSES)}`] : [];
  notes.push(...record.verification_errors.map((error) => JSON.stringify(error)));
  const status = statusText(record.status, CUSTOM_HOSTNAME_STATUSES);
  return notes.length > 0 ? `${status} (${notes.join('; ')})` : status;
}

// ---- Waiting and failing ----

/** A hostname that did not become active: kept in the state with what was last read, so the next `pulumi up` validates it again. */
export class CustomHostnameNotValidatedError extends PartialFailure {
  override name = 'CustomHostnameNotValidatedError';
}

/** Why `record` is not active after waiting, as a message that says what to do. */
function notValidatedMessage(record: CustomHostname, inputs: CustomHostnameValidationInputs, waitedMs: number): string {
  const subject = `custom hostname "${record.hostname}" (${record.id} in zone ${inputs.zoneId})`;
  switch (record.status) {
    case 'caa_error':
      return `${subject} has status caa_error: ${caaAdvice(record, undefined)}${serviceReports(record)}`;
    case 'blocked':
      return `${subject} has status blocked: ${blockedAdvice()}${serviceReports(record)}`;
    case 'moved':
      return `${subject} has status moved: ${movedAdvice(record)}${serviceReports(record)}`;
    case 'pending':
      return (
        `${subject} did not become active within ${inputs.timeoutSeconds} s (waited ${seconds(waitedMs)}): its status is pending.${serviceReports(record)} ` +
        `To prove ownership, ${ownershipAdvice(record)}, then run pulumi up again to wait again (or raise timeoutSeconds).`
      );
    case 'active':
      return (
        `${subject} is active, but its certificate is still ${statusText(record.ssl.status, SSL_STATUSES)} after ${inputs.timeoutSeconds} s: ` +
        `run pulumi up again to wait again (or raise timeoutSeconds).`
      );
    default:
      return (
        `${subject} did not become active within ${inputs.timeoutSeconds} s (waited ${seconds(waitedMs)}): its status is ${JSON.stringify(record.status ?? 'not reported')}, ` +
        `which EdgeGuard does not know.${serviceReports(record)} Run pulumi up again to wait again (or raise timeoutSeconds).`
      );
  }
}

/**
 * Validates the hostname read as `record`: restarts its validation when `restart` says so (one
 * PATCH, which keeps every setting), waits until it is active or settles elsewhere, showing its
 * progress, and fails as a {@link CustomHostnameNotValidatedError} unless it is active.
 */
async function validate(
  ctx: RuntimeContext,
  inputs: CustomHostnameValidationInputs,
  first: CustomHostname,
  restart: readonly CustomHostnameStatus[],
): Promise<CustomHostnameValidationOutputs> {
  const client = ctx.client;
  let record = first;
  if (isStatus(record.status, restart)) {
    ctx.show(`CustomHostnameValidation ${record.hostname}: ${record.status}; restarting its validation`);
    // What the service has, sent back; a value EdgeGuard does not know is left out, so the service keeps it.
    const method = knownValue(SSL_METHODS, record.ssl.method);
    const type = knownValue(SSL_TYPES, record.ssl.type);
    record = await editCustomHostname(client, inputs.zoneId, record.id, {
      ssl: { ...(method !== undefined ? { method } : {}), ...(type !== undefined ? { type } : {}) },
    });
  }
  let waitedMs = 0;
  if (!hasStatus(record, SETTLED)) {
    ctx.show(
      `CustomHostnameValidation ${record.hostname}: waiting up to ${inputs.timeoutSeconds} s for it to become active; now ${describeStatus(record)}`,
    );
    const outcome = await waitForStatus(client, inputs.zoneId, record, {
      statuses: SETTLED,
      timeoutMs: inputs.timeoutSeconds * 1000,
      onRead: (seen, waited) => {
        waitedMs = waited;
        ctx.show(
          `CustomHostnameValidation ${seen.hostname}: ${describeStatus(seen)} after ${seconds(waited)} of at most ${inputs.timeoutSeconds} s`,
        );
      },
    });
    record = outcome.record;
  }
  if (!hasStatus(record, ['active'])) {
    throw new CustomHostnameNotValidatedError(
      notValidatedMessage(record, inputs, waitedMs),
      inputs.customHostnameId,
      outputs(inputs, record),
    );
  }
  return outputs(inputs, record);
}

/** The runtime of `CustomHostnameValidation`. */
export const runtime: Runtime<CustomHostnameValidationInputs, CustomHostnameValidationOutputs> = {
  resource: 'CustomHostnameValidation',
  description: `Waits until a custom hostname is \`active\`, its certificate included, the way
    \`aws.acm.CertificateValidation\` waits for a certificate: declare it after the resource that publishes the
    ownership record (the TXT record of the hostname's \`ownershipRecordName\` / \`ownershipRecordValue\`,
    through your DNS provider's record resource), with \`dependsOn\` on that record, so one \`pulumi up\` takes
    the hostname from \`pending\` to \`active\` and what depends on this resource runs only then. The id is the
    hostname's id.

    - \`check\`: both ids must be 32 hexadecimal characters and the timeout 1 to 3600 whole seconds; a bad
      value fails the preview naming the property, before any API call.
    - \`create\`: reads the hostname (a \`moved\` one gets its validation restarted by one PATCH) and waits,
      reading it again with back-off (1 s, doubling up to 10 s), until it is active or reaches a status that
      waiting will not change. Each read prints a line in \`pulumi up\`'s output: how long it has waited and
      the hostname's status, with what the service reports.
    - A hostname that ends \`caa_error\` (which CAA record would permit the certificate authority),
      \`blocked\` (the zone's owner must release the hold), \`moved\`, or still \`pending\` at the timeout (the
      ownership record the service is still missing) fails the step with what to do. It is a partial failure:
      the resource stays in the state with the hostname's status, and the next \`pulumi up\` updates it.
    - \`read\` (refresh): the hostname's current status, so a hostname that left \`active\` (say \`moved\`, its
      DNS no longer pointing at the zone) shows as a change.
    - \`update\`: reads the hostname; if it is \`moved\`, \`caa_error\` or \`blocked\` it restarts validation
      with one PATCH (which changes no setting), then waits as create does. A hostname whose own update
      restarted it already is not edited twice.
    - \`delete\`: sends nothing; the hostname belongs to its \`CustomHostname\`.`,
  inputs: inputsSchema,
  outputs: outputsSchema,
  // A state written before timeoutSeconds had a default has none: the default it meant.
  same: { timeoutSeconds: (old, news) => (old ?? DEFAULT_TIMEOUT_SECONDS) === (news ?? DEFAULT_TIMEOUT_SECONDS) },
  diff: diffValidation,

  async create(ctx, inputs) {
    const record = await getCustomHostname(ctx.client, inputs.zoneId, inputs.customHostnameId);
    // A new hostname's validation has just started; only `moved` (left by an edit alone) needs one.
    return { id: inputs.customHostnameId, outs: await validate(ctx, inputs, record, ['moved']) };
  },

  async read(ctx, id, props) {
    const zoneId = ownerOf('CustomHostnameValidation', id, props, 'zoneId');
    const record = await getCustomHostname(ctx.client, zoneId, id);
    const inputs = { zoneId, customHostnameId: id, timeoutSeconds: props.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS };
    return { props: outputs(inputs, record), inputs };
  },

  async update(ctx, _id, _olds, inputs) {
    // Read first: the hostname's own update (or the owner) may have restarted validation already,
    // and a second PATCH would restart it again for nothing.
    const record = await getCustomHostname(ctx.client, inputs.zoneId, inputs.customHostnameId);
    return validate(ctx, inputs, record, REVALIDATE);
  },

  delete() {
    // The validation owns nothing on the service: the hostname is its CustomHostname's to delete.
    return Promise.resolve();
  },
};
