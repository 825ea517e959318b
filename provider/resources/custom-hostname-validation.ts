import * as pulumi from '@pulumi/pulumi';
import { EdgeGuardResource } from './registration';

/** Arguments of {@link CustomHostnameValidation}. */
export interface CustomHostnameValidationArgs {
  /** The zone of the hostname: its 32-character hexadecimal id. Required; a change replaces the validation. */
  zoneId: pulumi.Input<string>;
  /**
   * The hostname to wait for (32 hexadecimal characters): pass the {@link CustomHostname}'s `id`,
   * the same value as its `customHostnameId` output, because a preview keeps the id of a hostname
   * that only updates, while its outputs are not known until it has updated (and an unknown
   * hostname id here would show as a replacement). Required; a change replaces the validation.
   */
  customHostnameId: pulumi.Input<string>;
  /**
   * How long create and update wait for the hostname to become active, in seconds, 1 to 3600.
   * Default 600; a change updates in place.
   */
  timeoutSeconds?: pulumi.Input<number>;
}

/**
 * Waits until a custom hostname is `active`, its certificate included, the way `aws.acm.CertificateValidation`
 * waits for a certificate: declare it after the resource that publishes the ownership record (the
 * TXT record of the hostname's `ownershipRecordName` / `ownershipRecordValue`, through your DNS
 * provider's record resource), with `dependsOn` on that record, so one `pulumi up` takes the
 * hostname from `pending` to `active` and what depends on this resource runs only then. The id is
 * the hostname's id.
 *
 * - `check`: both ids must be 32 hexadecimal characters and the timeout 1 to 3600 whole seconds;
 *   a bad value fails the preview naming the property, before any API call.
 * - `create`: reads the hostname (a `moved` one gets its validation restarted by one PATCH) and
 *   waits, reading it again with back-off (1 s, doubling up to 10 s), until it is active or reaches
 *   a status that waiting will not change. Each read prints a line in `pulumi up`'s output: how long
 *   it has waited and the hostname's status, with what the service reports.
 * - A hostname that ends `caa_error` (which CAA record would permit the certificate authority),
 *   `blocked` (the zone's owner must release the hold), `moved`, or still `pending` at the timeout
 *   (the ownership record the service is still missing) fails the step with what to do. It is a
 *   partial failure: the resource stays in the state with the hostname's status, and the next
 *   `pulumi up` updates it.
 * - `read` (refresh): the hostname's current status, so a hostname that left `active` (say `moved`,
 *   its DNS no longer pointing at the zone) shows as a change.
 * - `update`: reads the hostname; if it is `moved`, `caa_error` or `blocked` it restarts
 *   validation with one PATCH (which changes no setting), then waits as create does. A hostname
 *   whose own update restarted it already is not edited twice.
 * - `delete`: sends nothing; the hostname belongs to its {@link CustomHostname}.
 */
export class CustomHostnameValidation extends EdgeGuardResource {
  declare public readonly zoneId: pulumi.Output<string>;
  /** The hostname's id (also the resource id). */
  declare public readonly customHostnameId: pulumi.Output<string>;
  declare public readonly timeoutSeconds: pulumi.Output<number>;
  /** The hostname, as the service stores it (lowercase). */
  declare public readonly hostname: pulumi.Output<string>;
  /** The hostname's status as last read: `active` after a successful create or update. */
  declare public readonly status: pulumi.Output<'pending' | 'active' | 'moved' | 'blocked' | 'caa_error'>;
  /** The certificate's state: `pending_validation`, `active` or `caa_error`. */
  declare public readonly sslStatus: pulumi.Output<string>;
  /** The certificate authority in use. */
  declare public readonly certificateAuthorityInUse: pulumi.Output<'google' | 'lets_encrypt'>;
  /** Why validation has not succeeded (empty when active). */
  declare public readonly verificationErrors: pulumi.Output<string[]>;

  constructor(name: string, args: CustomHostnameValidationArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      'CustomHostnameValidation',
      'custom-hostname-validation',
      name,
      {
        ...args,
        hostname: undefined,
        status: undefined,
        sslStatus: undefined,
        certificateAuthorityInUse: undefined,
        verificationErrors: undefined,
      },
      opts,
    );
  }
}
