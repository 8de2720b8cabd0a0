#!/usr/bin/env bash
# The main job, from a fresh clone: set up, then ask what Codex would decide for a few commands
# under the bundled example policy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
sg=.venv/bin/shellgate
rules=examples/policy/default.rules
for cmd in "git status" "git push origin main" "git push --force origin main" "npm test" "ls -la"; do
  echo "\$ shellgate check --rules $rules -- $cmd"
  # shellcheck disable=SC2086
  $sg check --rules "$rules" --pretty -- $cmd
  echo
done
