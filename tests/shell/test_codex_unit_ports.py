"""Codex's own unit-test assertions for the shell analysis, ported row by row.

tests/shell/data/codex_unit_ports.jsonl holds every assertion found in Codex's tests of
`bash.rs`, `is_safe_command.rs`, `is_dangerous_command.rs`, `command_canonicalization_tests.rs`
and the commands `exec_policy_tests.rs` evaluates, in the shape of the conformance corpus
(`source` names the test and its revision), then edge cases no Codex test shows, whose
expectations are what Codex's code does on tree-sitter-bash 0.25.1 (`source` starts with
`edge`). Each kind is evaluated exactly as
tests/conformance/test_shell.py evaluates it (Linux semantics, as Codex's tests assert them on
a Linux build).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

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

DATA = Path(__file__).parent / "data" / "codex_unit_ports.jsonl"
ROWS: list[dict[str, Any]] = [
    json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()
]


def _commands_for_exec_policy(argv: list[str]) -> dict[str, Any]:
    # Spec C.2 off Windows: the plain commands when there are some, else the whole argv.
    commands = parse_shell_lc_plain_commands(argv)
    return {"commands": commands or [argv], "used_complex_parsing": False}


def _danger(kind: Any) -> str | None:
    return None if kind is None else str(kind.value)


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


def test_rows_have_unique_ids_and_known_kinds() -> None:
    ids = [row["id"] for row in ROWS]
    assert len(ids) == len(set(ids))
    assert {row["kind"] for row in ROWS} <= set(EVALUATORS)


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_codex_unit_assertion(row: dict[str, Any]) -> None:
    assert EVALUATORS[row["kind"]](row["input"]) == row["expect"], row["source"]
