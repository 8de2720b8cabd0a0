"""Codex's hooks as a stage of ShellGate's own runs, scenario by scenario as the spec records
Codex 0.169.0/0.171.0 (../shared/spec/codex-hooks-chain.md; ids are its run ids without the
version). Each scenario: real hook processes (`codex_hook.py`) declared where Codex reads them
(config.toml with trust, hooks.json, the admin's requirements.toml), the orchestrator with the
rules given, a scripted person. `codex` is what Codex did; `shellgate`, where present, is a
deliberate difference (docs/answerers.md: where Codex fails open, ShellGate asks the person).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hookenv import Setup

from shellgate.answer.stage import answer_stage
from shellgate.approval.answerers import AnsweredBy
from shellgate.approval.context import ApprovalPolicy, ExecContext, SandboxMode
from shellgate.approval.question import AutomaticApprover
from shellgate.approval.review import ReviewDecision
from shellgate.exec.orchestrator import ExecRequest, ExecResult, Orchestrator, Status
from shellgate.rules.loader import load_policy
from shellgate.rules.policy import Policy

CASES = json.loads(Path(__file__).with_name("hook_chain_cases.json").read_text())


def _setup(tmp_path: Path, case: dict[str, Any]) -> Setup:
    s = Setup(tmp_path, dict(case.get("answers", {})))
    user = [tuple(h) for h in case.get("hooks", [])]
    if user:
        s.user_toml(user, trusted=case.get("trusted", True), tamper=case.get("tamper", False))
    if case.get("hooks_json"):
        s.user_json([tuple(h) for h in case["hooks_json"]])
    if case.get("managed"):
        s.managed([tuple(h) for h in case["managed"]], only=case.get("managed_only", False))
    return s


def play(tmp_path: Path, case: dict[str, Any]) -> tuple[ExecResult, AutomaticApprover, Setup]:
    s = _setup(tmp_path, case)
    policy = Policy()
    if case.get("rules"):
        rules = tmp_path / "default.rules"
        rules.write_text(case["rules"])
        policy = load_policy([str(rules)])
    decision = ReviewDecision(case.get("person") or "denied")
    person = AutomaticApprover(default=decision)
    approval = ApprovalPolicy.parse(case.get("policy", "on-request"))
    stage = answer_stage(person, codex_home=s.home, approval=approval, system_dir=s.etc)
    orch = Orchestrator(
        policy, person, ExecContext(approval, SandboxMode.DANGER_FULL_ACCESS),
        codex_home=str(s.home), deny_read=(), answerers=stage,
    )  # fmt: skip
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path)}
    request = ExecRequest(("bash", "-lc", case["command"]), str(s.ws), env=env)
    return asyncio.run(orch.run(request)), person, s


def outcome(result: ExecResult, person: AutomaticApprover) -> str:
    if result.status is Status.FORBIDDEN:
        return "blocked" if result.answered_by is AnsweredBy.HOOK else "forbidden"
    if result.status is Status.DENIED:
        return "asked-denied" if person.asked else "rejected"
    assert result.status is Status.COMPLETED, result
    return "asked-ran" if person.asked else "ran"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_scenario_as_codex_runs_it(tmp_path: Path, case: dict[str, Any]) -> None:
    result, person, s = play(tmp_path, case)
    want = {**case["codex"], **case.get("shellgate", {})}
    assert outcome(result, person) == want["outcome"], (result, s.calls())
    if "told" in want:
        assert result.reason == want["told"]
    if "told_contains" in want:
        assert want["told_contains"] in (result.reason or "")
    if "hook_calls" in want:
        assert len(s.calls()) == want["hook_calls"], s.calls()
    if "made" in want:
        assert (s.ws / want["made"]).exists()
    if "asked" in want:
        assert person.asked[0].command[-1] == want["asked"]
    if "perm_saw" in want:
        seen = [c["stdin"]["tool_input"]["command"] for c in s.calls()
                if c["stdin"]["hook_event_name"] == "PermissionRequest"]
        assert seen == [want["perm_saw"]]
    if "by" in want:
        assert result.answered_by.value == want["by"]
    if "model_reads" in want:
        assert result.for_model == want["model_reads"]
    if "response" in want:
        post = [c for c in s.calls() if c["stdin"]["hook_event_name"] == "PostToolUse"]
        assert post[0]["stdin"]["tool_response"] == want["response"]
    if "ran_hooks" in want:
        assert sorted(c["name"] for c in s.calls()) == want["ran_hooks"]
    if want.get("concurrent"):
        a, b = s.calls()[:2]
        # both sleep (1.0 s, 0.8 s; the second declared finishes first): they overlapped
        assert a["t_start"] < b["t_end"] and b["t_start"] < a["t_end"]
    if "shellgate" in case and case["shellgate"]["outcome"].startswith("asked"):
        # the difference says why: the person reads that a hook failed
        asked = person.asked[0]
        assert any("failed" in n for n in (asked.reason or "", *asked.notes)), asked


def test_stdin_is_codex_s(tmp_path: Path) -> None:
    """The keys and values Codex sends (spec §3), for the three events."""
    case = {"hooks": [["PreToolUse", "Bash", "h", None], ["PermissionRequest", "Bash", "h", None],
                      ["PostToolUse", "Bash", "h", None]],
            "command": "echo out; echo err >&2", "person": "approved", "policy": "untrusted"}
    result, _, s = play(tmp_path, case)
    assert result.status is Status.COMPLETED
    by_event = {c["stdin"]["hook_event_name"]: c for c in s.calls()}
    pre, ask, post = by_event["PreToolUse"], by_event["PermissionRequest"], by_event["PostToolUse"]
    assert list(pre["stdin"]) == ["session_id", "turn_id", "transcript_path", "cwd",
                                  "hook_event_name", "model", "permission_mode", "tool_name",
                                  "tool_input", "tool_use_id"]
    assert "tool_use_id" not in ask["stdin"]
    assert post["stdin"]["tool_response"] == "out\nerr\n"
    assert pre["stdin"]["tool_input"] == {"command": "echo out; echo err >&2"}
    assert pre["stdin"]["tool_name"] == "Bash" and pre["stdin"]["permission_mode"] == "default"
    assert pre["stdin"]["session_id"] == post["stdin"]["session_id"]
    assert pre["stdin"]["tool_use_id"] == post["stdin"]["tool_use_id"]
    assert pre["cwd"] == str(s.ws) and pre["codex_home"] == str(s.home)


def test_a_timed_out_hook_is_killed(tmp_path: Path) -> None:
    """At its timeout the hook's whole process group is killed: it never gets to act."""
    s = Setup(tmp_path)
    marker = tmp_path / "late"
    cfg = s.home / "config.toml"
    from shellgate.codexconfig.hook_trust import state_key, trust_hash

    command = f"sleep 3; touch {marker}"
    cfg.write_text(
        '[[hooks.PreToolUse]]\nmatcher = "Bash"\n[[hooks.PreToolUse.hooks]]\n'
        f'type = "command"\ncommand = {json.dumps(command)}\ntimeout = 1\n'
        f"[hooks.state.{json.dumps(state_key(cfg, 'PreToolUse', 0))}]\n"
        f"trusted_hash = {json.dumps(trust_hash('PreToolUse', 'Bash', command, 1))}\n")
    person = AutomaticApprover(default=ReviewDecision.DENIED)
    approval = ApprovalPolicy.parse("on-request")
    stage = answer_stage(person, codex_home=s.home, approval=approval, system_dir=s.etc)
    before = asyncio.run(stage.before("echo hi", str(s.ws), "call_1"))
    assert before.ask is not None and "hook timed out after 1s" in before.ask
    import time

    time.sleep(2.5)
    assert not marker.exists()
