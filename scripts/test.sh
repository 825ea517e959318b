#!/usr/bin/env bash
# `npm test`: the set-up, the dependencies, the build and the linters side by side, then every test.
# with-env.sh (`--node-only`) has installed nothing but Node: the set-up's Go builds, downloads and
# plugin need no dependency, so they run while npm installs them. Once the dependencies are in,
# `eslint .` and `prettier --check .` start beside the build and the rest of the set-up rather than
# before or after: the linters take about a minute of CPU, the build and the set-up are each mostly
# single-threaded (the Go linker, the TypeScript compiler, the downloads), and jest's engine files
# keep both cores busy, so started first the linters end early instead of taking CPU from the tests.
# Jest's arguments are this script's (`npm test -- tests/unit` runs the unit tier alone, still
# linted); the exit status fails if the set-up, the dependencies, the build, the linters or the
# tests fail, and the linters' output follows the tests'.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# Interrupted, the jobs started beside end with it.
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
{ bash scripts/setup-pulumi.sh --yaml --sdkgen &&
  bash scripts/setup-plugins.sh &&
  bash scripts/setup-browsers.sh &&
  bash scripts/setup-actionlint.sh; } &
set_up_job=$!
bash scripts/with-env.sh true
installed=$?
lint_log="$(mktemp)"
build_log="$(mktemp)"
linted=1
built=1
if [ "$installed" -eq 0 ]; then
  bash scripts/lint.sh >"$lint_log" 2>&1 &
  lint=$!
  # The build's output is printed after the set-up's.
  bash scripts/build.sh >"$build_log" 2>&1 &
  build=$!
fi
wait "$set_up_job"
set_up=$?
if [ "$installed" -eq 0 ]; then
  wait "$build"
  built=$?
  cat "$build_log"
fi
rm -f "$build_log"
if [ "$installed" -ne 0 ]; then
  echo "npm test: the dependencies could not be installed (exit $installed); no build, linter or test ran" >&2
elif [ "$built" -ne 0 ]; then
  echo "npm test: the build failed (exit $built); no test ran" >&2
fi
if [ "$set_up" -ne 0 ]; then echo "npm test: the set-up failed (exit $set_up); no test ran" >&2; fi
tests=1
if [ "$set_up" -eq 0 ] && [ "$built" -eq 0 ]; then
  jest "$@"
  tests=$?
fi
if [ "$installed" -eq 0 ]; then
  wait "$lint"
  linted=$?
  echo
  echo "eslint . && prettier --check . (scripts/lint.sh):"
  cat "$lint_log"
  if [ "$linted" -ne 0 ]; then echo "npm test: the linters failed (exit $linted)" >&2; fi
fi
rm -f "$lint_log"
[ "$linted" -eq 0 ] && [ "$tests" -eq 0 ]
