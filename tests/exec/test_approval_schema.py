"""The editor messages of real runs validate against rules-schema/approval.schema.json."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from exec_helpers import WebServer

from shellgate.approval.context import ApprovalPolicy, ExecContext
from shellgate.approval.question import AutomaticApprover
from shellgate.exec.orchestrator import Orchestrator
from shellgate.exec.probe import SandboxProbe
from shellgate.exec.results import ExecRequest
from shellgate.exec.sandbox import NetworkAccess
from shellgate.lsp.approvals import approval_params
from shellgate.lsp.run_command import result_json
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy

SCHEMA = json.loads(
    (Path(__file__).parents[2] / "rules-schema" / "approval.schema.json").read_text()
)


def validate(instance: Any, definition: str) -> None:
    jsonschema.validate(instance, {**SCHEMA, "$ref": f"#/definitions/{definition}"})


@pytest.mark.skipif(shutil.which("socat") is None or shutil.which("curl") is None,
                    reason="the network question needs socat and curl")  # fmt: skip
def test_every_kind_of_question_and_result_validates(
    tmp_path: Path, probe: SandboxProbe, workspace: Path, outside: Path, web: WebServer
) -> None:
    policy = Policy()
    policy.add_prefix_rule(["curl"], Decision.PROMPT)
    approver = AutomaticApprover(script=lambda req: "approved")
    orch = Orchestrator(policy, approver, ExecContext(ApprovalPolicy.parse("untrusted")),
                        codex_home=str(tmp_path / "h"), probe=probe,
                        network=NetworkAccess.PROXY)  # fmt: skip
    runs = [
        ("sh", "-c", f"echo x > {outside}/x"),  # exec, then a silent narrower retry
        ("curl", "-sSf", f"http://127.0.0.1:{web.port}/"),  # exec (prompt rule), network
        ("touch", "plain"),
    ]
    results = [asyncio.run(orch.run(ExecRequest(r, str(workspace)))) for r in runs]
    on_failure = Orchestrator(Policy(), approver, ExecContext(ApprovalPolicy.parse("on-failure")),
                              codex_home=str(tmp_path / "h"), probe=probe,
                              network=NetworkAccess.OFF)  # fmt: skip
    results.append(asyncio.run(on_failure.run(
        ExecRequest(("sh", "-c", "echo x > .git/x"), str(workspace)))))  # fmt: skip
    kinds = {q.kind.value for q in approver.asked}
    assert kinds == {"exec", "network", "escalation"}
    for q in approver.asked:
        validate(approval_params(q, amendments_file="/x/default.rules", timeout=30.0), "params")
    for r in results:
        validate(result_json(r), "runCommandResult")
    validate([{"command": "ls -la", "cwd": "/tmp"}], "runCommandArguments")
    validate({"choice": "approved"}, "result")
    with pytest.raises(jsonschema.ValidationError):
        validate({"choice": "approved"} | {"bogus": 1}, "params")
