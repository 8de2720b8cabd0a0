"""Properties over arbitrary input: nothing in shellgate.shell raises, splitting yields only
non-empty commands of non-empty argvs, and the plain scanner agrees with bash."""

from __future__ import annotations

import subprocess

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shellgate.shell.canonical import canonicalize_command_for_approval
from shellgate.shell.dangerous import dangerous_command_match
from shellgate.shell.known_safe import is_known_safe_command
from shellgate.shell.literal import parse_literal_commands, parse_shell_lc_literal_commands
from shellgate.shell.quote import try_join
from shellgate.shell.split import (
    parse_shell_lc_plain_commands,
    try_parse_word_only_commands_sequence,
)
from shellgate.shell.wrappers import hidden_commands

# Fragments of nasty shell syntax, glued at random.
NASTY = [
    "ls", "rm", "-rf", "/", "sudo", "env", "A=1", "trap", "bash", "-lc", "sh -c", "'", '"', "\\",
    "`", "$(", ")", "(", "{", "}", "${x:-", "$((1+", "<<EOF\n", "\nEOF\n", "<<'E'\n", "\nE",
    "|", "||", "&&", "&", ";", ";;", "\n", " ", "\t", "#", "!", "*", "?", "[", "]", "~", "^",
    ">", ">>", "<", "2>&1", "<(", "if", "then", "fi", "for x in a; do", "done", "case", "esac",
    "while", "function f", "\x00", "\r", "é", "=", "-f", "--", "xargs", "timeout 5",
]  # fmt: skip

scripts = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(NASTY), max_size=25).map("".join),
    st.lists(st.sampled_from(NASTY), max_size=12).map(" ".join),
)
argvs = st.one_of(
    st.lists(st.text(max_size=12), max_size=6),
    st.tuples(st.sampled_from(["bash", "/bin/bash", "zsh", "sh", "sudo", "env"]), st.just("-lc"),
              scripts).map(list),
    st.lists(st.sampled_from(NASTY), max_size=8),
)  # fmt: skip


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts)
def test_splitting_never_raises_and_yields_non_empty_argvs(script: str) -> None:
    commands = try_parse_word_only_commands_sequence(script)
    if commands is not None:
        assert all(command and isinstance(command, list) for command in commands)
        assert all(isinstance(word, str) for command in commands for word in command)
    literal = parse_literal_commands(script)
    if literal is not None:
        assert all(command for command in literal)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argvs)
def test_classifiers_never_raise(argv: list[str]) -> None:
    parse_shell_lc_plain_commands(argv)
    parse_shell_lc_literal_commands(argv)
    dangerous_command_match(argv)
    dangerous_command_match(argv, windows=True)
    is_known_safe_command(argv)
    canonicalize_command_for_approval(argv)
    hidden_commands(argv)
    assert isinstance(try_join(argv), str)


def test_huge_and_deep_inputs_do_not_raise() -> None:
    deep = "$(" * 3000 + "rm -rf x" + ")" * 3000
    for script in [
        "ls " * 200_000,
        deep,
        "echo " + "'" * 100_001,
        "(" * 5000,
        "if true; then " * 500 + "rm -rf x" + "; fi" * 500,
        "cat <<EOF\n" + "x\n" * 10_000,
    ]:
        argv = ["bash", "-lc", script]
        try_parse_word_only_commands_sequence(script)
        parse_literal_commands(script)
        dangerous_command_match(argv)
        is_known_safe_command(argv)
        hidden_commands(argv)
    assert dangerous_command_match(["sudo"] * 100_000 + ["ls"]) is not None


PLAIN_WORDS = st.one_of(
    st.from_regex(r"[A-Za-z0-9_./:@%+,=-]{1,8}", fullmatch=True).filter(
        lambda w: not w.startswith("=")
    ),
    st.from_regex(r"'[^'\x00]{0,8}'", fullmatch=True),
    st.from_regex(r'"[^"$`\\\x00]{0,8}"', fullmatch=True),
)
SEGMENTS = st.lists(
    st.tuples(
        st.from_regex(r"[a-z][a-z0-9_.-]{0,6}", fullmatch=True),
        st.lists(st.lists(PLAIN_WORDS, min_size=1, max_size=3).map("".join), max_size=4),
        st.sampled_from([" && ", " || ", " | ", "; ", "\n", " &&\n", " \\\n&& ", "; \\\n"]),
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=100, deadline=None)
@given(SEGMENTS)
def test_plain_scanner_agrees_with_bash(segments: list[tuple[str, list[str], str]]) -> None:
    """Real bash is the oracle: it prints the words each command would receive."""
    # Words apart by blanks, or (for odd-length names) by line continuations.
    texts = [(" \\\n " if len(name) % 2 else " ").join([name, *args]) for name, args, _ in segments]
    script = texts[0] + "".join(
        op + text for (_, _, op), text in zip(segments, texts[1:], strict=False)
    )
    commands = try_parse_word_only_commands_sequence(script)
    if commands is None or any("\ud800" <= c <= "\udfff" for c in script):
        return  # e.g. a keyword or an assignment as a command name: not plain
    # Each command prints its word count, then its words, all NUL-terminated.
    probe = 'w() { printf \'%s\\0\' "$#" "$@"; }\n' + "\n".join("w " + text for text in texts)
    out = subprocess.run(["bash", "-c", probe], capture_output=True, check=True).stdout
    fields = [f.decode("utf-8", "surrogateescape") for f in out.split(b"\0")[:-1]]
    expected: list[list[str]] = []
    while fields:
        count = int(fields[0])
        expected.append(fields[1 : 1 + count])
        fields = fields[1 + count :]
    assert commands == expected
