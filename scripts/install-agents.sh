#!/usr/bin/env bash
# Installs the real agent CLIs the tests drive, pinned, from npm, idempotently, each in its own
# folder under $SHELLGATE_TOOLS (default: .tools/ in the checkout):
#   codex-0.169.0/ codex-0.171.0/ (@openai/codex), claude/ (@anthropic-ai/claude-code),
#   gemini/ (@google/gemini-cli), copilot/ (@github/copilot). A newer Codex is one line in PINS
#   away. Copilot's loader unpacks 235 MB into its package cache on first run: done here once,
#   into copilot/pkgcache (tests point COPILOT_PKG_CACHE_HOME there).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TOOLS="${SHELLGATE_TOOLS:-$ROOT/.tools}"
PINS=(
  "codex-0.169.0 @openai/codex@0.169.0"
  "codex-0.171.0 @openai/codex@0.171.0"
  "claude @anthropic-ai/claude-code@2.1.332"
  "gemini @google/gemini-cli@0.61.0"
  "copilot @github/copilot@1.0.102"
)
mkdir -p "$TOOLS"
pids=()
for pin in "${PINS[@]}"; do
  read -r dir spec <<<"$pin"
  stamp="$TOOLS/$dir/.installed"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$spec" ]; then continue; fi
  (
    mkdir -p "$TOOLS/$dir" && cd "$TOOLS/$dir"
    [ -f package.json ] || echo '{"private": true}' >package.json
    npm install --no-audit --no-fund --loglevel=error "$spec" >install.log 2>&1 \
      || { echo "install-agents: $spec failed:"; tail -20 install.log; exit 1; }
    if [ "$dir" = copilot ]; then  # unpack now, not in a test's first (timed) run
      COPILOT_PKG_CACHE_HOME="$TOOLS/copilot/pkgcache" COPILOT_SEA_EXTRACT_ONLY=1 \
        COPILOT_AUTO_UPDATE=false node_modules/@github/copilot-linux-x64/copilot \
        --binary-version >>install.log 2>&1 \
        || { echo "install-agents: unpacking $spec failed:"; tail -20 install.log; exit 1; }
    fi
    echo "$spec" >"$stamp"
    echo "install-agents: $spec in $TOOLS/$dir"
  ) &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
