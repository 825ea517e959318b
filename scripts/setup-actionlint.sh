#!/usr/bin/env bash
# Builds actionlint, the linter of GitHub Actions workflows that tests/unit/ci/ runs on the
# workflows of examples/ci/, once into .tools/actionlint/ (ignored by git). No registry the
# project uses ships it, so it is built from its Go module, as the engine is (scripts/setup-pulumi.sh);
# the tag pins it, and the Go module proxy's checksum database checks it. Skipped when present.
set -euo pipefail

ACTIONLINT_VERSION=v1.7.12
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/.tools/actionlint"
stamp="$dir/.version"

if [ -x "$dir/actionlint" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$ACTIONLINT_VERSION" ]; then
  exit 0
fi
if ! command -v go >/dev/null; then
  echo "setup-actionlint: go is needed to build actionlint $ACTIONLINT_VERSION (Go 1.25 or newer)" >&2
  exit 1
fi
echo "setup-actionlint: building actionlint $ACTIONLINT_VERSION into .tools/actionlint/ (about 90 s)" >&2
mkdir -p "$dir"
GOBIN="$dir" go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
echo "$ACTIONLINT_VERSION" > "$stamp"

# actionlint checks the shell of `run:` steps with shellcheck when it is on PATH: install it when
# this runs as root on a Debian-like machine, else say that the shell goes unchecked.
if ! command -v shellcheck >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -qq shellcheck >&2 || echo "setup-actionlint: apt-get install shellcheck failed; run: steps go unchecked" >&2
  else
    echo "setup-actionlint: shellcheck is not installed; the shell of run: steps goes unchecked" >&2
  fi
fi
