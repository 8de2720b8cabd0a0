"""Shared by the evasion tests: the sandbox the ground truth needs, homes with or without rules."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from judges import Home

# Outside /tmp, as tests/hooks does: the agents' sandbox makes /tmp writable.
BASE = Path.home() / ".cache" / "shellgate-tests"


@pytest.fixture(scope="module")
def make_home() -> Iterator[Callable[[str | None], Home]]:
    """Homes for this module: `make_home(rules)` (None: no rules file at all)."""
    BASE.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []

    def make(rules: str | None) -> Home:
        root = Path(tempfile.mkdtemp(prefix="evasion-", dir=BASE))
        made.append(root)
        return Home.make(root, rules)

    yield make
    for root in made:
        shutil.rmtree(root, ignore_errors=True)
