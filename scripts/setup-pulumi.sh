#!/usr/bin/env bash
# Provides a real Pulumi engine: `scripts/setup-pulumi.sh [--yaml] [--sdkgen]`.
# - Always: the CLI, the Node.js language host and the `pulumi-resource-pulumi-nodejs` plugin of
#   dynamic providers, in .tools/pulumi/bin: all `npm run demo` runs.
# - `--yaml`: the YAML language host beside them (the tests run YAML programs).
# - `--sdkgen`: edgeguard-sdkgen (tools/pulumi/sdkgen), which writes the SDKs of `npm run sdk`, in
#   .tools/sdkgen (the SDK test regenerates them).
# So the demo builds only what it runs: on a new machine the YAML host and the generator cost
# about a minute more of Go builds that the demo never uses.
#
# No registry ships the CLI, so it is built from Go modules, pinned with checksums by the wrapper
# modules in tools/pulumi/. The CLI's version is the @pulumi/pulumi version of package.json (checked
# here: they must agree). The Node.js language host comes from the newest sdk/v3 release whose
# module still contains it (v3.68.0; later releases moved it into a module of its own, which the Go
# module proxy this project can reach does not serve); the YAML host is pulumi-yaml's release, and
# sits beside `pulumi` so the engine finds it without a "from $PATH" warning. Nothing is downloaded
# at run time: plugins are never acquired automatically.
#
# Each build is skipped when its stamp (a checksum of the go.sum files it was built from) matches:
# the CLI and the Node.js host share one, the YAML host and edgeguard-sdkgen have one each, so adding
# or bumping one rebuilds nothing else. The engine is skipped whole when a `pulumi` of the pinned
# version or newer is on PATH already, as most users have one (a release ships the YAML host beside
# it); only a machine without one builds.
set -euo pipefail

want_yaml="" want_sdkgen=""
for option in "$@"; do
  case "$option" in
    --yaml) want_yaml=yes ;;
    --sdkgen) want_sdkgen=yes ;;
    *) echo "setup-pulumi: unknown option $option (usage: setup-pulumi.sh [--yaml] [--sdkgen])" >&2; exit 1 ;;
  esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"

version="$(node -p "require('$root/package.json').dependencies['@pulumi/pulumi']")"
for module in cli sdkgen; do
  if ! grep -q "github.com/pulumi/pulumi/pkg/v3 v$version\$" "$root/tools/pulumi/$module/go.mod"; then
    echo "setup-pulumi: tools/pulumi/$module/go.mod does not require pkg/v3 v$version, the @pulumi/pulumi of package.json; update them together" >&2
    exit 1
  fi
done

# The checksum a build is stamped with: of the files it was built from.
checksum() { cat "$@" | sha256sum | cut -c1-64; }
# Whether the stamp $1 says the executable $2 was built from what checksums to $3.
built() { [ -f "$1" ] && [ "$(cat "$1")" = "$3" ] && [ -x "$2" ]; }
go_checked=""
require_go() {
  [ -n "$go_checked" ] && return
  if ! command -v go >/dev/null 2>&1; then
    echo "setup-pulumi: building $1 needs Go 1.25.11 or newer (none on PATH); install Go, or put pulumi v$version on PATH" >&2
    exit 1
  fi
  local go_version
  go_version="$(go env GOVERSION | sed 's/^go//')"
  if [ "$(printf '%s\n1.25.11\n' "$go_version" | sort -V | head -1)" != "1.25.11" ]; then
    echo "setup-pulumi: Go $go_version is too old to build $1; it needs 1.25.11 or newer" >&2
    exit 1
  fi
  go_checked=yes
}
export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=readonly
# go_build <wrapper module in tools/pulumi> <package> <output> [<version variable>=<version>]: the
# version is stamped in, or `pulumi version` prints nothing and the Automation API refuses it.
go_build() {
  (cd "$root/tools/pulumi/$1" && go build -trimpath -tags osusergo,grpcnotrace \
    -ldflags "-s -w${4:+ -X $4}" -o "$3" "$2")
}
sdk_version_variable=github.com/pulumi/pulumi/sdk/v3/go/common/version.Version

sdkgen="$tools/sdkgen"
want="$(checksum "$root/tools/pulumi/sdkgen/go.sum" "$root/tools/pulumi/sdkgen/main.go")"
if [ -n "$want_sdkgen" ] && ! built "$sdkgen/.built" "$sdkgen/edgeguard-sdkgen" "$want"; then
  require_go edgeguard-sdkgen
  echo "setup-pulumi: building edgeguard-sdkgen (the SDK generators of pkg/v3 v$version) into .tools/sdkgen (once; about 30 s)" >&2
  mkdir -p "$sdkgen"
  go_build sdkgen . "$sdkgen/edgeguard-sdkgen"
  echo "$want" > "$sdkgen/.built"
fi

# A suitable engine on PATH (outside .tools) wins: the pinned version or newer.
existing="$(PATH="$(echo "$PATH" | tr ':' '\n' | grep -v "^$tools" | paste -sd:)" command -v pulumi || true)"
if [ -n "$existing" ]; then
  existing_version="$("$existing" version 2>/dev/null | sed 's/^v//')"
  if [ -n "$existing_version" ] && [ "$(printf '%s\n%s\n' "$version" "$existing_version" | sort -V | head -1)" = "$version" ]; then
    exit 0
  fi
