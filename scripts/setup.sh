#!/usr/bin/env bash
# Creates .venv (once) and installs ShellGate into it, editable, with the test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.shellgate-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -e '.[dev]'
  touch "$stamp"
fi
# Bytecode for the package, as `pip install` leaves an installed one: the editable install never
# gets any where PYTHONDONTWRITEBYTECODE=1 is set, and every `shellgate` process (the tests start
# hundreds) would compile its modules from source. Only files changed since are recompiled.
.venv/bin/python -m compileall -q server/shellgate >/dev/null
