import * as pulumi from '@pulumi/pulumi';
import type { SettingName } from '../settings';
import { clientLayer } from './lazy-client';
import type { ReadSettings } from './read';

/**
 * The read helpers' settings inside a Pulumi program: the stack's `edgeguard:*` configuration,
 * every key of the settings table, the same the provider uses; whatever it leaves out comes from
 * the environment. Credentials are read as secrets and stay Output secrets, so results derived
 * from them are secret too: pass them through `pulumi.unsecret` where they are not.
 */
export function stackReadSettings(): pulumi.Output<ReadSettings> {
  const config = new pulumi.Config('edgeguard');
  const { SETTINGS } = clientLayer();
  const values = (Object.keys(SETTINGS) as SettingName[]).map((name) =>
    pulumi
      .output('secret' in SETTINGS[name] ? config.getSecret(name) : config.get(name))
      .apply((value) => [name, value] as const),
  );
  return pulumi
    .all(values)
    .apply(
      (pairs) => Object.fromEntries(pairs.filter(([, value]) => value !== undefined && value !== '')) as ReadSettings,
    );
}
