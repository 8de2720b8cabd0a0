"""Positions: library columns count characters, LSP counts the negotiated code units."""

from __future__ import annotations

import pytest
from lsprotocol import types as T

from shellgate.lsp.convert import from_position, position, to_range
from shellgate.rules.source import SourceSpan

LINE = 'prefix_rule(pattern = ["😀é", "x"], decision = "deny")'
COL = LINE.index('"deny"') + 1  # 1-based character column


@pytest.mark.parametrize(
    ("encoding", "character"),
    [("utf-16", COL - 1 + 1), ("utf-32", COL - 1), ("utf-8", COL - 1 + 3 + 1)],
)
def test_columns_in_code_units(encoding: str, character: int) -> None:
    # 😀 is 2 UTF-16 units and 4 UTF-8 bytes; é is 1 UTF-16 unit and 2 UTF-8 bytes.
    assert position([LINE], 1, COL, encoding) == T.Position(0, character)
    assert from_position([LINE], T.Position(0, character), encoding) == (1, COL)


def test_out_of_range_spans_are_clamped() -> None:
    rng = to_range(["ab"], SourceSpan("p", 1, 1, 9, 9), "utf-16")
    assert rng.start == T.Position(0, 0) and rng.end == T.Position(0, 0)
    assert to_range(["ab"], SourceSpan("p", 0, 0, 0, 0), "utf-16").end == T.Position(0, 0)
