import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { schemaLanguages } from '../provider/plugin/languages';

/**
 * `npm run sdk` (or `node dist/scripts/sdk.js [out dir]`): the Node.js, Python and Go SDKs of the `edgeguard` package, written into `sdk/`
 * from the plugin's schema (`dist/plugin/schema.json`, which `npm run build` generates) by
 * edgeguard-sdkgen (tools/pulumi/sdkgen, built by scripts/setup-pulumi.sh into .tools/sdkgen).
 * `pulumi package gen-sdk` cannot do it on this engine: it asks a language host to generate code,
 * which the v3.68 Node.js host cannot and no Python or Go host is here to do.
 *
 * The schema gets {@link schemaLanguages} (package names, the Go import path, where the plugin is
 * downloaded from) spread into its top level, as the schema generator is to do itself; the spread
 * changes nothing once it does.
 */

/** The repository: this script runs compiled, from `dist/scripts/`. */
const ROOT = path.resolve(__dirname, '..', '..');

/** Writes the SDKs of the schema at `schemaPath` into `<outDir>/{nodejs,python,go}`, each replaced whole. */
function generateSdks(outDir: string, schemaPath = path.join(ROOT, 'dist', 'plugin', 'schema.json')): void {
  const generator = path.join(ROOT, '.tools', 'sdkgen', 'edgeguard-sdkgen');
  if (!fs.existsSync(generator)) throw new Error(`${generator} is missing: run \`npm run setup\` first`);
  const schema = { ...(JSON.parse(fs.readFileSync(schemaPath, 'utf8')) as object), ...schemaLanguages };
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-sdk-'));
  try {
    const input = path.join(scratch, 'schema.json');
    fs.writeFileSync(input, JSON.stringify(schema));
    execFileSync(generator, [input, outDir], { stdio: 'inherit' });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

generateSdks(path.resolve(process.argv[2] ?? path.join(ROOT, 'sdk')));
