#!/usr/bin/env bash
# Installs the real agent CLIs the tests drive, pinned, from npm, idempotently, each in its own
# folder under $SHELLGATE_TOOLS (default: .tools/ in the checkout):
#   codex-0.169.0/ codex-0.171.0/ (@openai/codex), claude/ (@anthropic-ai/claude-code),
#   gemini/ (@google/gemini-cli). A newer Codex is one line in PINS away.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TOOLS="${SHELLGATE_TOOLS:-$ROOT/.tools}"
PINS=(
  "codex-0.169.0 @openai/codex@0.169.0"
  "codex-0.171.0 @openai/codex@0.171.0"
  "claude @anthropic-ai/claude-code@2.1.332"
  "gemini @google/gemini-cli@0.61.0"
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
    echo "$spec" >"$stamp"
    echo "install-agents: $spec in $TOOLS/$dir"
  ) &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
