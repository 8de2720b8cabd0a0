#!/usr/bin/env bash
# Sets up .venv if needed, then runs every check CI runs: ruff, mypy, pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check server tests benchmarks
.venv/bin/mypy
.venv/bin/pytest "$@"
