"""Homes for the real agent CLIs, outside /tmp: the sandbox makes /tmp writable (as Codex does),
so a write "outside the workspace" must land elsewhere to mean anything, and Codex refuses to
set up its helpers under /tmp."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from agents import Home

BASE = Path.home() / ".cache" / "shellgate-tests"


@pytest.fixture
def home() -> Iterator[Home]:
    BASE.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="hooks-", dir=BASE))
    try:
        yield Home.make(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
