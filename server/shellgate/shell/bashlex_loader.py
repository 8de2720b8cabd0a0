"""Import bashlex without paying for its parser tables at every start.

bashlex's vendored PLY builds its LALR tables on every import (it no longer reads the shipped
`parsetab.py`): about 90 % of the 150-300 ms `import bashlex` costs. `load()` imports bashlex
with PLY's table builder swapped for one that takes the tables stored in
`bashlex_tables.py` when, and only when, the grammar is exactly the one they were built from
(a SHA-256 of its productions, precedence and start symbol); any other grammar, e.g. after a
bashlex upgrade, is built as usual. Regenerate the stored tables with
`python -m shellgate.shell.bashlex_loader > server/shellgate/shell/bashlex_tables.py`.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import sys
import threading
import zlib
from types import ModuleType
from typing import Any

_lock = threading.Lock()


def load() -> ModuleType:
    """The bashlex module, imported with stored parser tables where they fit."""
    with _lock:
        return _load()


def _load() -> ModuleType:
    loaded = sys.modules.get("bashlex")
    if loaded is not None and hasattr(loaded, "parse"):
        return loaded
    try:
        return _import_with_stored_tables()
    except Exception:  # any surprise in the shortcut: forget it and import plainly
        for name in [n for n in sys.modules if n == "bashlex" or n.startswith("bashlex.")]:
            del sys.modules[name]
        import bashlex

        module: ModuleType = bashlex
        return module


def grammar_signature(grammar: Any) -> str:
    text = repr(
        (
            [str(p) for p in grammar.Productions],
            sorted(grammar.Precedence.items()),
            grammar.Start,
        )
    )
    return hashlib.sha256(text.encode()).hexdigest()


_signatures: list[str] = []


def _import_with_stored_tables(*, use_stored: bool = True) -> ModuleType:
    spec = importlib.util.find_spec("bashlex")
    if spec is None or spec.loader is None:
        raise ImportError("bashlex is not installed")
    # Create the package without running its __init__ (which builds the parser), so that
    # the yacc submodule can be patched first; then run __init__.
    package = importlib.util.module_from_spec(spec)
    sys.modules["bashlex"] = package
    import bashlex.yacc as yacc

    built = yacc.LRTable

    class StoredLRTable(built):  # type: ignore[misc, valid-type]
        def __init__(self, grammar: Any, log: Any = None) -> None:
            signature = grammar_signature(grammar)
            _signatures.append(signature)
            stored = _stored_tables(signature) if use_stored else None
            if stored is None:
                super().__init__(grammar, log)
                return
            self.grammar = grammar
            self.lr_productions = grammar.Productions
            self.lr_action, self.lr_goto = stored
            self.sr_conflicts: list[Any] = []
            self.rr_conflicts: list[Any] = []
            self.conflicts: list[Any] = []

    yacc.LRTable = StoredLRTable
    try:
        spec.loader.exec_module(package)
    finally:
        yacc.LRTable = built
    return package


def _stored_tables(signature: str) -> tuple[dict[int, Any], dict[int, Any]] | None:
    from shellgate.shell import bashlex_tables

    if signature != bashlex_tables.SIGNATURE:
        return None
    data = json.loads(zlib.decompress(base64.b64decode(bashlex_tables.TABLES)))
    action = {int(state): row for state, row in data["action"].items()}
    goto = {int(state): row for state, row in data["goto"].items()}
    return action, goto


def built_tables() -> tuple[str, dict[str, Any]]:
    """The signature and tables of the installed bashlex's grammar, built by PLY (call it in
    a fresh interpreter, before anything imported bashlex)."""
    module = _import_with_stored_tables(use_stored=False)
    parser = module.parser.yaccparser
    action = {str(k): dict(v) for k, v in parser.action.items()}
    goto = {str(k): dict(v) for k, v in parser.goto.items()}
    return _signatures[-1], {"action": action, "goto": goto}


def _main() -> None:
    signature, tables = built_tables()
    blob = base64.b64encode(zlib.compress(json.dumps(tables, sort_keys=True).encode(), 9))
    print('"""bashlex\'s LALR tables: `python -m shellgate.shell.bashlex_loader` writes them."""')
    print()
    print(f'SIGNATURE = "{signature}"')
    print(f'TABLES = "{blob.decode()}"  # noqa: E501')


if __name__ == "__main__":
    _main()
