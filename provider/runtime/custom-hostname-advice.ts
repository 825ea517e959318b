import { z } from 'zod';
import { CAA_ISSUER_DOMAINS } from '../../rules/limits';
import {
  CERTIFICATE_AUTHORITIES,
  knownValue,
  type CustomHostname,
  type CustomHostnameStatus,
  type RequestedCertificateAuthority,
} from '../client/custom-hostnames';

/**
 * What the runtimes of `CustomHostname` and `CustomHostnameValidation` share: how long they may
 * wait, which statuses need validation restarted, and the advice their failures give the owner of
 * a hostname that is not active, so both say the same thing the same way.
 */

/** An hour: a longer wait holds a deployment for no good reason. */
export const MAX_WAIT_SECONDS = 3600;

/** A wait in whole seconds, 1 to {@link MAX_WAIT_SECONDS}, defaulting to `defaultSeconds`. */
export function waitSecondsField(defaultSeconds: number) {
  return z
    .number({ error: (issue) => `must be a number of seconds (got ${JSON.stringify(issue.input)})` })
    .int({ error: 'must be a whole number of seconds' })
    .min(1, { error: 'must be at least 1 second' })
    .max(MAX_WAIT_SECONDS, { error: `must be at most ${MAX_WAIT_SECONDS} seconds` })
    .default(defaultSeconds);
}

/**
 * Statuses that only an edit gets out of on the service's side (`moved`, spec 3) or that the owner
 * must fix and then have validated again (`caa_error`, `blocked`): the next `pulumi up` restarts
 * validation with an edit (one PATCH).
 */
export const REVALIDATE: readonly CustomHostnameStatus[] = ['moved', 'caa_error', 'blocked'];

/**
 * A status as a message shows it: one of `known` as it is, any other quoted (it is the service's
 * data, a value EdgeGuard does not know), `"not reported"` when the service gave none.
 */
export function statusText(status: string | undefined, known: readonly string[]): string {
  return status !== undefined && known.includes(status) ? status : JSON.stringify(status ?? 'not reported');
}

/**
 * A value read from the service as the state keeps it: as the service gave it, a value EdgeGuard
 * does not know included, or `""` when the answer left it out (the vendor declares most fields of
 * a custom hostname optional).
 */
export function asRead(value: string | undefined): string {
  return value ?? '';
}

/** The hostname's `verification_errors`, quoted, as a sentence to append; `""` when there are none. */
export function serviceReports(record: CustomHostname): string {
  return record.verification_errors.length > 0
    ? ` The service reports: ${record.verification_errors.map((e) => JSON.stringify(e)).join('; ')}`
    : '';
}

/**
 * What to do about `caa_error`: the CAA record that permits the certificate authority in use, on
 * the domain whose CAA records govern the hostname. `requested` is the CA the hostname asked for,
 * `undefined` when not known: `""` (the service chooses) makes the other CA an alternative.
 */
export function caaAdvice(record: CustomHostname, requested: RequestedCertificateAuthority | undefined): string {
  const inUse = record.ssl.certificate_authority;
  const ca = knownValue(CERTIFICATE_AUTHORITIES, inUse);
  if (ca === undefined)
    return (
      `the domain's CAA records do not permit the certificate authority in use, ${JSON.stringify(inUse ?? 'not reported')}. ` +
      `Add a CAA record that permits it to the domain that holds the CAA records of ${record.hostname.replace(/^\*\./, '')}, ` +
      `then run pulumi up again: the update restarts validation.`
    );
  const tag = record.hostname.startsWith('*.') ? 'issuewild' : 'issue';
  const other = CERTIFICATE_AUTHORITIES.find((name) => name !== ca);
  const permitted = 'to a certificate authority those records permit)';
  const alternative =
    requested === '' && other !== undefined
      ? ` (or 0 ${tag} "${CAA_ISSUER_DOMAINS[other]}", which lets the service use ${other})`
      : requested === undefined
        ? ` (or set the CustomHostname's ssl.certificateAuthority ${permitted}`
        : ` (or set ssl.certificateAuthority ${permitted}`;
  return (
    `the domain's CAA records do not permit the certificate authority in use, ${ca}. ` +
    `Add a CAA record 0 ${tag} "${CAA_ISSUER_DOMAINS[ca]}" to the domain that holds the CAA records of ${record.hostname.replace(/^\*\./, '')}${alternative}, ` +
    `then run pulumi up again: the update restarts validation.`
  );
}

/** What to do about `blocked`. */
export function blockedAdvice(): string {
  return (
    `it is associated with a zone on hold that also holds its subdomains. ` +
    `The owner of that zone must release the hold; then run pulumi up again to restart validation.`
  );
}

/** How ownership is proven: the TXT record the service asks for, or a CNAME into the zone. */
export function ownershipAdvice(record: CustomHostname): string {
  const { name, value } = record.ownership_verification ?? {};
  if (name === undefined || value === undefined)
    return `publish the TXT record the service gives for ${record.hostname} (it reported none) or a CNAME from ${record.hostname} to a hostname in the zone`;
  return `publish the TXT record ${name} with the value "${value}" (or a CNAME from ${record.hostname} to a hostname in the zone)`;
}

/** What to do about `moved`. */
export function movedAdvice(record: CustomHostname): string {
  return (
    `its DNS no longer points at the zone. To keep it, ${ownershipAdvice(record)}, ` +
    `then run pulumi up again: the update restarts validation. The service deletes a hostname 7 days after it moved.`
  );
}