fi

# The CLI's two copies of zxcvbn-go (a password-strength estimator) decode their word lists at the
# start of every `pulumi` command; tools/pulumi/cli/lazy-zxcvbn.pl makes them do it at first use.
# Copies of the modules, as Go's module cache holds them (checked against go.sum), are patched in
# .tools/pulumi-cli-modules/, and the CLI is built with a go.mod that replaces the modules by them.
lazy_modules() {
  local folder="$tools/pulumi-cli-modules" modfile line module dir copy
  rm -rf "$folder"
  mkdir -p "$folder"
  modfile="$folder/go.mod"
  cp "$root/tools/pulumi/cli/go.mod" "$modfile"
  cp "$root/tools/pulumi/cli/go.sum" "$folder/go.sum"
  while read -r line; do
    module="${line%% *}"
    dir="${line#* }"
    [ -d "$dir" ] || { echo "setup-pulumi: Go did not download $module" >&2; return 1; }
    copy="$folder/${module//\//_}"
    cp -R "$dir" "$copy"
    chmod -R u+w "$copy"
    perl "$root/tools/pulumi/cli/lazy-zxcvbn.pl" "$copy" || return 1
    # A module folder needs a go.mod; the older of the two predates modules.
    [ -f "$copy/go.mod" ] || echo "module $module" > "$copy/go.mod"
    echo "replace $module => $copy" >> "$modfile"
  done < <(cd "$root/tools/pulumi/cli" && go mod download -json github.com/nbutton23/zxcvbn-go github.com/ccojocar/zxcvbn-go |
    sed -n -e 's/^[[:space:]]*"Path": "\(.*\)",\{0,1\}$/\1/p' -e 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' | paste -d' ' - -)
  [ "$(grep -c '^replace ' "$modfile")" = 2 ] || { echo "setup-pulumi: zxcvbn-go's modules were not both found" >&2; return 1; }
  echo "$modfile"
}

target="$tools/pulumi-v$version"
mkdir -p "$target/bin"
want="$(checksum "$root/tools/pulumi/cli/go.sum" "$root/tools/pulumi/cli/lazy-zxcvbn.pl" "$root/tools/pulumi/language-nodejs/go.sum")"
if ! built "$target/.built" "$target/bin/pulumi" "$want"; then
  require_go "the Pulumi CLI"
  echo "setup-pulumi: building Pulumi v$version (CLI) and the Node.js language host from Go modules into .tools/ (once; a few minutes)" >&2
  started=$(date +%s)
  modfile="$(lazy_modules)"
  GOFLAGS="$GOFLAGS -modfile=$modfile" go_build cli github.com/pulumi/pulumi/pkg/v3/cmd/pulumi "$target/bin/pulumi" "$sdk_version_variable=v$version"
  host_version="$(sed -n 's#^require github.com/pulumi/pulumi/sdk/v3 \(v[0-9.]*\)$#\1#p' "$root/tools/pulumi/language-nodejs/go.mod")"
  go_build language-nodejs github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs \
    "$target/bin/pulumi-language-nodejs" "$sdk_version_variable=$host_version"
  echo "$want" > "$target/.built"
  echo "setup-pulumi: built $("$target/bin/pulumi" version) in $(( $(date +%s) - started )) s" >&2
fi

# Written at every set-up, built or not, so that a change to it reaches a folder built before.
# What release archives put beside `pulumi`: the dynamic provider host, run from the program's
# directory, where @pulumi/pulumi is installed. Found as node would find it from there (the
# nearest node_modules up the tree) without starting node to ask, which cost 0.1 s of CPU at
# every operation; anywhere else, node is asked.
cat > "$target/bin/pulumi-resource-pulumi-nodejs" <<'EOF'
#!/bin/sh
dir="$PWD"
while :; do
  host="$dir/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js"
  if [ -f "$host" ]; then exec node "$host" "$@"; fi
  [ "$dir" = / ] && break
  dir="$(dirname "$dir")"
done
exec node "$(node -p 'require.resolve("@pulumi/pulumi/cmd/dynamic-provider")')" "$@"
EOF
chmod +x "$target/bin/pulumi-resource-pulumi-nodejs"

want="$(checksum "$root/tools/pulumi/language-yaml/go.sum")"
if [ -n "$want_yaml" ] && ! built "$target/.built-language-yaml" "$target/bin/pulumi-language-yaml" "$want"; then
  require_go "the YAML language host"
  yaml_version="$(sed -n 's#^require github.com/pulumi/pulumi-yaml \(v[0-9.]*\)$#\1#p' "$root/tools/pulumi/language-yaml/go.mod")"
  echo "setup-pulumi: building the YAML language host $yaml_version into .tools/ (once; about 30 s)" >&2
  started=$(date +%s)
  go_build language-yaml github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml "$target/bin/pulumi-language-yaml" \
    "github.com/pulumi/pulumi-yaml/pkg/version.Version=$yaml_version"
  echo "$want" > "$target/.built-language-yaml"
  echo "setup-pulumi: built pulumi-language-yaml $yaml_version in $(( $(date +%s) - started )) s" >&2
fi
ln -sfn "pulumi-v$version" "$tools/pulumi"  # relative, so a worktree that shares .tools/ keeps it
