"""Codex's D2 tests (is_dangerous_command.rs) and the Windows checks behind `windows=True`."""

from __future__ import annotations

import pytest

from shellgate.shell.dangerous import (
    DangerKind,
    dangerous_command_match,
    dangerous_powershell_words_match,
)

MDE = (
    "for a in '-C5a25KeRr' '--' '--json' '--bogus'; do HOME=$(mktemp -d) "
    'MDE_URL=http://127.0.0.1:1 MDE_TOKEN=x node cli/mde.cjs ls "$a" >/tmp/mde-review-out '
    '2>/tmp/mde-review-err; code=$?; printf \'%s\\t%s\\t%s\\n\' "$a" "$code" '
    "\"$(tr '\\n' ' ' </tmp/mde-review-err)\"; rm -rf \"$HOME\"; done"
)


@pytest.mark.parametrize(
    "argv",
    [
        ["rm", "-f", "/"],
        ["rm", "/tmp/example", "-f"],
        ["rm", "-vf", "x"],
        ["/bin/rm", "-fr", "/tmp/example"],
        ["rm/", "-f", "x"],
        ["sudo", "rm", "-rf", "/tmp/example"],
        ["env", "-i", "--", "rm", "-f", "x"],
        ["env", "--ignore-environment", "A=1", "rm", "-f", "x"],
        ["sudo", "env", "A=1", "rm", "--force", "x"],
        ["trap", "--", "rm -rf /tmp/x", "EXIT"],
        ["bash", "-lc", "bash -c 'sh -c \"rm -f x\"'"],
    ],
)
def test_forced_rm(argv: list[str]) -> None:
    assert dangerous_command_match(argv) is DangerKind.FORCED_RM


@pytest.mark.parametrize(
    "script",
    [
        "printf x | rm -rf /tmp/example",
        "if test -d /tmp/example; then rm --force /tmp/example; fi",
        'rm -rf "$TARGET" >/dev/null',
        'for target in /tmp/a /tmp/b; do rm -r -f "$target"; done',
        'echo "$(rm -rf /tmp/example)"',
        "bash -c 'rm -rf /tmp/example'",
        "trap 'rm -rf /tmp/example' EXIT",
        MDE,
    ],
)
def test_forced_rm_in_complex_shell_syntax(script: str) -> None:
    assert dangerous_command_match(["bash", "-lc", script]) is DangerKind.FORCED_RM


@pytest.mark.parametrize(
    "argv",
    [
        ["rm", "-r", "/tmp/example"],
        ["rm", "--", "-f"],
        ["rm", "--forced", "x"],  # only `--force` exactly
        ["bash", "-lc", "echo 'rm -rf /tmp/example'"],
        ["bash", "-lc", "cmd=rm; $cmd -rf /tmp/example"],
        ["bash", "-lc", "if then rm -rf /tmp/example"],  # a parse error: opaque
        ["env", "TARGET=/tmp/example", "rm", "-r", "/tmp/example"],
        ["env", "-u", "X", "rm", "-f", "x"],  # D2 stops at other options
        ["bash", "-lc", "trap 'echo rm -rf /tmp/example' EXIT"],
        ["trap", "-p"],
        ["./bash", "-lc", "rm -rf x"],  # not a recognised shell
        ["git", "reset", "--hard"],
        ["git", "push", "--force"],
        [],
        [""],
    ],
)
def test_not_dangerous(argv: list[str]) -> None:
    assert dangerous_command_match(argv) is None


@pytest.mark.parametrize(("depth", "expected"), [(8, DangerKind.FORCED_RM), (9, DangerKind.OTHER)])
def test_wrapper_depth_fails_closed(depth: int, expected: DangerKind) -> None:
    assert dangerous_command_match(["env"] * depth + ["rm", "-rf", "x"]) is expected
    assert dangerous_command_match(["sudo"] * depth + ["rm", "-rf", "x"]) is expected


def test_nine_sudos_before_a_harmless_command_are_other() -> None:
    assert dangerous_command_match(["sudo"] * 9 + ["ls"]) is DangerKind.OTHER
    assert dangerous_command_match(["sudo"] * 8 + ["ls"]) is None


@pytest.mark.parametrize(
    "argv",
    [
        ["powershell", "-NoLogo", "-Command", "Start-Process 'https://example.com'"],
        ["powershell", "-Command", "Start-Process('https://example.com');"],
        ["powershell", "-Command", "Start-Process('HTTP://example.com');"],
        ["cmd", "/c", "start", "https://example.com"],
        ["msedge.exe", "https://example.com"],
        ["powershell", "-Command", "Remove-Item test -Force"],
        ["powershell", "-Command", "Remove-Item test -Recurse -Force"],
        ["pwsh", "-Command", "ri test -Force"],
        ["cmd", "/c", "del", "/f", "test.txt"],
        ["cmd", "/c", "erase", "/f", "test.txt"],
        ["cmd", "/c", "rd", "/s", "/q", "test"],
        ["cmd", "/c", "rmdir", "/s", "/q", "test"],
        ["cmd", "/c", "echo hi&del /f x"],
        ["powershell", "-Command", "Remove-Item -Path 'test' -Recurse -Force"],
        ["powershell", "-Command", "Remove-Item test -Force; Write-Host done"],
        ["powershell", "-Command", "if ($true) { Remove-Item test -Force}"],
        ["powershell", "-Command", "[void]( Remove-Item test -Force)]"],
        ["RM.EXE", "-f", "x"],  # Windows lower-cases and strips .exe
    ],
)
def test_windows_checks(argv: list[str]) -> None:
    assert dangerous_command_match(argv, windows=True) is not None
    if argv[0] != "RM.EXE":
        assert dangerous_command_match(argv) is None  # off Windows: not looked at


@pytest.mark.parametrize(
    "argv",
    [
        ["powershell", "-Command", "Start-Process notepad.exe"],
        ["explorer.exe", "."],
        ["powershell", "-Command", "Remove-Item test"],
        ["cmd", "/c", "del", "test.txt"],
        ["cmd", "/c", "rd", "/s", "test"],
        ["cmd", "/c", "del", "C:/foo/bar.txt"],
        ["cmd", "/c", "rd", "C:/source"],
        ["powershell", "-Command", "Write-Host hi; Get-ChildItem -Force"],
    ],
)
def test_windows_checks_not_flagged(argv: list[str]) -> None:
    assert dangerous_command_match(argv, windows=True) is None


def test_powershell_words() -> None:
    words = ["Remove-Item", "test", "-Force"]
    assert dangerous_powershell_words_match(words) is None
    assert dangerous_powershell_words_match(words, windows=True) is DangerKind.OTHER
    assert dangerous_powershell_words_match(["Get-ChildItem"], windows=True) is None
