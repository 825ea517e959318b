import * as fs from 'node:fs';
import * as path from 'node:path';
import * as sea from 'node:sea';

/**
 * The plugin's Pulumi schema (GetSchema, `pulumi package get-schema`), which `npm run build`
 * generates from the runtimes' zod schemas and their metadata (scripts/schema.ts). In the single
 * executable it is the asset `schema.json`; run from the compiled package, the file
 * `dist/plugin/schema.json`.
 */
export function schemaText(): string {
  if (sea.isSea()) return sea.getAsset('schema.json', 'utf8');
  // From dist/provider/plugin/ up to dist/.
  return fs.readFileSync(path.join(__dirname, '..', '..', 'plugin', 'schema.json'), 'utf8');
}
