#!/usr/bin/env bash
# Runs every benchmarks/bench_*.py in turn with the project's .venv; each prints its figures.
# Exit status: 1 if any benchmark script failed to run (a missed target alone is not a failure).
set -uo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || bash scripts/setup.sh
status=0
for bench in benchmarks/bench_*.py; do
  echo "=== $bench"
  .venv/bin/python "$bench" || { echo "!!! $bench exited $?"; status=1; }
  echo
done
exit $status
