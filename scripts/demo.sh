#!/usr/bin/env bash
# `npm run demo` (called by with-env.sh after the build).
set -euo pipefail
cd "$(dirname "$0")/.."
exec node dist/scripts/demo.js
