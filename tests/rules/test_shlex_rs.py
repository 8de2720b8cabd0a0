"""Rust shlex 1.3 split and quoting (as Codex uses them for examples and messages)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.rules import shlex_rs


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("foo$baz", ["foo$baz"]),
        ("foo baz", ["foo", "baz"]),
        ('foo"bar"baz', ["foobarbaz"]),
        ("   foo \nbar", ["foo", "bar"]),
        ("foo\\\nbar", ["foobar"]),
        ('"foo\\\nbar"', ["foobar"]),
        ("'baz\\$b'", ["baz\\$b"]),
        ("'baz\\''", None),
        ("\\", None),
        ('"\\', None),
        ('"', None),
        ("foo #bar\nbaz", ["foo", "baz"]),
        ("foo#bar", ["foo#bar"]),
        ('foo"#bar', None),
        ('"a\\qb"', ["a\\qb"]),
        ("# only", []),
        ("a && b", ["a", "&&", "b"]),
    ],
)
def test_split(text: str, words: list[str] | None) -> None:
    assert shlex_rs.split(text) == words


@pytest.mark.parametrize(
    ("word", "quoted"),
    [
        ("", "''"),
        ("foobar", "foobar"),
        ("foo bar", "'foo bar'"),
        ("'\"", '"\'\\""'),
        ("it's", '"it\x27s"'),
        ("é", "'é'"),
        ("^x", "'^x'"),
        ("a$b", "'a$b'"),
    ],
)
def test_quote(word: str, quoted: str) -> None:
    assert shlex_rs.quote(word) == quoted
    assert shlex_rs.split(quoted) == [word]


# Words drawn mostly from the characters the quoting distinguishes, so every chunk kind occurs.
_WORDS = st.text(st.sampled_from("ab/-_.:@]+ \t'\"^\\$`!*&|;~é\x01"), max_size=12) | st.text(
    max_size=8
)


@settings(max_examples=400, deadline=None)
@given(_WORDS)
def test_quote_shortcuts_agree_with_the_chunking(word: str) -> None:
    """`quote`'s two scans for common words give what the crate's chunking gives."""
    if word:
        assert shlex_rs.quote(word) == shlex_rs._quote_chunks(word)
    assert shlex_rs.split(shlex_rs.quote(word)) == [word]
