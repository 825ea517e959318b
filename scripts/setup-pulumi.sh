#!/usr/bin/env bash
# Provides a real Pulumi engine for `npm run demo` and `npm test`: the CLI, the Node.js language
# host and the `pulumi-resource-pulumi-nodejs` plugin of dynamic providers, in .tools/pulumi/bin.
#
# No registry ships the CLI, so it is built from Go modules, pinned with checksums by the wrapper
# modules in tools/pulumi/. The CLI's version is the @pulumi/pulumi version of package.json (checked
# here: they must agree). The language host comes from the newest sdk/v3 release whose module
# still contains it (v3.68.0; later releases moved it into a module of its own, which the Go
# module proxy this project can reach does not serve). Nothing is downloaded at run time: plugins
# are never acquired automatically.
#
# Skipped when a `pulumi` of the same version is on PATH already, or when this script built it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"

version="$(node -p "require('$root/package.json').dependencies['@pulumi/pulumi']")"
if ! grep -q "github.com/pulumi/pulumi/pkg/v3 v$version\$" "$root/tools/pulumi/cli/go.mod"; then
  echo "setup-pulumi: tools/pulumi/cli/go.mod does not require pkg/v3 v$version, the @pulumi/pulumi of package.json; update both together" >&2
  exit 1
fi

# A suitable engine on PATH (outside .tools) wins.
existing="$(PATH="$(echo "$PATH" | tr ':' '\n' | grep -v "^$tools" | paste -sd:)" command -v pulumi || true)"
if [ -n "$existing" ] && [ "$("$existing" version 2>/dev/null)" = "v$version" ]; then
  exit 0
fi

target="$tools/pulumi-v$version"
stamp="$target/.built"
want="$(cat "$root/tools/pulumi/cli/go.sum" "$root/tools/pulumi/language-nodejs/go.sum" | sha256sum | cut -c1-64)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$target/bin/pulumi" ]; then
  ln -sfn "$target" "$tools/pulumi"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "setup-pulumi: building the Pulumi CLI needs Go 1.25.11 or newer (none on PATH); install Go, or put pulumi v$version on PATH" >&2
  exit 1
fi
go_version="$(go env GOVERSION | sed 's/^go//')"
if [ "$(printf '%s\n1.25.11\n' "$go_version" | sort -V | head -1)" != "1.25.11" ]; then
  echo "setup-pulumi: Go $go_version is too old to build the Pulumi CLI; it needs 1.25.11 or newer" >&2
  exit 1
fi

echo "setup-pulumi: building Pulumi v$version (CLI) and the Node.js language host from Go modules into .tools/ (once; a few minutes)" >&2
started=$(date +%s)
mkdir -p "$target/bin"
export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=readonly
(cd "$root/tools/pulumi/cli" && go build -trimpath -tags osusergo,grpcnotrace \
  -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$version" \
  -o "$target/bin/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi)
host_version="$(sed -n 's#^require github.com/pulumi/pulumi/sdk/v3 \(v[0-9.]*\)$#\1#p' "$root/tools/pulumi/language-nodejs/go.mod")"
(cd "$root/tools/pulumi/language-nodejs" && go build -trimpath \
  -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$host_version" \
  -o "$target/bin/pulumi-language-nodejs" github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs)
# What release archives put beside `pulumi`: the dynamic provider host, run from the program's
# directory, where @pulumi/pulumi is installed.
cat > "$target/bin/pulumi-resource-pulumi-nodejs" <<'EOF'
#!/bin/sh
exec node "$(node -p 'require.resolve("@pulumi/pulumi/cmd/dynamic-provider")')" "$@"
EOF
chmod +x "$target/bin/pulumi-resource-pulumi-nodejs"
echo "$want" > "$stamp"
ln -sfn "$target" "$tools/pulumi"
echo "setup-pulumi: built $("$target/bin/pulumi" version) in $(( $(date +%s) - started )) s" >&2
