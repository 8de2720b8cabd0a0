"""Trust tests resolve project roots by walking up to `/`: a `.git` or `.codex` left in `/tmp` by
some other program (Codex 0.169's own sandbox leaves empty ones when it is killed) would make
`/tmp` a project root and change their answers. Their folders live outside `/tmp`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from realclients import home_dir


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    yield from home_dir()
