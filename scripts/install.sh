#!/usr/bin/env bash
# Installs what aide needs on Debian/Ubuntu: the system packages nats-server, bubblewrap, ripgrep,
# git and openssl (it makes the bus's per-stack TLS certificate) when missing (apt-get as root; otherwise a message naming the packages), then the npm
# packages (npm ci). --with-browser (the test command) adds chromium, for the web panel's browser test, and
# python3, which the eval task suite's Python checks run with.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }
have nats-server || missing+=(nats-server)
have bwrap || missing+=(bubblewrap)
have rg || missing+=(ripgrep)
have git || missing+=(git)
have openssl || missing+=(openssl)
if [ "${1:-}" = "--with-browser" ]; then
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  have python3 || missing+=(python3)
fi

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "aide needs these Debian packages, which are missing: ${missing[*]}" >&2
    echo "install them as root: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
