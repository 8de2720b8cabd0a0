#!/usr/bin/env bash
# The main job, from a fresh clone: set up, then
#   1. ask what Codex would decide for a few commands under the bundled example policy;
#   2. run the embedded agent end to end against the bundled stand-in model (no model, no
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

echo "== The agent: a scripted model proposes commands; each passes rules, approval, sandbox =="
if ! command -v bwrap >/dev/null; then
  echo "(bubblewrap is not installed: the agent fails closed and asks about every command;"
  echo " install it with: sudo apt-get install bubblewrap)"
fi
ws=$(mktemp -d)
mkdir "$ws/build" && touch "$ws/old.tmp"
echo "workspace: $ws"
$sg agent --standin examples/agent/demo.json --rules examples/agent/demo.rules \
  --cwd "$ws" "Tidy up this workspace"
