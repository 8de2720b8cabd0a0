"""The bashlex cross-check: bash's own grammar against tree-sitter's split, by word positions."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from shellgate.shell import bash_reading
from shellgate.shell.tsbash import cross_check, read_split


@pytest.mark.parametrize(
    "script",
    [
        "ls -la && echo 'a b' \"c\" | wc -l",
        'rg -n "def \\w+" src',  # bashlex drops the backslash in the value: positions agree
        "echo \"a\"'b' x''y",
        "echo héllo ünï 中文 && ls",  # character offsets, not UTF-8 bytes
        "ls \\\n  -l && \\\n pwd",  # a trailing line continuation is not part of a word
        'git commit -m "line1\nline2"',
        "echo a\u00a0b",  # one word to both
        "ls | time ls",  # /usr/bin/time to bash: masked, since bashlex reads a keyword there
    ],
)
def test_plain_scripts_agree_with_bashs_grammar(script: str, cross_checking: None) -> None:
    assert cross_check(script) is None
    assert read_split(script).commands is not None


@pytest.mark.parametrize(
    ("script", "why"),
    [
        ("time echo RAN", "NotImplementedError"),  # a keyword bashlex does not implement
        ("coproc touch RAN", "NotImplementedError"),
        ("printf x -a\u3000b", "puts the commands' words elsewhere"),  # one word to bash
        ("git status | cat | head\nrm -rf x && true", "puts the commands' words elsewhere"),
        ("ls && then true", "ParsingError"),  # a syntax error to bash: nothing runs
    ],
)
def test_bashs_grammar_flags_what_tree_sitter_misreads(script: str, why: str) -> None:
    found = cross_check(script)
    assert found is not None and why in found


def test_the_cross_check_is_off_until_enabled(cross_checking: None) -> None:
    assert bash_reading.enabled()
    assert read_split("ls && then true").commands is None  # only bash's grammar sees this
    bash_reading.disable()
    assert read_split("ls && then true").commands == (("ls",), ("then", "true"))


def test_words_are_compared_by_position() -> None:
    assert bash_reading.disagreement("ls  -l 'a b'", [((0, 2), (4, 6), (7, 12))]) is None
    assert bash_reading.disagreement("ls  -l 'a b'", [((0, 2), (4, 6), (7, 9), (9, 12))])
    assert bash_reading.disagreement("ls -l", [((0, 2),), ((3, 5),)])


def test_a_script_too_long_to_check_is_flagged() -> None:
    script = " && ".join(["ls"] * (bash_reading.MAX_CHARS // 6 + 100))
    assert (reason := cross_check(script)) is not None and "too long" in reason


def test_bash_commands_keep_each_word_as_written() -> None:
    assert bash_reading.bash_commands("echo 'a b' | wc -l\nls") == (
        ("echo", "'a b'"),
        ("wc", "-l"),
        ("ls",),
    )
    assert bash_reading.bash_commands("case a in a) ls;; esac") is None


ONE_SHOT = """
import json, sys
from shellgate.cli import main
status = main(sys.argv[1:])
print(json.dumps({"status": status, "bashlex": "bashlex" in sys.modules}), file=sys.stderr)
"""


def _explain(*args: str) -> tuple[dict[str, object], dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-c", ONE_SHOT, "explain", "--json", *args],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return json.loads(done.stdout), json.loads(done.stderr.strip().splitlines()[-1])


def test_a_one_shot_explain_never_imports_bashlex_unless_asked() -> None:
    out, proc = _explain("--shell", "ls && then true")
    assert proc == {"status": 0, "bashlex": False}
    assert out["parse"] == "plain" and "split_difference" not in out
    out, proc = _explain("--bash-cross-check", "--shell", "ls && then true")
    assert proc == {"status": 0, "bashlex": True}
    assert out["parse"] == "whole" and "bashlex" in out["split_difference"]["why"]  # type: ignore[index]
