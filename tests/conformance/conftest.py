"""The conformance corpus, shared by every conformance test module.

`rows(name)` reads `<name>` (e.g. "execpolicy_cases.jsonl") from $SHELLGATE_CONFORMANCE_DIR
when it is set (the kept-back cases), else from tests/conformance/data/.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).parent / "data"


def corpus_dir() -> Path:
    override = os.environ.get("SHELLGATE_CONFORMANCE_DIR")
    return Path(override) if override else DATA_DIR


def rows(name: str) -> list[dict[str, Any]]:
    """Every row of a corpus file, in order; a missing file or a bad line fails loudly."""
    return rows_from(corpus_dir() / name)


def rows_from(path: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path}:{number}: not JSON: {err}") from None
            if not isinstance(row, dict):
                raise ValueError(f"{path}:{number}: a case must be a JSON object")
            out.append(row)
    return out


def case_id(row: dict[str, Any], index: int) -> str:
    return str(row.get("id", f"row-{index}"))


# Test modules import this as `conformance_corpus` (a plain `import conftest` would be
# ambiguous among the suite's conftest files). pytest imports a conftest before collecting the
# modules of its directory.
sys.modules.setdefault("conformance_corpus", sys.modules[__name__])
