"""Every row of shell_cases.jsonl (Codex's shell-command unit tests) as its own test.

Rows come from $SHELLGATE_CONFORMANCE_DIR when set (the kept-back share), else from
tests/conformance/data/. Then, always, data/shell_unit_ports.jsonl: every further assertion of
Codex's tests of `bash.rs`, `is_safe_command.rs`, `is_dangerous_command.rs`,
`command_canonicalization_tests.rs` and the commands `exec_policy_tests.rs` evaluates (`source`
names the test and its revision), and edge rows no Codex test shows (`source` starts with `edge`),
whose expectations are what Codex's code does on tree-sitter-bash 0.25.1; where ShellGate differs
on purpose, the row's `shellgate` holds its answer and why. A row of a kind this module does not
know fails.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import conformance_corpus  # tests/conformance/conftest.py: honours SHELLGATE_CONFORMANCE_DIR
import pytest

from shellgate.shell.canonical import canonicalize_command_for_approval
from shellgate.shell.dangerous import dangerous_command_match, dangerous_powershell_words_match
from shellgate.shell.known_safe import (
    is_known_safe_command,
    is_safe_powershell_words,
    is_safe_to_call_with_exec,
)
from shellgate.shell.split import (
    parse_shell_lc_plain_commands,
    try_parse_word_only_commands_sequence,
)

CORPUS = "shell_cases.jsonl"


def _commands_for_exec_policy(argv: list[str]) -> dict[str, Any]:
    # Spec C.2 off Windows: the plain commands when there are some, else the whole argv.
    commands = parse_shell_lc_plain_commands(argv)
    return {"commands": commands or [argv], "used_complex_parsing": False}


def _danger(kind: Any) -> str | None:
    return None if kind is None else str(kind.value)


# Linux semantics, as Codex's unit tests assert them on a Linux build.
EVALUATORS: dict[str, Callable[[Any], Any]] = {
    "bash_plain_script": try_parse_word_only_commands_sequence,
    "bash_lc_plain": parse_shell_lc_plain_commands,
    "known_safe": is_known_safe_command,
    "safe_exec": is_safe_to_call_with_exec,
    "dangerous_match": lambda argv: _danger(dangerous_command_match(argv)),
    "commands_for_exec_policy": _commands_for_exec_policy,
    "canonicalize_for_approval": canonicalize_command_for_approval,
    "dangerous_powershell_words": lambda words: _danger(dangerous_powershell_words_match(words)),
    "safe_powershell_words": is_safe_powershell_words,
}

ROWS = conformance_corpus.rows(CORPUS) + conformance_corpus.rows_from(
    conformance_corpus.DATA_DIR / "shell_unit_ports.jsonl"
)


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_shell_case(row: dict[str, Any]) -> None:
    evaluate = EVALUATORS.get(row["kind"])
    if evaluate is None:
        pytest.fail(f"unknown shell case kind {row['kind']!r} in row {row['id']}")
    # `shellgate` holds a deliberate difference: `expect` stays what Codex does
    deliberate = row.get("shellgate")
    expect = row["expect"] if deliberate is None else deliberate["expect"]
    assert evaluate(row["input"]) == expect, row.get("source")
