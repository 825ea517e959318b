#!/usr/bin/env bash
# The one build step of `npm run build`, `npm test`, `npm run demo` and `npm run bench`: the
# TypeScript, then the provider plugin's schema (generated from the runtimes' zod schemas and their
# metadata), then its single executable and release archive under dist/plugin/ (skipped in about a
# second when the bundle, schema and node are those of the last build).
set -euo pipefail
if [ "$#" -gt 0 ]; then echo "build.sh: takes no arguments (got: $*)" >&2; exit 2; fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tsc -p tsconfig.json
node dist/scripts/schema.js
node dist/scripts/build-plugin.js
