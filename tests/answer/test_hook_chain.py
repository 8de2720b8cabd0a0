"""Codex's hooks as a stage of ShellGate's own runs, scenario by scenario as the spec records
Codex 0.169.0/0.171.0 (../shared/spec/codex-hooks-chain.md). Every run id of the recipe's
gen_scenarios.py and gen_followups.py (version dropped) is in one row's `scenarios`, with
`source` saying where the spec records it. Each scenario: real hook processes (`codex_hook.py`)
declared where Codex reads them (config.toml with trust, hooks.json, the admin's
requirements.toml), the orchestrator with the rules given, a scripted person. `codex` is what
Codex did; `shellgate`, where present, is a deliberate difference (`why`: docs/answerers.md,
e.g. where Codex fails open ShellGate asks the person) or, with `known`, a disagreement still
open; either way ShellGate's own answer is asserted. Scenarios that write outside the
workspace use /var/tmp (/tmp is writable in the sandbox, as in Codex).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hookenv import Setup

from shellgate.answer.stage import answer_stage
from shellgate.approval.answerers import AnsweredBy
from shellgate.approval.context import (
    ApprovalPolicy,
    ExecContext,
    SandboxMode,
    SandboxPermissions,
)
from shellgate.approval.question import AutomaticApprover
from shellgate.approval.review import ReviewDecision
from shellgate.codexconfig.requirements import parse_requirements
from shellgate.exec.orchestrator import Orchestrator
from shellgate.exec.probe import probe_sandbox
from shellgate.exec.results import ExecRequest, ExecResult, Status
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


@pytest.fixture
def outside() -> Iterator[Path]:
    """Outside every writable root of the sandbox (/tmp is one, as in Codex): /var/tmp."""
    path = Path(tempfile.mkdtemp(prefix="shellgate-outside-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _fill(text: str, outside: Path) -> str:
    return text.replace("{OUTSIDE}", str(outside))


def _policy(tmp_path: Path, case: dict[str, Any], s: Setup) -> Policy:
    policy = Policy()
    if case.get("rules"):
        rules = tmp_path / "default.rules"
        rules.write_text(case["rules"])
        policy = load_policy([str(rules)])
    if case.get("requirements"):
        # the admin's [rules] (requirements.toml), weighed with the user's rules as Codex does
        path = s.etc / "requirements.toml"
        text = case["requirements"] + "\n" + (path.read_text() if path.exists() else "")
        path.write_text(text)
        managed = parse_requirements(text, str(path), base=s.etc).prefix_rules()
        policy = Policy([*policy.rules, *managed], policy.network_rules, policy.host_executables)
    return policy


def play_calls(
    tmp_path: Path, case: dict[str, Any], outside: Path | None = None
) -> tuple[list[ExecResult], AutomaticApprover, Setup]:
    s = _setup(tmp_path, case)
    policy = _policy(tmp_path, case, s)
    decision = ReviewDecision(case.get("person") or "denied")
    person = AutomaticApprover(default=decision)
    approval = ApprovalPolicy.parse(case.get("policy", "on-request"))
    stage = answer_stage(person, codex_home=s.home, approval=approval, system_dir=s.etc)
    sandbox = SandboxMode(case.get("sandbox", "danger-full-access"))
    orch = Orchestrator(
        policy, person, ExecContext(approval, sandbox),
        codex_home=str(s.home), deny_read=(), answerers=stage,
    )  # fmt: skip
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path)}
    escalate = case.get("escalate")
    perms = SandboxPermissions.REQUIRE_ESCALATED if escalate else SandboxPermissions.USE_DEFAULT
    results = []
    for command in [case["command"], *([case["again"]] if "again" in case else [])]:
        filled = _fill(command, outside) if outside else command
        request = ExecRequest(("/bin/bash", "-lc", filled), str(s.ws), env=env,
                              sandbox_permissions=perms, justification=escalate)
        results.append(asyncio.run(orch.run(request)))
    return results, person, s


def play(tmp_path: Path, case: dict[str, Any]) -> tuple[ExecResult, AutomaticApprover, Setup]:
    """One call (the live comparisons use it)."""
    results, person, s = play_calls(tmp_path, case)
    return results[0], person, s


def outcome(result: ExecResult, person: AutomaticApprover) -> str:
    if result.status is Status.FORBIDDEN:
        return "blocked" if result.answered_by is AnsweredBy.HOOK else "forbidden"
    if result.status in (Status.DENIED, Status.ABORTED):
        return "asked-denied" if person.asked else "rejected"
    assert result.status is Status.COMPLETED, result
    return "asked-ran" if person.asked else "ran"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_scenario_as_codex_runs_it(tmp_path: Path, outside: Path, case: dict[str, Any]) -> None:
    if case.get("sandbox") == "workspace-write" and not probe_sandbox().ok:
        pytest.skip("no working sandbox here")
    results, person, s = play_calls(tmp_path, case, outside)
    result = results[0]
    # a deliberate difference (or a known, open one) asserts ShellGate's own answer alone
    want = case.get("shellgate") or case["codex"]
    assert outcome(result, person) == want["outcome"], (result, s.calls())
    if "told" in want:
        assert result.reason == want["told"]
    if "status" in want:
        assert result.status.value == want["status"]
    if want.get("then_ran"):
        assert results[1].status is Status.COMPLETED and results[1].stdout == "second\n"
    if "told_contains" in want:
        assert want["told_contains"] in (result.reason or "")
    if "hook_calls" in want:
        assert len(s.calls()) == want["hook_calls"], s.calls()
    if "made" in want:
        assert (s.ws / _fill(want["made"], outside)).exists()
    if "asked" in want:
        assert person.asked[0].command[-1] == want["asked"]
    if "asked_times" in want:
        assert [r.status for r in results] == [Status.COMPLETED] * len(results)
        assert len(person.asked) == want["asked_times"]
    stdins = [c["stdin"] for c in s.calls()]
    perm_stdin = [i for i in stdins if i["hook_event_name"] == "PermissionRequest"]
    if "perm_saw" in want:
        assert [p["tool_input"]["command"] for p in perm_stdin] == [want["perm_saw"]]
    if "perm_input" in want:
        expected = {k: _fill(v, outside) for k, v in want["perm_input"].items()}
        assert [p["tool_input"] for p in perm_stdin] == [expected]
    if want.get("sandbox_denied"):
        assert result.exit_code and result.attempts[0].sandboxed, result
    if "amended" in want:
        assert want["amended"] in (s.home / "rules" / "default.rules").read_text()
    if "by" in want:
        assert result.answered_by.value == want["by"]
    if "model_reads" in want:
        assert result.for_model == want["model_reads"]
    if "context" in want:
        assert list(result.context) == want["context"]
    post = [c["stdin"] for c in s.calls() if c["stdin"]["hook_event_name"] == "PostToolUse"]
    if "response" in want:
        assert post[0]["tool_response"] == want["response"]
    if "post_saw" in want:
        assert [p["tool_input"]["command"] for p in post] == [want["post_saw"]]
    if "ran_hooks" in want:
        assert sorted(c["name"] for c in s.calls()) == want["ran_hooks"]
    if want.get("concurrent"):
        a, b = s.calls()[:2]
        # both sleep (1.0 s, 0.8 s; the second declared finishes first): they overlapped
        assert a["t_start"] < b["t_end"] and b["t_start"] < a["t_end"]
    if "shellgate" in case and case["shellgate"]["outcome"].startswith("asked"):
        # the difference says why: the person reads that a hook failed (or which rewrites clash)
        asked = person.asked[0]
        says = case["shellgate"].get("question_says", "failed")
        assert any(says in n for n in (asked.reason or "", *asked.notes)), asked
    if "shellgate" in case:
        assert case["shellgate"]["why"].startswith("docs/answerers.md"), "cite the doc"


# codex-hooks-chain.md's 118 pairs (both versions) + 6 otel runs of 0.171.0 only
SPEC_SCENARIOS = 124


def test_every_spec_scenario_is_a_row(capsys: pytest.CaptureFixture[str]) -> None:
    """The recipe's run ids (gen_scenarios.py, gen_followups.py; version dropped), each in a row
    that the test above plays; the count printed for the record."""
    ids = [i for c in CASES for i in c["scenarios"]]
    assert len(ids) == len(set(ids)), "a spec scenario in two rows"
    assert len(ids) == SPEC_SCENARIOS
    assert all(c.get("source") for c in CASES)
    known = [c for c in CASES if c.get("known")]
    different = [c for c in CASES if "shellgate" in c and not c.get("known")]
    count = {
        "specs": len(ids),
        "run": len(ids) - (0 if probe_sandbox().ok else sum(
            len(c["scenarios"]) for c in CASES if c.get("sandbox") == "workspace-write")),
        "agreeing": sum(len(c["scenarios"]) for c in CASES if "shellgate" not in c),
        "deliberately different": sum(len(c["scenarios"]) for c in different),
        "known, open": sum(len(c["scenarios"]) for c in known),
        "rows (with spec-table rows of no run id)": len(CASES),
    }
    with capsys.disabled():
        print("\ncodex-hooks-chain.md scenarios: "
              + ", ".join(f"{k} {v}" for k, v in count.items()))


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
