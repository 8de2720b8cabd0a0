from __future__ import annotations

import pytest

from shellgate.shell.known_safe import (
    is_known_safe_command,
    is_safe_powershell_words,
    is_safe_to_call_with_exec,
)


@pytest.mark.parametrize(
    "argv",
    [
        ["bash", "-lc", "ls -1"],
        ["bash", "-lc", 'grep -R "Cargo.toml" -n'],
        ["bash", "-lc", 'grep -R "Cargo.toml" -n || true'],
        ["bash", "-lc", "ls && pwd"],
        ["bash", "-lc", "ls | wc -l"],
        ["zsh", "-lc", "ls"],
        ["cat/", "x"],  # one path component
        ["sed", "-n", "10p"],
        ["base64", "-d"],
        ["rg", "-o", "x"],
    ],
)
def test_safe(argv: list[str]) -> None:
    assert is_known_safe_command(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["bash", "-lc", "find . -name file.txt -delete"],
        ["bash", "-lc", "ls > out.txt"],
        ["bash", "-lc", "./cat Cargo.toml"],
        ["bash", "-lc", "ls || (pwd && echo hi)"],
        ["bash", "-lc", ""],  # nothing to be safe about
        ["../cat", "Cargo.toml"],
        ["/", "x"],
        ["git", "-C.", "status"],
        ["git", "diff", "--output", "/tmp/x"],
        ["git", "--config-env=core.pager=PAGER", "show", "HEAD"],
        ["sed", "-n", "xp", "file.txt"],
        ["sed", "-n", "1,2,3p"],
        ["sed", "-n", "1p", "a", "b"],
        ["sed", "-n"],
        ["sed", "-n", "１p"],  # only ASCII digits
        ["find", ".", "-name", "file.txt", "-exec", "rm", "{}", ";"],
        ["find", ".", "-delete", "-name", "file.txt"],
        ["find", ".", "-fprintf", "/root/suid.txt", "%#m %u %p\n"],
        ["rg", "--hostname-bin=pwned", "files"],
        ["foo"],
        [],
    ],
)
def test_not_safe(argv: list[str]) -> None:
    assert not is_known_safe_command(argv)


def test_linux_only_commands() -> None:
    assert is_safe_to_call_with_exec(["tac", "x"])
    assert not is_safe_to_call_with_exec(["tac", "x"], linux=False)


def test_powershell_words_only_on_windows() -> None:
    assert not is_safe_powershell_words(["Get-Content", "Cargo.toml"])
    assert is_safe_powershell_words(["Get-Content", "Cargo.toml"], windows=True)
    assert not is_safe_powershell_words(["Get-Content", "|", "Set-Content", "x"], windows=True)
    assert not is_safe_powershell_words(["git", "status"], windows=True)
