"""Plain-command splitting: Codex's bash.rs tests beyond the corpus, and what tree-sitter-bash
(Codex's parser) makes of forms the corpus does not cover; where bash would read a script's
words differently from tree-sitter, ShellGate takes the conservative side: not plain."""

from __future__ import annotations

import pytest

from shellgate.shell.detect import ShellType, detect_shell_type
from shellgate.shell.split import (
    extract_shell_script,
    parse_shell_lc_plain_commands,
    try_parse_word_only_commands_sequence,
)
from shellgate.shell.tsbash import read_split

split = try_parse_word_only_commands_sequence


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("ls -1", [["ls", "-1"]]),
        ('git commit -m "line1\nline2"', [["git", "commit", "-m", "line1\nline2"]]),
        ("ls && pwd || true", [["ls"], ["pwd"], ["true"]]),
        ("ls\npwd\n", [["ls"], ["pwd"]]),  # a newline separates like `;`
        ("ls &&\n  pwd", [["ls"], ["pwd"]]),  # an operator may end a line
        ("ls |\nwc -l", [["ls"], ["wc", "-l"]]),
        ("ls;", [["ls"]]),
        ("echo '' \"\"", [["echo", "", ""]]),  # empty quoted words are words
        ("echo a=b x,y %s @ +1 -- :", [["echo", "a=b", "x,y", "%s", "@", "+1", "--", ":"]]),
        ("echo 'it''s'", [["echo", "its"]]),
        ("echo \"a'b\" 'a\"b'", [["echo", "a'b", 'a"b']]),
        ('echo "tab\\there"', [["echo", "tab\\there"]]),  # no escape processing
        ("echo héllo ünï", [["echo", "héllo", "ünï"]]),
        ("ls \\\n  -l && \\\n pwd", [["ls", "-l"], ["pwd"]]),  # line continuations
        # tree-sitter-bash reads these as plain commands, and so does Codex:
        ("!ls", [["!ls"]]),
        ("ls | time ls", [["ls"], ["time", "ls"]]),  # after `|` bash runs /usr/bin/time
        ("echo a\u00a0b", [["echo", "a\u00a0b"]]),  # one word to bash too
        ("", []),
        ("  \n\t ", []),
    ],
)
def test_plain_scripts(script: str, expected: list[list[str]]) -> None:
    assert split(script) == expected


@pytest.mark.parametrize(
    "script",
    [
        "ls > out.txt",
        "ls < in.txt",
        "ls 2>&1",
        "echo hi & echo bye",
        "ls &",
        "echo `pwd`",
        'find . "-de\\\nlete"',  # backslash-newline in double quotes
        'echo "\\\\"',
        'echo "a$"',  # a lone `$` is a node of its own
        "echo $'a'",
        "ls # comment",
        "# only a comment",
        "ls |& wc",
        "ls ;& pwd",
        "; ls",
        "ls ; ; pwd",
        "ls ||",
        "|| ls",
        "ls\n&& pwd",
        "'ls' -l",  # tree-sitter's command_name must be a bare word
        '"ls" -l',
        "l's' -l",
        "''\"\" x",
        "echo ''\"\"",  # an empty concatenation
        "FOO=bar",
        "FOO+=bar ls",
        'A="x y" ls',
        "export A=1",
        "local x",
        "unset A",
        "declare -a x",
        "if true; then ls; fi",
        "for x in a; do ls; done",
        "while true; do ls; done",
        "! ls",
        "time ls",  # a bash keyword: bash runs `ls`, the rules would judge `time`
        "time -p ls",
        "ls && time ls",
        "coproc ls",
        "ls | coproc ls",  # unlike `time`, a keyword after `|` too
        "printf x -a\u3000b",  # tree-sitter: two words, bash: one
        "ls -la\u2003x",
        "{ ls; }",
        "(ls)",
        "[[ -f x ]]",
        "123 abc",
        "ls\r",
        "ls\x00",
        "echo a\\ b",
        "ls\\\n-l",  # a continuation glued to a word: bash joins, tree-sitter splits
        "echo 'unterminated",
        'echo "unterminated',
        "echo ~",
        "cat <<EOF\nx\nEOF",
    ],
)
def test_not_plain(script: str) -> None:
    assert split(script) is None


