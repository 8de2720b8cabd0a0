#!/usr/bin/env bash
# The VS Code end-to-end test: installs the built .vsix into code-server 4.100.3 (real VS Code
# 1.100.3, extension host on Node), starts it on a free 127.0.0.1 port in its own process group
# with scratch user data, and drives it with Debian's Chromium through playwright-core (e2e.js).
# Needs `bash tests/vscode/setup.sh` first. Usage: run-e2e.sh [WORKDIR]. Exit 0 = every check
# passed; screenshots (always the dialog and the hover, and one per failure) in WORKDIR/shots.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"; ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${SHELLGATE_E2E_CACHE:-$HOME/.cache/shellgate-e2e}"
CS="$CACHE/cs/node_modules/.bin/code-server"
WORK="$(mkdir -p "${1:-$(mktemp -d)}" && cd "${1:-.}" && pwd)"
VSIX="$(ls "$ROOT"/vscode-client/shellgate-*.vsix 2>/dev/null | head -1 || true)"
[ -x "$CS" ] && [ -n "$VSIX" ] && [ -d "$HERE/node_modules/playwright-core" ] \
  || { echo "run-e2e: not set up; run: bash tests/vscode/setup.sh" >&2; exit 2; }
t() { echo "[run-e2e $(date +%T)] $*"; }

rm -rf "$WORK"/{ud,exts,ws,shots,codex-home,xdg,standin.port}
mkdir -p "$WORK"/{ud/User,exts,shots,codex-home/rules,xdg}
cp -r "$HERE/workspace" "$WORK/ws"
export XDG_CONFIG_HOME="$WORK/xdg/config" XDG_DATA_HOME="$WORK/xdg/data" XDG_CACHE_HOME="$WORK/xdg/cache" \
  XDG_STATE_HOME="$WORK/xdg/state"
export CODEX_HOME="$WORK/codex-home"
# Codex itself trusts the workspace, as after answering its trust prompt: no "Codex ignores this
# project's rules" notice covers the workbench.
printf '[projects."%s"]\ntrust_level = "trusted"\n' "$WORK/ws" > "$CODEX_HOME/config.toml"
# The broker's runtime folder, shared by code-server's language server and the stand-in hook
# (short: a socket path holds 107 bytes at most).
export XDG_RUNTIME_DIR="$(mktemp -d /tmp/sg-e2e-run.XXXXXX)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$PORT" > "$WORK/cs-config.yaml"
cat > "$WORK/ud/User/settings.json" <<JSON
{ "workbench.startupEditor": "none", "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off", "update.mode": "none", "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false, "workbench.tips.enabled": false, "chat.disableAIFeatures": true,
  "workbench.enableExperiments": false, "extensions.ignoreRecommendations": true,
  "shellgate.trace.server": "messages", "shellgate.approvalTimeoutSeconds": 120 }
JSON
COMMON=(--config "$WORK/cs-config.yaml" --user-data-dir "$WORK/ud" --extensions-dir "$WORK/exts")
t "install $(basename "$VSIX")"
"$CS" "${COMMON[@]}" --install-extension "$VSIX" --force >"$WORK/install.log" 2>&1 \
  || { cat "$WORK/install.log"; exit 1; }

t "stand-in model server (from the installed extension's libraries) for Ask Agent"
PYTHONPATH="$(ls -d "$WORK"/exts/shellgate.shellgate-*/bundled/libs/cp3* | head -1)" setsid python3 -m shellgate.agent.standin "$HERE/agent-script.json" \
  --port-file "$WORK/standin.port" --log "$WORK/shots/standin.jsonl" >"$WORK/standin.log" 2>&1 &
STANDIN_PID=$!
for _ in $(seq 100); do [ -s "$WORK/standin.port" ] && break; sleep 0.1; done
[ -s "$WORK/standin.port" ] || { cat "$WORK/standin.log"; kill "$STANDIN_PID"; exit 1; }
python3 - "$WORK/ud/User/settings.json" "http://127.0.0.1:$(cat "$WORK/standin.port")/v1" <<'PY'
import json, sys
path, url = sys.argv[1], sys.argv[2]
settings = json.load(open(path))
settings.update({"shellgate.agent.modelUrl": url, "shellgate.agent.model": "stand-in"})
json.dump(settings, open(path, "w"), indent=1)
PY

t "code-server on 127.0.0.1:$PORT"
# setsid: its own process group, so the extension host and the Python server die with it.
setsid "$CS" "${COMMON[@]}" --disable-telemetry --disable-update-check --disable-workspace-trust \
  "$WORK/ws" >"$WORK/cs-run.log" 2>&1 &
CS_PID=$!
cleanup() {
  kill -TERM -- "-$STANDIN_PID" 2>/dev/null || true
  rm -rf "$XDG_RUNTIME_DIR"
  kill -TERM -- "-$CS_PID" 2>/dev/null || true; wait "$CS_PID" 2>/dev/null || true
  for _ in $(seq 50); do pgrep -g "$CS_PID" >/dev/null || break; sleep 0.1; done
  kill -KILL -- "-$CS_PID" 2>/dev/null || true
  # The extension host's log (ShellGate output channel: server stderr and the LSP trace).
  find "$WORK/ud/logs" -path '*shellgate*' -name '*.log' -exec cp {} "$WORK/shots/" \; 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 100); do
  python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$PORT/healthz', timeout=1)" 2>/dev/null && break
  sleep 0.1
done

t "playwright"
LIBS="$(ls -d "$WORK"/exts/shellgate.shellgate-*/bundled/libs/cp3* | head -1)"
CS_URL="http://127.0.0.1:$PORT" WS="$WORK/ws" SHOTS="$WORK/shots" CODEX_HOME="$CODEX_HOME" \
  HOOK_CLIENT="$HERE/hook-client.py" HOOK_PYTHONPATH="$LIBS" \
  timeout 300 node "$HERE/e2e.js"
