from __future__ import annotations

import pytest

from shellgate.shell.wrappers import Concealment, HiddenCommand, hidden_commands, unwrap

W, SH, SUB, RED, DOC, SCR = (
    Concealment.WRAPPER,
    Concealment.SHELL,
    Concealment.SUBSTITUTION,
    Concealment.REDIRECTION,
    Concealment.HEREDOC,
    Concealment.SCRIPT,
)


@pytest.mark.parametrize(
    ("argv", "wrapper", "inner"),
    [
        (["timeout", "5", "rm", "-rf", "x"], "timeout", ["rm", "-rf", "x"]),
        (["timeout", "-s", "KILL", "-k", "1", "5", "make"], "timeout", ["make"]),
        (["timeout", "--signal=KILL", "5s", "make"], "timeout", ["make"]),
        (["nice", "-n", "5", "make"], "nice", ["make"]),
        (["nice", "-10", "make"], "nice", ["make"]),
        (["/usr/bin/nice", "make"], "nice", ["make"]),
        (["xargs", "-0", "-n", "1", "rm", "-f"], "xargs", ["rm", "-f"]),
        (["xargs", "-I{}", "mv", "{}", "/tmp"], "xargs", ["mv", "{}", "/tmp"]),
        (["env", "-i", "A=1", "B=2", "rm", "x"], "env", ["rm", "x"]),
        (["env", "-u", "PATH", "rm", "x"], "env", ["rm", "x"]),
        (["sudo", "-u", "root", "-E", "--", "rm", "x"], "sudo", ["rm", "x"]),
        (["nohup", "./server"], "nohup", ["./server"]),
        (["stdbuf", "-oL", "tail", "-f", "log"], "stdbuf", ["tail", "-f", "log"]),
        (["chroot", "/srv", "sh"], "chroot", ["sh"]),
        (["flock", "/tmp/l", "make"], "flock", ["make"]),
    ],
)
def test_unwrap(argv: list[str], wrapper: str, inner: list[str]) -> None:
    assert unwrap(argv) == (wrapper, inner)


@pytest.mark.parametrize(
    "argv", [["timeout", "5"], ["ls", "-l"], ["env"], ["env", "A=1"], ["sudo", "-l"], []]
)
def test_nothing_to_unwrap(argv: list[str]) -> None:
    assert unwrap(argv) is None


def test_nested_wrappers_are_reported_outermost_first() -> None:
    assert hidden_commands(["sudo", "timeout", "5", "rm", "-f", "x"]) == (
        HiddenCommand(W, "sudo", ("timeout", "5", "rm", "-f", "x")),
        HiddenCommand(W, "timeout", ("rm", "-f", "x")),
    )


def test_plain_top_level_script_hides_only_wrapped_commands() -> None:
    # Codex splits `bash -lc` into segments, so `ls` and `timeout ...` are seen by the rules;
    # only what `timeout` runs is hidden.
    assert hidden_commands(["bash", "-lc", "ls && timeout 3 rm -rf x"]) == (
        HiddenCommand(W, "timeout", ("rm", "-rf", "x")),
    )


def test_nested_shell_source_is_hidden() -> None:
    assert hidden_commands(["bash", "-c", "sh -c 'rm x; ls'"]) == (
        HiddenCommand(SH, "sh -c", ("rm", "x")),
        HiddenCommand(SH, "sh -c", ("ls",)),
    )
    assert hidden_commands(["eval", "rm", "-rf", "x"]) == (
        HiddenCommand(SH, "eval", ("rm", "-rf", "x")),
    )
    assert hidden_commands(["trap", "rm x", "EXIT"]) == (HiddenCommand(SH, "trap", ("rm", "x")),)


def test_non_plain_script() -> None:
    found = hidden_commands(["bash", "-lc", "echo $(rm -rf x) > /etc/passwd"])
    assert found == (
        HiddenCommand(SCR, "bash -lc", ("echo",)),
        HiddenCommand(RED, ">", ("echo",), "/etc/passwd"),
        HiddenCommand(SUB, "$(...)", ("rm", "-rf", "x")),
    )
    found = hidden_commands(["bash", "-lc", "cat <<'EOF' > out.txt\nhi\nEOF"])
    assert HiddenCommand(DOC, "<<", ("cat",), "EOF") in found
    assert HiddenCommand(RED, ">", ("cat",), "out.txt") in found
    assert HiddenCommand(SUB, "`...`", ("whoami",)) in hidden_commands(
        ["bash", "-lc", "echo `whoami`"]
    )
    assert HiddenCommand(SUB, "<(...)", ("ls", "a")) in hidden_commands(
        ["bash", "-lc", "diff <(ls a) b"]
    )


def test_find_exec() -> None:
    assert hidden_commands(["find", ".", "-name", "*.o", "-exec", "rm", "{}", ";"]) == (
        HiddenCommand(W, "find -exec", ("rm", "{}")),
    )


def test_plain_commands_hide_nothing() -> None:
    assert hidden_commands(["ls", "-l"]) == ()
    assert hidden_commands(["bash", "-lc", "ls | wc -l"]) == ()
    assert hidden_commands(["bash", "-lc", "if then"]) == ()  # opaque, nothing readable


def test_shell_source_options() -> None:
    assert hidden_commands(["su", "-", "root", "-c", "rm -rf /x"]) == (
        HiddenCommand(SH, "su -c", ("rm", "-rf", "/x")),
    )
    assert hidden_commands(["flock", "/tmp/l", "-c", "make all"]) == (
        HiddenCommand(SH, "flock -c", ("make", "all")),
    )
    assert hidden_commands(["env", "-S", "rm -f x", "y"]) == (
        HiddenCommand(W, "env", ("rm", "-f", "x", "y")),
    )
    assert hidden_commands(["env", "-Srm -f x"]) == (HiddenCommand(W, "env", ("rm", "-f", "x")),)
    assert hidden_commands(["command", "-v", "rm"]) == ()  # only looks `rm` up
    assert hidden_commands(["command", "rm", "x"]) == (HiddenCommand(W, "command", ("rm", "x")),)
