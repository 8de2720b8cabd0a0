"""Fixtures the shell tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from shellgate.shell import bash_reading


@pytest.fixture
def cross_checking() -> Iterator[None]:
    """The cross-check against bash's grammar on for one test (off again after, if it was)."""
    was = bash_reading.enabled()
    bash_reading.enable()
    yield
    if not was:
        bash_reading.disable()
