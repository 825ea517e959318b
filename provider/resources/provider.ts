import * as pulumi from '@pulumi/pulumi';
import { schemaLanguages } from '../plugin/languages';
import { PACKAGE } from '../plugin/tokens';

/**
 * Arguments of {@link Provider}: the settings table's keys (provider/settings.ts). A setting left
 * out falls back to its environment variable, then its default, as for the dynamic resources.
 */
export interface ProviderArgs {
  /** The base address of the API, ending in `/v4`. Fallback `EDGEGUARD_BASE_URL`; required somewhere. */
  baseUrl?: pulumi.Input<string>;
  /** An API token (page security needs one); kept secret. Fallback `EDGEGUARD_API_TOKEN`. */
  apiToken?: pulumi.Input<string>;
  /** The e-mail of an e-mail + API key pair. Fallback `EDGEGUARD_API_EMAIL`. */
  apiEmail?: pulumi.Input<string>;
  /** The API key of an e-mail + API key pair; kept secret. Fallback `EDGEGUARD_API_KEY`. */
  apiKey?: pulumi.Input<string>;
  /**
   * The dialect of the service's API: `spec` (the contract's, the default) or `vendor` (the
   * vendor's own published API). Fallback `EDGEGUARD_DIALECT`.
   */
  dialect?: pulumi.Input<'spec' | 'vendor'>;
  /**
   * The vendor token of the service's wire field names. Fallback `EDGEGUARD_VENDOR`, default the
   * dialect's: `edgeguard` in `spec`, `cloudflare` in `vendor`.
   */
  vendor?: pulumi.Input<string>;
  /** Custom hostname creates per zone and window this provider paces under. Default 15. */
  issuanceLimit?: pulumi.Input<number>;
  /** The window of `issuanceLimit`, in seconds. Default 60. */
  issuanceWindowSeconds?: pulumi.Input<number>;
}

const BRAND = Symbol.for('pulumi-edgeguard:Provider');

/**
 * An explicit provider of the provider plugin `pulumi-resource-edgeguard`: one account (or one
 * token) with its own settings, client and pacing. An EdgeGuard resource given it as
 * `opts.provider` is served by the plugin, under `edgeguard:index:<Resource>`, with the plugin's
 * ids (`<zoneId>/<policyId>`, ...), `pulumi import` and the provider's own diff; without it, the
 * resource is the dynamic resource it always was.
 */
export class Provider extends pulumi.ProviderResource {
  /** Whether `value` is a {@link Provider}, also from another copy of this package. */
  static override isInstance(value: unknown): value is Provider {
    return value !== null && typeof value === 'object' && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  constructor(name: string, args: ProviderArgs = {}, opts?: pulumi.ResourceOptions) {
    const secret = (value: pulumi.Input<string> | undefined) =>
      value === undefined ? undefined : pulumi.secret(value);
    super(
      PACKAGE,
      name,
      { ...args, apiToken: secret(args.apiToken), apiKey: secret(args.apiKey) },
      // The engine asks for the plugin of this package's version, and downloads it from the schema's address when it is not installed.
      { version: pluginVersion(), pluginDownloadURL: schemaLanguages.pluginDownloadURL, ...opts },
    );
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/**
 * The plugin version a program asks the engine for: the package's own. Read when a provider is
 * made (from the compiled package, where programs load it), not when the package loads.
 */
function pluginVersion(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('../plugin/version') as typeof import('../plugin/version')).PLUGIN_VERSION;
}
