import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * `npm run sdk` (or `node dist/scripts/sdk.js [out dir]`): the Node.js, Python and Go SDKs of the `edgeguard` package, written into `sdk/`
 * from the plugin's schema (`dist/plugin/schema.json`, which `npm run build` generates) by
 * edgeguard-sdkgen (tools/pulumi/sdkgen, built by scripts/setup-pulumi.sh into .tools/sdkgen).
 * `pulumi package gen-sdk` cannot do it on this engine: it asks a language host to generate code,
 * which the v3.68 Node.js host cannot and no Python or Go host is here to do.
 */

/** The repository: this script runs compiled, from `dist/scripts/`. */
const ROOT = path.resolve(__dirname, '..', '..');

/** Writes the SDKs of the schema at `schemaPath` into `<outDir>/{nodejs,python,go}`, each replaced whole. */
function generateSdks(outDir: string, schemaPath = path.join(ROOT, 'dist', 'plugin', 'schema.json')): void {
  const generator = path.join(ROOT, '.tools', 'sdkgen', 'edgeguard-sdkgen');
  if (!fs.existsSync(generator)) throw new Error(`${generator} is missing: run \`npm run setup\` first`);
  execFileSync(generator, [schemaPath, outDir], { stdio: 'inherit' });
}

if (process.argv.length > 3) {
  process.stderr.write(
    `sdk: takes at most one argument, the output folder (got: ${process.argv.slice(2).join(' ')})\n`,
  );
  process.exit(2);
}
generateSdks(path.resolve(process.argv[2] ?? path.join(ROOT, 'sdk')));
