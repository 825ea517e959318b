#!/usr/bin/env bash
# `npm run lint` (and beside jest in `npm test`): ESLint, then Prettier's check, of the paths given
# (the whole repository by default). `--fix` (`npm run format`) writes Prettier's formatting, then
# ESLint's fixes, instead.
set -euo pipefail
fix=false
if [ "${1:-}" = --fix ]; then
  fix=true
  shift
fi
if [ "$#" -eq 0 ]; then set -- .; fi
if "$fix"; then
  prettier --write --ignore-unknown "$@"
  eslint --fix "$@"
else
  eslint "$@"
  prettier --check --ignore-unknown "$@"
fi
