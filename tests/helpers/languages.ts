import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO } from './engine';

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
