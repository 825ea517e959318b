#!/usr/bin/env bash
# `npm test` after its set-up and build: `eslint .` and `prettier --check .` run beside jest rather
# than before it. The linters take about a minute of CPU; jest's longest files mostly wait (the
# service's issuance windows, hostnames becoming active), leaving a core idle that the linters use.
# Jest's arguments are this script's (`npm test -- tests/unit` runs the unit tier alone, still linted); the exit status fails if the linters or the tests fail, and
# the linters' output follows the tests'.
set -u
lint_log="$(mktemp)"
bash scripts/lint.sh >"$lint_log" 2>&1 &
lint=$!
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
