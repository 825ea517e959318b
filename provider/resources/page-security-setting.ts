import * as pulumi from '@pulumi/pulumi';
import { EdgeGuardResource } from './registration';

/** Arguments of {@link PageSecuritySetting}. */
export interface PageSecuritySettingArgs {
  /** The zone whose page security this sets: its 32-character hexadecimal id. Required; a change replaces the resource (the old zone gets its earlier value back). */
  zoneId: pulumi.Input<string>;
  /** Whether page security is on for the zone. Required; a change updates in place. */
  enabled: pulumi.Input<boolean>;
}

/**
 * Page security on or off for one zone (spec 2.2). The id is the zone id. The zone's value before
 * creation is kept in {@link PageSecuritySetting.enabledBeforeCreate} and put back on delete.
 *
 * A zone has exactly one setting, so there is nothing to adopt and no `adoptId`: create always
 * takes over the zone's existing setting, writing only when `enabled` differs from it.
 */
export class PageSecuritySetting extends EdgeGuardResource {
  /** The zone id. */
  declare public readonly zoneId: pulumi.Output<string>;
  /** Whether page security is on, as last read from the service. */
  declare public readonly enabled: pulumi.Output<boolean>;
  /** When the settings last changed (ISO 8601 UTC). */
  declare public readonly updatedAt: pulumi.Output<string>;
  /** Whether reports go to the vendor's reporting endpoint (wire field `use_<vendor>_reporting_endpoint`). */
  declare public readonly useVendorReportingEndpoint: pulumi.Output<boolean>;
  /** Whether connection reports keep the URL path (`use_connection_url_path`). */
  declare public readonly useConnectionUrlPath: pulumi.Output<boolean>;
  /** The zone's `enabled` before this resource was created: what delete restores. */
  declare public readonly enabledBeforeCreate: pulumi.Output<boolean>;

  constructor(name: string, args: PageSecuritySettingArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      'PageSecuritySetting',
      'page-security-setting',
      name,
      {
        ...args,
        updatedAt: undefined,
        useVendorReportingEndpoint: undefined,
        useConnectionUrlPath: undefined,
        enabledBeforeCreate: undefined,
      },
      opts,
    );
  }
}
