from __future__ import annotations

import pytest

from shellgate.shell.literal import parse_literal_commands, parse_shell_lc_literal_commands


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("ls && rm -rf x", [["rm", "-rf", "x"], ["ls"]]),  # last to first, as Codex walks
        ('rm -rf "$T" >/dev/null', [["rm", "-rf"]]),
        ('echo "$(rm -rf /tmp/e)"', [["echo"], ["rm", "-rf", "/tmp/e"]]),
        ("echo `rm -f x`", [["echo"], ["rm", "-f", "x"]]),
        ("diff <(ls a) b", [["diff", "b"], ["ls", "a"]]),
        ("if test -d x; then rm --force x; fi", [["rm", "--force", "x"], ["test", "-d", "x"]]),
        ("f() { rm -rf x; }", [["rm", "-rf", "x"]]),
        ("cmd=rm; $cmd -rf x", []),  # a dynamic command name is skipped
        ("X=$(mktemp) node a.js", [["node", "a.js"], ["mktemp"]]),
        ("cat <<'EOF'\nrm -rf x\nEOF", [["cat"]]),  # a heredoc body is data, not a command
        ("rm -rf *", [["rm", "-rf"]]),  # a glob is dynamic
        ("[[ -f x ]] && rm -rf y", [["rm", "-rf", "y"]]),
        ("echo $((1+2)); rm -f z", [["rm", "-f", "z"], ["echo"]]),
        # tree-sitter-bash has no `time`/`coproc` keywords (Codex reads a command named `time`);
        # bash runs what follows them, and so ShellGate's danger check reads it (beyond Codex)
        ("time rm -rf t", [["rm", "-rf", "t"]]),
        ("time -p rm -rf t", [["rm", "-rf", "t"]]),
        ("coproc rm -rf t", [["rm", "-rf", "t"]]),
        ("ls | coproc rm -rf t", [["rm", "-rf", "t"], ["ls"]]),
        # the same glue with a comment line between (not plain, but the danger check reads it)
        (
            "echo A | cat | head\n# c\nrm -rf x && true",
            [["true"], ["head"], ["rm", "-rf", "x"], ["cat"], ["echo", "A"]],
        ),
        ("ls | time rm -rf t", [["time", "rm", "-rf", "t"], ["ls"]]),  # /usr/bin/time here
        # tree-sitter glues `rm -rf x` onto `head`; bash runs it on its own line (beyond Codex)
        (
            "git status | cat | head\nrm -rf x && true",
            [["true"], ["head"], ["rm", "-rf", "x"], ["cat"], ["git", "status"]],
        ),
        ("case x in a) rm -rf y;; esac", [["rm", "-rf", "y"]]),
        (
            'case "$1" in\n (start|go) echo hi ;;\n stop) rm -f pid;;\n *) ;;\nesac\nls',
            [["ls"], ["rm", "-f", "pid"], ["echo", "hi"]],
        ),
        ("case a in a) case b in b) rm -f z;; esac;; esac", [["rm", "-f", "z"]]),
        ('case x in a) echo "esac ;;" ;; esac', [["echo", "esac ;;"]]),
        ("cat <<'EOF'\nx\nEOF", [["cat"]]),  # quoted delimiter, no final newline
        # substitutions inside other expansions and heredoc bodies:
        ("echo ${x:-$(rm -rf y)}", [["echo"], ["rm", "-rf", "y"]]),
        # tree-sitter finds `$(...)` in an unquoted heredoc body, not backticks
        ("cat <<E\n$(rm -rf x) `rm -f q`\nE\n", [["rm", "-rf", "x"], ["cat"]]),
        ("cat <<'E'\n$(rm -rf x)\nE\n", [["cat"]]),  # a quoted heredoc body is literal
    ],
)
def test_literal_commands(script: str, expected: list[list[str]]) -> None:
    assert parse_literal_commands(script) == expected


@pytest.mark.parametrize(
    "script", ["if then rm -rf x", "echo 'open", "case x a) rm -rf y;; esac", "ls\x00"]
)
def test_unparseable_scripts_are_opaque(script: str) -> None:
    assert parse_literal_commands(script) is None


def test_only_shell_invocations() -> None:
    assert parse_shell_lc_literal_commands(["rm", "-rf", "x"]) is None
    assert parse_shell_lc_literal_commands(["bash", "-lc", "rm -f $X"]) == [["rm", "-f"]]
