#!/usr/bin/env bash
# `npm run demo` (called by with-env.sh after the build).
set -euo pipefail
if [ "$#" -gt 0 ]; then echo "demo.sh: takes no arguments (got: $*)" >&2; exit 2; fi
cd "$(dirname "$0")/.."
exec node dist/scripts/demo.js
