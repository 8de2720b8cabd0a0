"""Codex's command_canonicalization tests (revision 52dba00, the corpus's C1 rows)."""

from __future__ import annotations

from shellgate.shell.canonical import canonicalize_command_for_approval as canon


def test_word_only_scripts_keep_shell_identity() -> None:
    a = ["/bin/bash", "-lc", "cargo test -p codex-core"]
    b = ["bash", "-lc", "cargo   test   -p codex-core"]
    assert canon(a) == ["/bin/bash", "-lc", "cargo", "test", "-p", "codex-core"]
    assert canon(a) != canon(b)
    assert canon(["bash", "-lc", "cargo   test   -p codex-core"]) == canon(
        ["bash", "-lc", "cargo test -p codex-core"]
    )


def test_other_scripts_get_a_stable_script_key() -> None:
    script = "python3 <<'PY'\nprint('hello')\nPY"
    a = ["/bin/zsh", "-lc", script]
    assert canon(a) == ["__codex_shell_script__", "/bin/zsh", "-lc", script]
    assert canon(a) != canon(["zsh", "-lc", script])
    assert canon(["bash", "-c", "ls && pwd"]) == [
        "__codex_shell_script__",
        "bash",
        "-c",
        "ls && pwd",
    ]


def test_powershell_wrappers() -> None:
    a = ["powershell.exe", "-NoProfile", "-Command", "Write-Host hi"]
    assert canon(a) == ["__codex_powershell_script__", *a]
    assert canon(a) != canon(["powershell", "-Command", "Write-Host hi"])
    assert canon(["powershell.exe", "-NoProfile", "-Command", "Get-ChildItem"]) != canon(
        ["powershell.exe", "-Command", "Get-ChildItem"]
    )
    assert canon(["powershell.exe", "-File", "x.ps1"]) == ["powershell.exe", "-File", "x.ps1"]


def test_fake_shells_stay_unchanged() -> None:
    assert canon(["./zsh", "-c", "ls"]) == ["./zsh", "-c", "ls"]
    assert canon(["/tmp/workspace/zsh", "-c", "ls"]) == ["/tmp/workspace/zsh", "-c", "ls"]
    assert canon(["cargo", "fmt"]) == ["cargo", "fmt"]
    assert canon([]) == []