def test_only_three_word_shell_invocations_are_scripts() -> None:
    assert parse_shell_lc_plain_commands(["bash", "-lc", "git", "status"]) is None
    assert parse_shell_lc_plain_commands(["bash", "-x", "ls"]) is None
    assert parse_shell_lc_plain_commands(["bash", "-lc"]) is None
    assert parse_shell_lc_plain_commands([]) is None
    assert parse_shell_lc_plain_commands(["fish", "-c", "ls"]) is None
    for shell in ("bash", "/bin/bash", "/usr/bin/bash", "zsh", "/bin/zsh", "sh", "/usr/bin/sh"):
        for flag in ("-c", "-lc"):
            assert parse_shell_lc_plain_commands([shell, flag, "ls"]) == [["ls"]]
    assert extract_shell_script(["/bin/zsh", "-c", "ls"]) == ("/bin/zsh", "ls")


@pytest.mark.parametrize("shell", [".poc/bash", "/tmp/bash", "/tmp/bash.evil", "./zsh", "BASH"])
def test_shell_like_paths_are_not_shells(shell: str) -> None:
    assert detect_shell_type(shell) is None
    assert parse_shell_lc_plain_commands([shell, "-lc", "ls"]) is None


def test_detects_windows_shells() -> None:
    assert detect_shell_type("powershell.exe") is ShellType.POWERSHELL
    assert (
        detect_shell_type("C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe")
        is ShellType.POWERSHELL
    )
    assert detect_shell_type("C:\\tmp\\powershell.exe") is None
    assert detect_shell_type("cmd.exe") is ShellType.CMD


def test_a_command_glued_across_a_newline_is_not_plain() -> None:
    # tree-sitter-bash reads `head\nrm -rf x` after a pipeline as one command `head rm -rf x`
    # (no error node); bash runs `rm -rf x` on its own line, so a rule for `head` must not see it.
    script = "git status | cat | head\nrm -rf x && true"
    assert parse_shell_lc_plain_commands(["bash", "-lc", script]) is None
    assert parse_shell_lc_plain_commands(["bash", "-lc", "a | b\nc && d"]) == [
        ["a"],
        ["b"],
        ["c"],
        ["d"],
    ]


@pytest.mark.parametrize(
    ("script", "codex", "bash"),
    [
        ("time -p echo RAN", [["time", "-p", "echo", "RAN"]], [["echo", "RAN"]]),
        ("ls; coproc touch RAN", [["ls"], ["coproc", "touch", "RAN"]], [["ls"], ["touch", "RAN"]]),
        ("printf x -a\u3000b", [["printf", "x", "-a", "\u3000b"]], [["printf", "x", "-a\u3000b"]]),
        (
            "git status | cat | head\nrm -rf x && true",
            [["git", "status"], ["cat"], ["head", "rm", "-rf", "x"], ["true"]],
            [["git", "status"], ["cat"], ["head"], ["rm", "-rf", "x"], ["true"]],
        ),
    ],
)
def test_a_split_bash_would_not_run_says_what_codex_sees_and_what_bash_runs(
    script: str, codex: list[list[str]], bash: list[list[str]]
) -> None:
    reading = read_split(script)
    assert reading.commands is None and reading.objection
    assert [list(c) for c in reading.codex or ()] == codex
    assert [list(c) for c in reading.bash or ()] == bash


def test_codex_and_shellgate_agree_on_a_plain_script() -> None:
    reading = read_split("ls -la && echo 'a b' | wc -l")
    assert reading.objection is None and reading.bash is None
    assert reading.commands == reading.codex == (("ls", "-la"), ("echo", "a b"), ("wc", "-l"))
