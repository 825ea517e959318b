#!/usr/bin/env bash
# Runs a shell command line with Node.js 22+ first on PATH and the project's dependencies
# installed. Every npm script goes through here, so a fresh clone needs nothing but bash, npm and
# a network path to the npm registry.
#
#   bash scripts/with-env.sh [--node-only] '<command line>' [argument...]
#
# `--node-only` leaves the dependencies to the command line, which installs them with
# `bash scripts/with-env.sh true` when it needs them: `npm test` does, beside the set-up's Go builds.
#
# The arguments after the command line are appended to it, each quoted as one word, as npm appends
# what follows `--` to a script: `npm test -- tests/unit` runs `bash scripts/test.sh
# tests/unit`, and `npm run bench -- payment --rounds=3` hands `payment --rounds=3` to the
# benchmarks. They go to the last command of the line.
#
# Node: the machine's own when it is 22 or newer; otherwise the pinned Node 24 from the npm
# registry's `node-linux-<arch>` package, installed once into .tools/ (ignored by git).
set -euo pipefail

NODE_VERSION=24.21.0
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

ensure_node() {
  local system_node
  system_node="$(command -v node || true)"
  if [ -n "$system_node" ] && [ "$(node_major "$system_node")" -ge 22 ]; then
    return
  fi
  local arch
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) echo "with-env: no Node.js 22+ here and no node-linux package for $(uname -m)" >&2; exit 1 ;;
  esac
  local prefix="$tools/node-$NODE_VERSION"
  local binary="$prefix/node_modules/node-linux-$arch/bin/node"
  if [ ! -x "$binary" ]; then
    echo "with-env: installing Node.js $NODE_VERSION from the npm registry into .tools/ (system node is $(node --version 2>/dev/null || echo absent))" >&2
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-save --no-package-lock --loglevel=error \
      "node-linux-$arch@$NODE_VERSION" >&2
  fi
  mkdir -p "$tools/bin"
  ln -sf "$binary" "$tools/bin/node"
  export PATH="$tools/bin:$PATH"
}

ensure_dependencies() {
  local stamp="$root/node_modules/.edgeguard-lock"
  local want
  want="$(node -p 'process.versions.node.split(".")[0]')-$(sha256sum "$root/package-lock.json" | cut -c1-64)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "with-env: installing dependencies from package-lock.json" >&2
    # Not `npm ci`: npm 11 with omit-lockfile-registry-resolved (this machine's setting, so that no
    # registry address lands in the repository) leaves other platforms' optional packages out of
    # the lock, and `npm ci` then refuses the lock it wrote. `install --no-save` keeps to the
    # locked versions and leaves the lock as it is.
    (cd "$root" && npm install --no-save --no-audit --no-fund --loglevel=error >&2)
    echo "$want" > "$stamp"
  fi
}

install_dependencies=true
if [ "${1:-}" = --node-only ]; then
  install_dependencies=false
  shift
fi
ensure_node
if "$install_dependencies"; then ensure_dependencies; fi
# The Pulumi engine that scripts/setup-pulumi.sh provides (when it builds one), and no download of
# plugins or update checks: this machine reaches no plugin server.
export PATH="$root/node_modules/.bin:$tools/pulumi/bin:$PATH"
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true PULUMI_SKIP_UPDATE_CHECK=true
# Node's compile cache for every Node.js process started from here, from its first module on: the
# engine starts a program, a dynamic-provider host and a policy pack afresh for every operation,
# each loading @pulumi/pulumi (and the program ts-node and TypeScript) before any code of ours could
# turn the cache on. Node checks each entry against the source; the folder is ignored by git.
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$tools/node-compile-cache}"
cd "$root"
command_line="${1:?usage: bash scripts/with-env.sh [--node-only] '<command line>' [argument...]}"
shift
if [ "$#" -gt 0 ]; then command_line+="$(printf ' %q' "$@")"; fi
exec bash -c "$command_line"
