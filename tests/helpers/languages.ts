import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO } from './repo';
import { runToEnd } from './process';

/** The folder of the plugin's single executable, as `npm run build` writes it. */
export const PLUGIN_BUILD = path.join(REPO, 'dist', 'plugin');

/**
 * Points the project at `workDir` to the plugin this repository built (its single executable,
 * which needs no Node.js), as a user's `Pulumi.yaml` may with `plugins: providers:`, so a test
 * needs no plugin installed in its PULUMI_HOME.
 */
export function usePluginBuild(workDir: string): void {
  const file = path.join(workDir, 'Pulumi.yaml');
  const project = fs.readFileSync(file, 'utf8');
  if (/^plugins:/m.test(project)) throw new Error(`${file} has a plugins section already`);
  fs.writeFileSync(
    file,
    `${project}plugins:\n  providers:\n    - name: edgeguard\n      path: ${JSON.stringify(PLUGIN_BUILD)}\n`,
  );
}

/** The package's version, which is the plugin's. */
export function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The plugin's release archive, as `npm run build` writes it. */
export function pluginArchive(): string {
  return path.join(PLUGIN_BUILD, `pulumi-resource-edgeguard-v${packageVersion()}-linux-amd64.tar.gz`);
}

/**
 * Makes `home` a PULUMI_HOME of its own with the plugin installed from its release archive, as a
 * user installs it (`pulumi plugin install resource edgeguard <version> --file <archive>`); the
 * project's shared plugin cache is left alone. Returns `home`.
 */
export async function installPlugin(home: string): Promise<string> {
  const version = packageVersion();
  const archive = pluginArchive();
  fs.mkdirSync(home, { recursive: true });
  const pulumi = path.join(REPO, '.tools', 'pulumi', 'bin', 'pulumi');
  const install = await runToEnd(
    pulumi,
    ['plugin', 'install', 'resource', 'edgeguard', `v${version}`, '--file', archive],
    { env: { PULUMI_HOME: home, PULUMI_SKIP_UPDATE_CHECK: 'true' } },
  );
  if (install.status !== 0) throw new Error(`pulumi plugin install failed:\n${install.stderr}`);
  return home;
}
