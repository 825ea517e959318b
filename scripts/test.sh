#!/usr/bin/env bash
# `npm test`: the set-up and the build side by side, then every test; `eslint .` and `prettier
# --check .` run beside all of it rather than before or after. The linters take about a minute and
# a half of CPU. The set-up and the build are each mostly single-threaded (the Go linker, the
# TypeScript compiler, the downloads), and jest's engine files keep both cores busy: started
# first, the linters end during the set-up and the build instead of taking CPU from the tests.
# Jest's arguments are this script's (`npm test -- tests/unit` runs the unit tier alone, still
# linted); the exit status fails if the set-up, the build, the linters or the tests fail, and the
# linters' output follows the tests'.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
lint_log="$(mktemp)"
bash scripts/lint.sh >"$lint_log" 2>&1 &
lint=$!
# The build needs nothing of the set-up but Node and the dependencies, which with-env.sh installed:
# it runs beside the set-up's Go builds and downloads, its output printed after them.
build_log="$(mktemp)"
bash scripts/build.sh >"$build_log" 2>&1 &
build=$!
bash scripts/setup-pulumi.sh --yaml --sdkgen &&
  bash scripts/setup-plugins.sh &&
  bash scripts/setup-browsers.sh &&
  bash scripts/setup-actionlint.sh
set_up=$?
wait "$build"
built=$?
cat "$build_log"
rm -f "$build_log"
if [ "$set_up" -ne 0 ]; then echo "npm test: the set-up failed (exit $set_up); no test ran" >&2; fi
if [ "$built" -ne 0 ]; then echo "npm test: the build failed (exit $built); no test ran" >&2; fi
tests=1
if [ "$set_up" -eq 0 ] && [ "$built" -eq 0 ]; then
  jest "$@"
  tests=$?
fi
wait "$lint"
linted=$?
echo
echo "eslint . && prettier --check . (scripts/lint.sh):"
cat "$lint_log"
rm -f "$lint_log"
if [ "$linted" -ne 0 ]; then echo "npm test: the linters failed (exit $linted)" >&2; fi
[ "$linted" -eq 0 ] && [ "$tests" -eq 0 ]
