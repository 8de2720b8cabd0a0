"""The 47 auto-review scenarios of ../shared/spec/auto-review.md (the recipe's batch.sh and
as_batch.sh runs, identical on Codex 0.169.0 and 0.171.0), one row each in
reviewer_cases.json with `source` saying where the spec records it, played through ShellGate:
Codex's config.toml (and the admin's requirements.toml) read by `review_config`, the
orchestrator with the rules given, the reviewer on the recipe's stand-in on 127.0.0.1 with the
scenario's script, a person who would approve. Compared with what Codex did: who answered each
call, whether it ran, how many requests the reviewer got (tries), and the text the model reads.
Rows with `codex_only` (apply_patch) are Codex's alone: ShellGate's runs make no patch
question; the live oracle (test_oracle_live.py) plays them through Codex with and without
ShellGate as its hook.
"""

from __future__ import annotations

import asyncio
import json
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from reviewenv import standin

from shellgate.answer.review_client import Provider
from shellgate.answer.review_config import review_config
from shellgate.answer.review_request import Entry
from shellgate.answer.stage import answer_stage, reviewer_for
from shellgate.approval.context import (
    ApprovalPolicy,
    ExecContext,
    SandboxMode,
    SandboxPermissions,
)
from shellgate.approval.question import ApprovalRequest, AutomaticApprover, RequestKind
from shellgate.approval.review import ReviewDecision
from shellgate.codexconfig.requirements import load_requirements
from shellgate.codexconfig.trust import ConfigError
from shellgate.exec.orchestrator import Orchestrator
from shellgate.exec.probe import probe_sandbox
from shellgate.exec.results import ExecRequest, ExecResult, Status
from shellgate.rules.loader import load_policy
from shellgate.rules.policy import Policy

CASES: list[dict[str, Any]] = json.loads(
    Path(__file__).with_name("reviewer_cases.json").read_text())
SPEC_SCENARIOS = 47  # auto-review.md: "47 scenarios on both versions (identical)"
PLAYED = [c for c in CASES if "codex_only" not in c]
# apply_patch: no patch question arises in ShellGate's runs (a shell tool only); test_oracle_live.py
# shows Codex with ShellGate as its hook answering the patch as Codex alone does
PATCH = [c for c in CASES if "codex_only" in c]


def _approval(config: dict[str, Any], approve_for_me: bool) -> ApprovalPolicy:
    raw = config.get("approval_policy", "on-request" if approve_for_me else "never")
    return ApprovalPolicy.parse(raw if isinstance(raw, str) else {"granular": raw["granular"]})


def play(tmp_path: Path, case: dict[str, Any], told: list[str] | None = None) -> dict[str, Any]:
    """The row through ShellGate; `told`: what the agent's model read of each call, for the
    transcript the reviewer reads (the live oracle gives Codex's)."""
    home, etc, ws = tmp_path / "home", tmp_path / "etc", tmp_path / "ws"
    for d in (home, etc, ws):
        d.mkdir()
    config_path = home / "config.toml"
    config_path.write_text(case["config"])
    if case.get("etc"):
        (etc / "requirements.toml").write_text(case["etc"])
    try:
        found = review_config((config_path,), load_requirements(etc),
                              approve_for_me=case.get("approve_for_me", False))  # fmt: skip
    except ConfigError as exc:
        return {"stops": str(exc)}
    config = tomllib.loads(case["config"])
    approval = _approval(config, case.get("approve_for_me", False))
    # --approve-for-me runs in workspace-write, as Codex's does (and `shellgate run`'s default)
    sandbox = SandboxMode(config.get("sandbox_mode", "workspace-write"
                                     if case.get("approve_for_me") else "read-only"))
    policy = Policy()
    if case.get("rules"):
        (tmp_path / "r.rules").write_text(case["rules"])
        policy = load_policy([str(tmp_path / "r.rules")])
    person = AutomaticApprover(default=ReviewDecision.APPROVED)
    entries = [Entry("user", "please do the task")]
    out: dict[str, Any] = {"who": [], "ran": [], "results": [], "warning": found.warning}
    with standin(tmp_path / "standin", case["review"]) as s:
        provider = Provider(case.get("model", "stand-in"), s.base_url, "responses", None)
        reviewer = reviewer_for(replace(found, provider=provider), approval,
                                transcript=lambda: entries, env={},
                                sandbox=sandbox.value)  # fmt: skip
        stage = answer_stage(person, codex_home=home, approval=approval, system_dir=etc,
                             reviewer=reviewer)  # fmt: skip
        orch = Orchestrator(policy, person, ExecContext(approval, sandbox),
                            codex_home=str(home), deny_read=(), answerers=stage)  # fmt: skip
        for call in case["calls"]:
            before, asked = len(s.requests()), len(person.asked)
            escalate = call.get("escalate")
            perms = SandboxPermissions.REQUIRE_ESCALATED if escalate else \
                SandboxPermissions.USE_DEFAULT
            args = {"cmd": call["command"]}  # the model's call, as Codex's transcript has it
            if escalate:
                args.update(sandbox_permissions="require_escalated", justification=escalate)
            entries.append(Entry("tool_call", json.dumps(args)))
            result: ExecResult = asyncio.run(orch.run(ExecRequest(
                ("/bin/bash", "-lc", call["command"]), str(ws), sandbox_permissions=perms,
                justification=escalate, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})))
            reviewed = len(s.requests()) > before
            out["who"].append("reviewer" if reviewed else "person" if len(person.asked) > asked
                              else "nobody")  # fmt: skip
            out["ran"].append(result.status is Status.COMPLETED)
            out["results"].append(result)
            if told is not None and len(told) > len(out["results"]) - 1:
                entries.append(Entry("tool_result", told[len(out["results"]) - 1]))
            if result.status is Status.ABORTED:  # Codex interrupts the turn
                break
        out["requests"] = s.requests()
        out["session"] = reviewer.session_id if reviewer is not None else ""
    out["ws"] = ws
    return out


