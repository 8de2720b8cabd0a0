#!/usr/bin/env bash
# Installs what the VS Code end-to-end test needs, idempotently: code-server 4.100.3 (VS Code
# 1.100.3, the last release on Node 20) in a cache directory, playwright-core and Taplo (npm ci
# here; Taplo checks the requirements.toml schema in tests/codexconfig), and
# the extension's .vsix (npm ci + npm run package in vscode-client/). Debian's chromium comes from
# .ci/run's apt line. Offline-safe: nothing here talks to GitHub or the VS Code update servers.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"; ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${SHELLGATE_E2E_CACHE:-$HOME/.cache/shellgate-e2e}"
CS_VERSION=4.100.3
t() { echo "[vscode-e2e setup $(date +%T)] $*"; }
mkdir -p "$CACHE"

if [ ! -x "$CACHE/cs/node_modules/.bin/code-server" ] || \
   ! grep -q "\"version\": \"$CS_VERSION\"" "$CACHE/cs/node_modules/code-server/package.json" 2>/dev/null; then
  t "code-server@$CS_VERSION into $CACHE/cs"
  # @vscode/ripgrep's postinstall downloads rg from GitHub; seed its cache with Debian's rg.
  RGV=1.15.11; mkdir -p "/tmp/vscode-ripgrep-cache-$RGV" "$CACHE/rg"; cp "$(command -v rg)" "$CACHE/rg/rg"
  tar czf "/tmp/vscode-ripgrep-cache-$RGV/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$CACHE/rg" rg
  mkdir -p "$CACHE/cs"
  ( cd "$CACHE/cs" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    # unsafe_perm: its postinstall refuses root otherwise; nodedir: node-gyp uses the system
    # headers instead of fetching them; yes: node-pty's postinstall runs npx without a TTY.
    npm_config_unsafe_perm=true npm_config_yes=true npm_config_nodedir=/usr \
      npm install --no-audit --no-fund "code-server@$CS_VERSION" >"$CACHE/cs-install.log" 2>&1 ) \
    || { tail -40 "$CACHE/cs-install.log"; exit 1; }
fi

t "playwright-core, @taplo/cli (npm ci)"
( cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error )

t "extension: npm ci && npm run package"
( cd "$ROOT/vscode-client" && npm ci --no-audit --no-fund --loglevel=error && npm run -s package )
t "ready: $(ls "$ROOT"/vscode-client/shellgate-*.vsix)"
