"""The stored bashlex tables are exactly what PLY builds, and parse exactly the same."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from shellgate.shell import bashlex_tables

SCRIPTS = [
    "ls && pwd; echo 'hi' | wc -l",
    'for f in *.py; do rm -f "$f"; done',
    "if test -d x; then echo $(date) > out; fi",
    "f() { cat <<EOF\nbody\nEOF\n}",
    "diff <(ls a) <(ls b) 2>&1 || true",
]


def _fresh(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout


def test_stored_tables_equal_the_built_ones() -> None:
    out = _fresh(
        "import json\n"
        "from shellgate.shell.bashlex_loader import built_tables\n"
        "signature, tables = built_tables()\n"
        "print(json.dumps([signature, tables], sort_keys=True))\n"
    )
    signature, tables = json.loads(out)
    if signature != bashlex_tables.SIGNATURE:
        pytest.skip("installed bashlex has another grammar: load() builds its tables (slower)")
    stored = _fresh(
        "import base64, json, zlib\n"
        "from shellgate.shell import bashlex_tables as t\n"
        "print(json.dumps(json.loads(zlib.decompress(base64.b64decode(t.TABLES))), sort_keys=True))"
    )
    assert json.loads(stored) == tables


def test_parses_like_a_plain_import() -> None:
    dump = f"print([[t.dump() for t in bashlex.parse(s)] for s in {SCRIPTS!r}])\n"
    plain = _fresh("import bashlex\n" + dump)
    fast = _fresh(
        "from shellgate.shell.bashlex_loader import load\n"
        "bashlex = load()\n"
        "import bashlex.yacc\n"
        "assert bashlex.yacc.LRTable.__name__ == 'LRTable'\n" + dump
    )
    assert fast == plain
    assert "CommandNode" in fast