@pytest.mark.parametrize("case", PLAYED, ids=[c["id"] for c in PLAYED])
def test_review_scenario_as_codex(tmp_path: Path, case: dict[str, Any]) -> None:
    want = case["codex"]
    if case["config"] and "read-only" in case["config"] and not probe_sandbox().ok:
        pytest.skip("no working sandbox here")
    got = play(tmp_path, case)
    if "stops" in want:
        assert want["stops"] in got.get("stops", ""), got
        return
    results: list[ExecResult] = got["results"]
    assert got["who"] == want["who"], results
    assert got["ran"] == want["ran"], results
    assert len(got["requests"]) == want["tries"]
    told = results[want.get("told_of", 0)].reason or ""
    if "told" in want:
        assert told == want["told"]
    if "told_starts" in want:
        assert told.startswith(want["told_starts"]), told
    if "told_contains" in want:
        assert want["told_contains"] in told, told
    if "aborted_at" in want:
        assert results[want["aborted_at"]].status is Status.ABORTED
    if want.get("exit_nonzero"):
        assert results[0].exit_code, results[0]  # the sandbox said no, as in Codex
    if "made" in want:
        assert (got["ws"] / want["made"]).exists()
    if want.get("reviewer_wrote_nothing"):
        assert not (got["ws"] / "reviewer_wrote.txt").exists()
    first = got["requests"][0]["body"] if got["requests"] else {}
    if "policy_has" in want:
        assert want["policy_has"] in first["input"][0]["content"][0]["text"]
    if "policy_lacks" in want:
        assert want["policy_lacks"] not in first["input"][0]["content"][0]["text"]
    if "action" in want:  # the planned action JSON, pretty-printed, sorted keys (spec §4)
        parts = [c.get("text", "") for c in first["input"][3]["content"]]
        filled = json.loads(json.dumps(want["action"]).replace("{WS}", str(got["ws"])))
        assert parts[-2] == json.dumps(filled, indent=2, sort_keys=True) + "\n"
        if "retry_reason" in want:
            assert "Retry reason:\n" + want["retry_reason"] + "\n" in "".join(parts)
        else:
            assert "Retry reason:" not in "".join(parts)
    if "reasoning_effort" in want:
        assert first["reasoning"].get("effort") == want["reasoning_effort"]
    if "warning_has" in want:
        assert want["warning_has"] in (got["warning"] or "")


@pytest.mark.parametrize("case", PATCH, ids=[c["id"] for c in PATCH])
def test_a_patch_question_is_left_to_the_person(tmp_path: Path, case: dict[str, Any]) -> None:
    """Codex reviews apply_patch (spec §3); should a PATCH question reach ShellGate's reviewer,
    it leaves it to the person."""
    assert case["codex_only"].startswith("agreed:")
    patch = case["calls"][0]["patch"]
    question = ApprovalRequest("q", RequestKind.PATCH, ("apply_patch", patch), str(tmp_path),
                               "edits outside the writable roots", ())  # fmt: skip
    config = tomllib.loads(case["config"])
    approval = _approval(config, False)
    found = review_config((), None)
    with standin(tmp_path / "standin", case["review"]) as s:
        provider = Provider("stand-in", s.base_url, "responses", None)
        reviewer = reviewer_for(replace(found, reviewer="auto_review", provider=provider),
                                approval, env={})  # fmt: skip
        assert reviewer is not None
        answered = asyncio.run(reviewer.answer(question))
        sent = s.requests()
    assert (answered is not None) is case["shellgate"]["reviewer_answers"]
    assert len(sent) == case["shellgate"]["tries"]


def test_every_spec_scenario_is_a_row(capsys: pytest.CaptureFixture[str]) -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)) == SPEC_SCENARIOS
    assert all(c.get("source") for c in CASES)
    different = [c for c in PLAYED if "shellgate" in c]
    count = {"specs": len(ids), "run": len(ids),
             "agreeing": len(PLAYED) - len(different), "deliberately different": len(different),
             "apply_patch (Codex's own, agreed live)": len(PATCH)}  # fmt: skip
    with capsys.disabled():
        print("\nauto-review.md scenarios: " + ", ".join(f"{k} {v}" for k, v in count.items()))
