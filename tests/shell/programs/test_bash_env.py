"""bash_runs hands each command the environment the script gives it (for what programs run):
its own `VAR=… cmd`, `env`/`sudo VAR=…`, what was exported earlier (`export`, `declare -x`,
`VAR=…; export VAR`, `set -a`), and a shell's environment to the script it is handed."""

from __future__ import annotations

import pytest

from shellgate.shell.bash_runs import bash_runs


def _handed(script: str) -> list[tuple[tuple[str, ...], str | None]]:
    return [(r.words, r.unknowable) for r in bash_runs(script) if r.handed is not None]


@pytest.mark.parametrize(
    "script",
    [
        "EDITOR='rm -rf b' crontab -e",
        "env EDITOR='rm -rf b' crontab -e",
        "sudo EDITOR='rm -rf b' crontab -e",
        "export EDITOR='rm -rf b'; crontab -e",
        "export A=1 EDITOR='rm -rf b'; crontab -e",
        "declare -x EDITOR='rm -rf b'; crontab -e",
        "EDITOR='rm -rf b'; export EDITOR; crontab -e",
        "set -a; EDITOR='rm -rf b'; crontab -e",
        "EDITOR='rm -rf b' bash -c 'crontab -e'",
        "timeout 5 env EDITOR='rm -rf b' crontab -e",
        "if true; then export EDITOR='rm -rf b'; fi; crontab -e",
    ],
)
def test_the_environment_reaches_the_command(script: str) -> None:
    assert (("rm", "-rf", "b"), None) in _handed(script), bash_runs(script)


@pytest.mark.parametrize(
    "script",
    [
        "EDITOR='rm -rf b'; crontab -e",  # set, not exported: crontab does not get it
        "crontab -e; export EDITOR='rm -rf b'",  # exported after
        "ENV=production npm start",  # ENV is a shell's only
        "export EDITOR=vim; ls; ls; ls",
    ],
)
def test_what_the_command_does_not_get_hands_nothing_a_rule_would_see(script: str) -> None:
    assert ("rm", "-rf", "b") not in [w for w, _ in _handed(script)], bash_runs(script)


def test_a_value_is_read_once_and_a_run_time_one_is_asked() -> None:
    runs = bash_runs("export EDITOR=vim; git commit; ls; ls")
    assert sum(1 for r in runs if r.words == ("vim",)) == 1
    asked = _handed("export PAGER=$X; man ls")
    assert asked and all(words == () and why for words, why in asked)
