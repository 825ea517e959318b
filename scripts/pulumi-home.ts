import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Every PULUMI_HOME the project uses (the demo's, each test or benchmark stack's) finds the engine
 * plugins in one place: the plugin cache that scripts/setup-plugins.sh installs into. A home's
 * `plugins` folder is a link to it, so a plugin is installed once, with no copy per home and no
 * plugin on PATH (which the engine would warn about).
 */

/** The plugin cache of the repository at `root` (the `plugins` folder of the PULUMI_HOME `.tools/pulumi-home`). */
export function pluginCache(root: string): string {
  return path.join(root, '.tools', 'pulumi-home', 'plugins');
}

/** Makes `home` (created if missing) a PULUMI_HOME whose plugins are those of the cache of `root`; returns `home`. */
export function pulumiHome(root: string, home: string): string {
  const cache = pluginCache(root);
  fs.mkdirSync(cache, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  const link = path.join(home, 'plugins');
  let target: string | undefined;
  try {
    target = fs.readlinkSync(link);
  } catch {
    target = undefined;
  }
  if (target !== cache) {
    // A home from before the cache (or one pointing elsewhere): its own plugins give way to the cache's.
    fs.rmSync(link, { recursive: true, force: true });
    fs.symlinkSync(cache, link);
  }
  return home;
}
