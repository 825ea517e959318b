#!/usr/bin/env bash
# Installs the two browsers of the CSP browser truth (tests/browser/), Debian's `chromium` and
# `firefox-esr`, when either is missing: `apt-get update` then `apt-get install` as root (CI runs
# as root on a fresh machine). Not root and missing: says what to install and fails, since the
# browser test never skips. Nothing to do when both are there.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/firefox-esr ] || missing+=(firefox-esr)
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "setup-browsers: the CSP browser truth needs ${missing[*]} (/usr/bin/chromium and /usr/bin/firefox-esr); as root, run: apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "setup-browsers: the CSP browser truth needs ${missing[*]}, and this machine has no apt-get to install them with: install Debian's chromium and firefox-esr packages (or their equivalents at /usr/bin/chromium and /usr/bin/firefox-esr)" >&2
  exit 1
fi
started=$(date +%s)
echo "setup-browsers: installing ${missing[*]} with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq "${missing[@]}" >&2
echo "setup-browsers: installed ${missing[*]} in $(( $(date +%s) - started )) s" >&2
