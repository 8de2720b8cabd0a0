"""The Rust shlex crate's quoting, checked against its own test vectors and C.4's examples."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.shell.quote import split, try_join, try_quote


@pytest.mark.parametrize(
    ("word", "quoted"),
    [
        ("", "''"),
        ("foobar", "foobar"),
        ("foo bar", "'foo bar'"),
        ("'\"", '"\'\\""'),
        ("FOO=1", "'FOO=1'"),
        ("it's", '"it\'s"'),
        ("a,b", "'a,b'"),
        ("50%", "'50%'"),
        ("-rf", "-rf"),
        ("/tmp/x_y.z:1@host+]", "/tmp/x_y.z:1@host+]"),
        ("^a", "'^a'"),
        ("a^b", "a'^b'"),
        ("$HOME", "'$HOME'"),
        ("it's $x", "\"it's \"'$x'"),
        ("back\\slash", '"back\\\\slash"'),
        ("héllo", "'héllo'"),
        ("a\nb", "'a\nb'"),
    ],
)
def test_quote(word: str, quoted: str) -> None:
    assert try_quote(word) == quoted


def test_join() -> None:
    assert try_join(["bash", "-lc", "rm -rf /x"]) == "bash -lc 'rm -rf /x'"
    assert try_join([]) == ""
    assert try_join([""]) == "''"


def test_nul_falls_back_to_space_join() -> None:
    assert try_quote("a\x00b") is None
    assert try_join(["echo", "a\x00b c"]) == "echo a\x00b c"


@settings(deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)))
def test_quoting_round_trips_through_a_posix_shell_lexer(words: list[str]) -> None:
    words = [w for w in words if "\x00" not in w]
    assert shlex.split(try_join(words)) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [  # the shlex crate's own SPLIT_TEST_ITEMS
        ("foo$baz", ["foo$baz"]),
        ("foo baz", ["foo", "baz"]),
        ('foo"bar"baz', ["foobarbaz"]),
        ('foo "bar"baz', ["foo", "barbaz"]),
        ("   foo \nbar", ["foo", "bar"]),
        ("foo\\\nbar", ["foobar"]),
        ('"foo\\\nbar"', ["foobar"]),
        ("'baz\\$b'", ["baz\\$b"]),
        ("'baz\\''", None),
        ("\\", None),
        ('"\\', None),
        ("'\\", None),
        ('"', None),
        ("'", None),
        ("foo #bar\nbaz", ["foo", "baz"]),
        ("foo #bar", ["foo"]),
        ("foo#bar", ["foo#bar"]),
        ('foo"#bar', None),
        ("'\\n'", ["\\n"]),
        ("'\\\\n'", ["\\\\n"]),
        ('"a\\$b\\x"', ["a$b\\x"]),
    ],
)
def test_split(text: str, words: list[str] | None) -> None:
    assert split(text) == words
