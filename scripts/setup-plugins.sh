#!/usr/bin/env bash
# Installs the engine plugins the project's programs use into one plugin cache,
# .tools/pulumi-home/plugins, which every PULUMI_HOME of the project links to as its `plugins`
# (scripts/pulumi-home.ts: the demo's and each test stack's). Today that is
# `pulumi-resource-command`, the plugin of @pulumi/command, at the version package.json pins.
#
# Nothing to do when the cache holds it. Otherwise, first the normal way,
# `pulumi plugin install resource command vX`, which downloads it (cut short after
# $EDGEGUARD_PLUGIN_DOWNLOAD_SECONDS, default 20, so an offline machine does not hang: without DNS
# it fails in about 3 s); then from the release archive in ../shared/plugins (or
# $EDGEGUARD_PLUGIN_ARCHIVES), checked against its SHA-256, with `pulumi plugin install ... --file`.
# It says which it did, and fails saying what to provide when neither works. The plugin is never
# put on PATH: the engine would warn that it uses a plugin "from $PATH".
set -euo pipefail
if [ "$#" -gt 0 ]; then echo "setup-plugins.sh: takes no arguments (got: $*)" >&2; exit 2; fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
home="$root/.tools/pulumi-home"
name=command
version="$(node -p "require('$root/package.json').dependencies['@pulumi/command']")"
# The release archive of pulumi-resource-command v1.2.1 for linux/amd64 (../shared/plugins/README.md).
archive_sha256=76fee38597606d1b239c5e53d2b5da862b757df7b51b62e8263e2254ccc23b55
archive_version=1.2.1
archives="${EDGEGUARD_PLUGIN_ARCHIVES:-$root/../shared/plugins}"
archives="$(cd "$archives" 2>/dev/null && pwd || echo "$archives")"
archive="$archives/pulumi-resource-$name-v$version-linux-amd64.tar.gz"
download_seconds="${EDGEGUARD_PLUGIN_DOWNLOAD_SECONDS:-20}"

installed="$home/plugins/resource-$name-v$version/pulumi-resource-$name"
if [ -x "$installed" ] && [ ! -e "$home/plugins/resource-$name-v$version.partial" ]; then
  exit 0
fi

pulumi="$(command -v pulumi || true)"
if [ -z "$pulumi" ]; then
  echo "setup-plugins: no pulumi on PATH; run scripts/setup-pulumi.sh first (npm run setup does both)" >&2
  exit 1
fi
mkdir -p "$home/plugins"
export PULUMI_HOME="$home" PULUMI_SKIP_UPDATE_CHECK=true

started=$(date +%s)
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
timeout "$download_seconds" "$pulumi" plugin install resource "$name" "v$version" >"$log" 2>&1 || status=$?
if [ "$status" -eq 0 ]; then
  echo "setup-plugins: downloaded pulumi-resource-$name v$version (pulumi plugin install) into .tools/pulumi-home/plugins in $(( $(date +%s) - started )) s" >&2
  exit 0
fi
if [ "$status" -eq 124 ]; then
  why="no answer within $download_seconds s"
else
  why="$(grep -m1 -o 'error: .*' "$log" || tail -n1 "$log")"
fi
echo "setup-plugins: could not download pulumi-resource-$name v$version in $(( $(date +%s) - started )) s ($why); installing it from $archive" >&2

fail() {
  echo "setup-plugins: cannot install pulumi-resource-$name v$version, the engine plugin of @pulumi/command: the download failed ($why) and $1." >&2
  echo "setup-plugins: give this machine access to get.pulumi.com, or put the release archive pulumi-resource-$name-v$version-linux-amd64.tar.gz (SHA-256 $archive_sha256) in $archives (or in a folder named by EDGEGUARD_PLUGIN_ARCHIVES)." >&2
  exit 1
}
if [ "$version" != "$archive_version" ]; then
  fail "the archive's checksum here is for v$archive_version: update scripts/setup-plugins.sh with the new archive's SHA-256"
fi
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  fail "the release archive is for linux/amd64, and this machine is $(uname -s)/$(uname -m)"
fi
if [ ! -f "$archive" ]; then
  fail "$archive does not exist"
fi
actual="$(sha256sum "$archive" | cut -c1-64)"
if [ "$actual" != "$archive_sha256" ]; then
  fail "$archive has SHA-256 $actual, not the release's $archive_sha256"
fi
"$pulumi" plugin install resource "$name" "v$version" --file "$archive" >"$log" 2>&1 || fail "pulumi plugin install --file $archive failed: $(tail -n1 "$log")"
echo "setup-plugins: installed pulumi-resource-$name v$version from $archive (SHA-256 checked) into .tools/pulumi-home/plugins" >&2
