#!/usr/bin/env bash
# `npm run test:unit` and the other tiers' scripts: jest on one tier's folder of tests/, with the
# arguments that follow the tier (`npm run test:unit -- tests/unit/rules -t origin` runs the tests of
# tests/unit/rules named like "origin"). The tier is given as jest's `--roots`, after the arguments:
# a path given as well then narrows the tier rather than adding to it (jest ORs the paths it is
# given), and `--roots` takes every word after it, so it comes last.
set -euo pipefail
tier="${1:?usage: bash scripts/jest-tier.sh unit|service|engine|browser [jest argument...]}"
shift
case "$tier" in
  unit | service | engine | browser) ;;
  *) echo "jest-tier: no tier \"$tier\"; the tiers are unit, service, engine and browser" >&2; exit 2 ;;
esac
exec jest "$@" --roots "<rootDir>/tests/$tier"
