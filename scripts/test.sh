#!/usr/bin/env bash
# `npm test`: the set-up, the build, then every test; `eslint .` and `prettier --check .` run beside
# all of it rather than before or after. The linters take about a minute and a half of CPU. The
# set-up and the build leave a core mostly idle (the TypeScript compiler, the downloads and the
# plugins' set-up are single-threaded), and jest's engine files keep both busy: started first, the
# linters end during the set-up and the build instead of taking CPU from the tests.
# Jest's arguments are this script's (`npm test -- tests/unit` runs the unit tier alone, still
# linted); the exit status fails if the set-up, the linters or the tests fail, and the linters'
# output follows the tests'.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
lint_log="$(mktemp)"
bash scripts/lint.sh >"$lint_log" 2>&1 &
lint=$!
bash scripts/setup-pulumi.sh --yaml --sdkgen &&
  bash scripts/setup-plugins.sh &&
  bash scripts/setup-browsers.sh &&
  bash scripts/setup-actionlint.sh &&
  bash scripts/build.sh &&
  jest "$@"
tests=$?
wait "$lint"
linted=$?
echo
echo "eslint . && prettier --check . (scripts/lint.sh):"
cat "$lint_log"
rm -f "$lint_log"
if [ "$linted" -ne 0 ]; then echo "npm test: the linters failed (exit $linted)" >&2; fi
[ "$linted" -eq 0 ] && [ "$tests" -eq 0 ]
