"""The JSON/JSONC reader: values with their positions, each tool's dialect, errors placed."""

from __future__ import annotations

import pytest

from shellgate.importers.errors import ImportInputError
from shellgate.importers.jsonpos import parse_json, plain


def test_positions_of_values_and_keys() -> None:
    node = parse_json('{\n  "a": [1, "x"],\n  "b": {"c": null}\n}', "f")
    assert isinstance(node.value, dict)
    items = node.value["a"].value
    assert isinstance(items, list)
    assert [(i.line, i.column) for i in items] == [(2, 9), (2, 12)]
    assert node.key_position("b") == (3, 3)
    assert plain(node) == {"a": [1, "x"], "b": {"c": None}}


def test_jsonc_and_duplicates() -> None:
    text = '{\n  // c\n  "a": 1, /* x */ "a": [2,],\n}'
    assert plain(parse_json(text, "f", comments=True, trailing_commas=True)) == {"a": [2]}
    with pytest.raises(ImportInputError, match="trailing comma"):
        parse_json(text, "f", comments=True)


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ('{"a": "b', (1, 7), "unterminated string"),
        ('{"a": "b\nc"}', (1, 9), "control character"),
        ('{"a": "\\q"}', (1, 8), "invalid escape"),
        ('{"a": "\\ud800"}', (1, 8), "half a surrogate pair"),
        ("[1 2]", (1, 4), "expected ','"),
        ("{} x", (1, 4), "unexpected text"),
        ("", (1, 1), "unexpected end"),
        ("[" * 300, (1, 202), "nested deeper"),
    ],
)
def test_errors_are_placed(text: str, where: tuple[int, int], words: str) -> None:
    with pytest.raises(ImportInputError) as err:
        parse_json(text, "settings.json")
    assert (err.value.line, err.value.column) == where
    assert words in err.value.message and err.value.path == "settings.json"


def test_surrogate_pairs_decode() -> None:
    assert plain(parse_json('["\\ud83d\\ude00"]', "f")) == ["\U0001f600"]
