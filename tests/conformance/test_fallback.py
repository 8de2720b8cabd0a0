"""Every row of fallback_matrix.jsonl: the unmatched-command decision, the requirement mapping,
prompt rejection, the default requirement, the first attempt's sandbox and retry policy.

Rows run through the real chain: the real rules loader (starlark-go) for rules text, the real
shell splitter and danger classifier (bashlex) for commands.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conformance_corpus import rows

from shellgate.approval.context import (
    ApprovalPolicy,
    ExecContext,
    FsSandboxKind,
    SandboxPermissions,
)
from shellgate.approval.defaults import (
    default_exec_approval_requirement,
    sandbox_override_for_first_attempt,
    wants_no_sandbox_approval,
)
from shellgate.approval.fallback import is_dangerous, unmatched_decision
from shellgate.approval.requirement import (
    NeedsApproval,
    Skip,
    commands_for_exec_policy,
    create_exec_approval_requirement,
    prompt_is_rejected_by_policy,
    requirement_to_json,
)
from shellgate.rules.policy import Policy

NAME = "fallback_matrix.jsonl"


def _rows() -> list[dict[str, Any]]:
    return rows(NAME)


ROWS = _rows()


def _context(inputs: dict[str, Any]) -> ExecContext:
    raw_kind = inputs.get("fs_sandbox_kind", inputs.get("permission_profile"))
    prefix = inputs.get("prefix_rule")
    return ExecContext(
        approval_policy=ApprovalPolicy.parse(inputs["approval_policy"]),
        sandbox_permissions=SandboxPermissions(inputs.get("sandbox_permissions", "use_default")),
        fs_kind_override=FsSandboxKind.parse(raw_kind) if raw_kind is not None else None,
        prefix_rule=tuple(prefix) if prefix is not None else None,
    )


def _non_windows(inputs: dict[str, Any]) -> None:
    # ShellGate implements the non-Windows chain only; a Windows row must fail, not pass.
    assert inputs.get("platform", "non-windows") == "non-windows", "Windows rows are unsupported"


def _policy(rules: str | None, tmp_path: Path) -> Policy:
    if not rules:
        return Policy()
    from shellgate.rules.loader import load_policy

    path = tmp_path / "case.rules"
    path.write_text(rules, encoding="utf-8")
    return load_policy([str(path)])


def _compare(got: dict[str, object], expect: dict[str, object]) -> None:
    assert got == expect


def check_unmatched_decision(row: dict[str, Any], tmp_path: Path) -> None:
    inputs = row["inputs"]
    _non_windows(inputs)
    ctx = _context(inputs)
    if "dangerous" in inputs:
        dangerous = bool(inputs["dangerous"])
    else:
        dangerous = any(is_dangerous(c) for c in commands_for_exec_policy(inputs["command"]))
    got = unmatched_decision(
        ctx.approval_policy, ctx.fs_kind, ctx.sandbox_permissions, dangerous=dangerous
    )
    assert got.value == row["expect"]


def check_chain(row: dict[str, Any], tmp_path: Path) -> None:
    inputs = row["inputs"]
    _non_windows(inputs)
    command = inputs["command"]
    if "exec_policy_commands" in inputs:
        assert commands_for_exec_policy(command) == inputs["exec_policy_commands"]
    if "dangerous" in inputs:
        # The row's flag must be what the real classifier says of the command.
        found = any(is_dangerous(c) for c in commands_for_exec_policy(command))
        assert found == inputs["dangerous"]
    requirement = create_exec_approval_requirement(
        command, _context(inputs), _policy(inputs.get("rules"), tmp_path)
    )
    _compare(requirement_to_json(requirement), row["expect"])


def check_prompt_rejection(row: dict[str, Any], tmp_path: Path) -> None:
    ctx = ExecContext(approval_policy=ApprovalPolicy.parse(row["inputs"]["approval_policy"]))
    got = prompt_is_rejected_by_policy(ctx, prompt_is_rule=row["inputs"]["prompt_is_rule"])
    assert got == row["expect"]


def check_default_requirement(row: dict[str, Any], tmp_path: Path) -> None:
    inputs = row["inputs"]
    got = default_exec_approval_requirement(
        ApprovalPolicy.parse(inputs["approval_policy"]),
        FsSandboxKind.parse(inputs["fs_sandbox_kind"]),
    )
    _compare(requirement_to_json(got), row["expect"])


_REQUIREMENTS = {
    "skip_bypass_true": Skip(bypass_sandbox=True),
    "skip_bypass_false": Skip(bypass_sandbox=False),
    "needs_approval": NeedsApproval(None),
}


def check_first_attempt_override(row: dict[str, Any], tmp_path: Path) -> None:
    inputs = row["inputs"]
    got = sandbox_override_for_first_attempt(
        SandboxPermissions(inputs["sandbox_permissions"]),
        _REQUIREMENTS[inputs["requirement"]],
        fs_policy_has_denied_reads=inputs["fs_policy_has_denied_reads"],
    )
    assert got.value == row["expect"]


def check_wants_no_sandbox_approval(row: dict[str, Any], tmp_path: Path) -> None:
    got = wants_no_sandbox_approval(ApprovalPolicy.parse(row["inputs"]["approval_policy"]))
    assert got is row["expect"]


TABLES: dict[str, Callable[[dict[str, Any], Path], None]] = {
    "unmatched_decision": check_unmatched_decision,
    "unmatched_requirement": check_chain,
    "requirement_scenario": check_chain,
    "prompt_rejection": check_prompt_rejection,
    "default_requirement": check_default_requirement,
    "first_attempt_override": check_first_attempt_override,
    "wants_no_sandbox_approval": check_wants_no_sandbox_approval,
}


# Rows where ShellGate differs on purpose (docs/amend.md, "Deliberate differences"): what it
# gives instead of Codex's expectation.
DELIBERATE = {
    # `bash -lc ''` and a blank script: Codex offers prefix_rule(pattern=["bash", "-lc", ""]);
    # no amendment with an empty or blank word is offered.
    "requirement_scenario-022": {"proposed_execpolicy_amendment": None},
    "requirement_scenario-023": {"proposed_execpolicy_amendment": None},
}


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_fallback_row(row: dict[str, Any], tmp_path: Path) -> None:
    if row["id"] in DELIBERATE:
        row = {**row, "expect": {**row["expect"], **DELIBERATE[row["id"]]}}
    table = row.get("table")
    assert table in TABLES, f"unknown table {table!r}: this test does not know how to run it"
    TABLES[table](row, tmp_path)


def test_corpus_is_not_empty() -> None:
    assert len(ROWS) > 0
