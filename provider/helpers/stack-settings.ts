import * as pulumi from '@pulumi/pulumi';
import type { ReadSettings } from './read';

/**
 * The read helpers' settings inside a Pulumi program: the stack's `edgeguard:*` configuration
 * (`baseUrl`, the secret `apiToken`, `vendor`), the same the provider uses; whatever it leaves out
 * comes from the environment. The token stays an Output secret, so results derived from it are
 * secret too: pass them through `pulumi.unsecret` where they are not.
 */
export function stackReadSettings(): pulumi.Output<ReadSettings> {
  const config = new pulumi.Config('edgeguard');
  return pulumi
    .all([config.get('baseUrl'), config.getSecret('apiToken'), config.get('vendor')])
    .apply(([baseUrl, apiToken, vendor]) => ({
      ...(baseUrl ? { baseUrl } : {}),
      ...(apiToken ? { apiToken } : {}),
      ...(vendor ? { vendor } : {}),
    }));
}
