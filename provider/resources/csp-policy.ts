import * as pulumi from '@pulumi/pulumi';
import { EdgeGuardResource } from './registration';

/** Arguments of {@link CspPolicy}. */
export interface CspPolicyArgs {
  /** The zone the policy belongs to: its 32-character hexadecimal id. Required; a change replaces the policy. */
  zoneId: pulumi.Input<string>;
  /** What the policy is for; may be empty, at most 1024 characters. Required; a change updates in place. */
  description: pulumi.Input<string>;
  /**
   * `log` reports the scripts `value` does not allow without blocking them; `allow` blocks them.
   * Required; a change updates in place.
   */
  action: pulumi.Input<'log' | 'allow'>;
  /**
   * The requests the policy covers: `http.host eq "shop.example.com"` (quotes optional). Required;
   * a change updates in place; writing the same hostname differently is no change.
   */
  expression: pulumi.Input<string>;
  /**
   * The CSP directive, such as `script-src 'self' cdn.example.com https://js.example.net/app.js`.
   * Required; a change updates in place; reordering sources or changing whitespace is no change.
   */
  value: pulumi.Input<string>;
  /** Whether the policy is in force. Default `true`; a change updates in place. */
  enabled?: pulumi.Input<boolean>;
  /**
   * The id of an existing policy of the zone to adopt: create then takes it over instead of making
   * one, with one PUT if a declared property differs (none if it is as declared), and `pulumi up`
   * prints that it was adopted. A policy of another zone, or none, fails the create and writes
   * nothing. Optional; it matters only at create, so changing or removing it later is no change.
   */
  adoptId?: pulumi.Input<string>;
}

/** A content security policy of a zone (spec 2.6). The id is the policy id. */
export class CspPolicy extends EdgeGuardResource {
  /** The id the service gave the policy (also the resource id). */
  declare public readonly policyId: pulumi.Output<string>;
  declare public readonly zoneId: pulumi.Output<string>;
  declare public readonly description: pulumi.Output<string>;
  declare public readonly action: pulumi.Output<'log' | 'allow'>;
  /** The expression as the service stores it. */
  declare public readonly expression: pulumi.Output<string>;
  /** The directive as the service stores it. */
  declare public readonly value: pulumi.Output<string>;
  declare public readonly enabled: pulumi.Output<boolean>;

  constructor(name: string, args: CspPolicyArgs, opts?: pulumi.CustomResourceOptions) {
    super('CspPolicy', 'csp-policy', name, { ...args, policyId: undefined }, opts);
  }
}
