import * as pulumi from '@pulumi/pulumi';
import { EdgeGuardResource } from './registration';

/** The certificate settings of a {@link CustomHostname}. */
export interface CustomHostnameSslArgs {
  /** How ownership is proven for the certificate: `txt` or `http`. Required; a change updates in place. */
  method: pulumi.Input<'txt' | 'http'>;
  /** The certificate type: `dv`. Required; a change updates in place. */
  type: pulumi.Input<'dv'>;
  /**
   * The certificate authority: `google`, `lets_encrypt`, or `""` to let the service choose (it
   * prefers `google`, the more compatible one, unless CAA records forbid it). Default `""`, which
   * any authority in use satisfies (so a hostname adopted or imported needs no edit); naming
   * another authority updates in place and restarts validation.
   */
  certificateAuthority?: pulumi.Input<'' | 'google' | 'lets_encrypt'>;
}

/** Arguments of {@link CustomHostname}. */
export interface CustomHostnameArgs {
  /** The zone that serves the hostname: its 32-character hexadecimal id. Required; a change replaces the hostname. */
  zoneId: pulumi.Input<string>;
  /**
   * The customer's hostname, such as `shop.customer.com` or `*.customer.com`; stored lowercase.
   * Longer than 64 characters (a certificate Common Name's limit) it needs `branding`. Required; a
   * change replaces the hostname.
   */
  hostname: pulumi.Input<string>;
  /** The certificate settings. Required; a change updates in place (the service restarts validation). */
  ssl: pulumi.Input<CustomHostnameSslArgs>;
  /**
   * Put a shared service hostname in the certificate's Common Name and this hostname in the Subject
   * Alternative Name, which a hostname over 64 characters needs (else error 1469). Default `false`;
   * a change replaces the hostname.
   */
  branding?: pulumi.Input<boolean>;
  /**
   * Make create and update wait until the hostname is `active`, and fail (keeping the hostname) if
   * it is not within `waitTimeoutSeconds`. Ownership must then be proven by a record that does not
   * wait for this resource's outputs (such as a CNAME into the zone), or the wait can only time
   * out: when the stack publishes the ownership record from this resource's outputs, wait with a
   * `CustomHostnameValidation` that depends on the record instead. Default `false`; a change
   * updates in place without calling the service.
   */
  waitForActive?: pulumi.Input<boolean>;
  /** How long `waitForActive` waits, in seconds, 1 to 3600. Default 300; a change updates in place. */
  waitTimeoutSeconds?: pulumi.Input<number>;
  /**
   * The id of an existing custom hostname of the zone to adopt: create then takes it over instead
   * of making one, so it keeps its ownership token and status, with one PATCH if the declared `ssl`
   * differs (none if it is as declared), and `pulumi up` prints that it was adopted. Its `hostname`
   * and `branding` must be the declared ones. A hostname of another zone, or none, fails the
   * create and writes nothing. Optional; it matters only at create, so changing or removing it
   * later is no change. A create refused because the hostname exists names the id to set here.
   */
  adoptId?: pulumi.Input<string>;
}

/** What a read-only {@link CustomHostname.get} needs besides the id. */
export interface CustomHostnameLookupArgs {
  /** The zone of the hostname. */
  zoneId: pulumi.Input<string>;
}

/** The certificate settings as requested (not as chosen: see `certificateAuthorityInUse`). */
export interface CustomHostnameSslOutput {
  method: 'txt' | 'http';
  type: 'dv';
  certificateAuthority: '' | 'google' | 'lets_encrypt';
}

/**
 * A custom hostname of a zone, with its certificate (spec 2.9, 3). The id is the custom hostname's
 * id. Creates are paced under the issuance limit (`edgeguard:issuanceLimit`, default 15 per
 * `edgeguard:issuanceWindowSeconds`, default 60, per zone). A hostname whose CAA records forbid its
 * CA (`caa_error`) or whose zone is held (`blocked`) fails the step with what the owner must do,
 * and stays in the state; the next `pulumi up` restarts its validation. Publish
 * `ownershipRecordName` / `ownershipRecordValue` as a TXT record to prove ownership.
 */
export class CustomHostname extends EdgeGuardResource {
  /** The id the service gave the hostname (also the resource id). */
  declare public readonly customHostnameId: pulumi.Output<string>;
  declare public readonly zoneId: pulumi.Output<string>;
  /** The hostname as the service stores it (lowercase). */
  declare public readonly hostname: pulumi.Output<string>;
  declare public readonly ssl: pulumi.Output<CustomHostnameSslOutput>;
  declare public readonly branding: pulumi.Output<boolean>;
  declare public readonly waitForActive: pulumi.Output<boolean>;
  declare public readonly waitTimeoutSeconds: pulumi.Output<number>;
  /** `pending` (ownership not proven yet), `active`, `moved`, `blocked` or `caa_error`. */
  declare public readonly status: pulumi.Output<'pending' | 'active' | 'moved' | 'blocked' | 'caa_error'>;
  /** The certificate's state: `pending_validation`, `active` or `caa_error`. */
  declare public readonly sslStatus: pulumi.Output<string>;
  /** The certificate authority in use: for a requested `""`, the one the service chose. */
  declare public readonly certificateAuthorityInUse: pulumi.Output<'google' | 'lets_encrypt'>;
  /** Why validation has not succeeded yet (empty when active). */
  declare public readonly verificationErrors: pulumi.Output<string[]>;
  /** Owner name of the TXT record that proves ownership. */
  declare public readonly ownershipRecordName: pulumi.Output<string>;
  /** Value of the TXT record that proves ownership. */
  declare public readonly ownershipRecordValue: pulumi.Output<string>;
  declare public readonly createdAt: pulumi.Output<string>;

  /**
   * Declares a custom hostname; with `opts.id` and {@link CustomHostnameLookupArgs}, reads an
   * existing one without managing it (what {@link CustomHostname.get} does).
   */
  constructor(name: string, args: CustomHostnameArgs, opts?: pulumi.CustomResourceOptions);
  constructor(
    name: string,
    args: CustomHostnameLookupArgs,
    opts: pulumi.CustomResourceOptions & { id: pulumi.Input<pulumi.ID> },
  );
  constructor(name: string, args: CustomHostnameArgs | CustomHostnameLookupArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      'CustomHostname',
      'custom-hostname',
      name,
      {
        // Every input is listed first so that it is an output also of a hostname read with `get`,
        // whose arguments hold only the zone.
        hostname: undefined,
        ssl: undefined,
        branding: undefined,
        waitForActive: undefined,
        waitTimeoutSeconds: undefined,
        ...args,
        customHostnameId: undefined,
        status: undefined,
        sslStatus: undefined,
        certificateAuthorityInUse: undefined,
        verificationErrors: undefined,
        ownershipRecordName: undefined,
        ownershipRecordValue: undefined,
        createdAt: undefined,
      },
      opts,
    );
  }

  /**
   * Reads an existing custom hostname without managing it: the way to use a hostname that another
   * stack or a person created, since dynamic resources cannot be imported.
   */
  static get(
    name: string,
    id: pulumi.Input<pulumi.ID>,
    lookup: CustomHostnameLookupArgs,
    opts?: pulumi.CustomResourceOptions,
  ): CustomHostname {
    return new CustomHostname(name, lookup, { ...opts, id });
  }
}
