"""Codex's auto-reviewer in ShellGate, against the recipe's stand-in model server on 127.0.0.1
(the one the spec's 47 scenarios ran against), compared with what the real Codex 0.171.0 sent
and told its model in the same scenarios (codex_reviews/codex-0.171.0.json, recorded offline
with ../shared/recipes/auto-review/run_exec.sh): the request (policy text, schema, tools,
transcript layout, planned action JSON), the number of tries, and the text the model reads.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from reviewenv import standin

from shellgate.answer.review_client import Provider
from shellgate.answer.review_request import FOLLOW_UP_NOTE, Entry, policy_text
from shellgate.answer.reviewer import Reviewer
from shellgate.approval.answerers import AnsweredBy
from shellgate.approval.question import ApprovalRequest, RequestKind
from shellgate.approval.review import ReviewDecision

CODEX = json.loads((Path(__file__).with_name("codex_reviews") / "codex-0.171.0.json").read_text())
SCEN = CODEX["scenarios"]
ESC_JUSTIFICATION = "Do you want me to create escalated.txt outside the sandbox?"
DEFAULT_POLICY = policy_text()


def esc_request(cwd: Path, cmd: str = "touch escalated.txt") -> ApprovalRequest:
    return ApprovalRequest("q", RequestKind.EXEC, ("/bin/bash", "-lc", cmd), str(cwd),
                           ESC_JUSTIFICATION, (), justification=ESC_JUSTIFICATION,
                           sandbox_permissions="require_escalated")  # fmt: skip


def call_entry(cmd: str) -> Entry:
    args = {"cmd": cmd, "sandbox_permissions": "require_escalated",
            "justification": ESC_JUSTIFICATION}
    return Entry("tool_call", json.dumps(args))


def reviewer(base_url: str, entries: list[Entry], **kw: Any) -> Reviewer:
    return Reviewer(Provider("stand-in", base_url, "responses", None),
                    kw.pop("policy", DEFAULT_POLICY), lambda: entries, **kw)  # fmt: skip


def normalised(body: dict[str, Any], ws: Path, session: str) -> list[dict[str, Any]]:
    """A request's input as the fixture keeps it: paths, ids and dates replaced."""
    out = []
    for item in body["input"]:
        texts = []
        for c in item.get("content", []):
            t = c.get("text", "").replace(str(ws), "{WS}").replace(session, "{SESSION}")
            t = re.sub(r"<current_date>[^<]*</current_date>",
                       "<current_date>{DATE}</current_date>", t)
            texts.append("{POLICY}" if t == DEFAULT_POLICY else t)
        out.append({"role": item.get("role"), "type": item.get("type"), "texts": texts})
    return out


def inner(told: str) -> str:
    """Codex's text for the model without its exec_command wrapper."""
    found = re.search(r'Rejected\(\\"(.*)\\"\)" }$', told, re.S)
    assert found, told
    # escaped twice: inside Rejected("…") and inside the CreateProcess message
    text = found.group(1).replace("\\\\", "\\")
    return text.replace("\\n", "\n").replace('\\"', '"')


def review(tmp_path: Path, script: list[dict[str, Any]], entries: list[Entry],
           requests: list[ApprovalRequest], **kw: Any) -> tuple[list[Any], Any, Reviewer]:
    ws = tmp_path / "ws"
    ws.mkdir(parents=True, exist_ok=True)
    with standin(tmp_path / "standin", script) as s:
        r = reviewer(s.base_url, entries, **kw)

        async def go() -> list[Any]:
            return [await r.answer(q) for q in requests]

        return asyncio.run(go()), s, r


def test_the_request_is_codex_s(tmp_path: Path) -> None:
    """esc_allow: the same four input messages, byte for byte after ids, paths and dates."""
    want = SCEN["esc_allow"]
    entries = [Entry("user", want["prompt"]), call_entry("touch escalated.txt")]
    ws = tmp_path / "ws"
    answers, s, r = review(tmp_path, [{"json": {"risk_level": "low", "user_authorization":
                           "high", "outcome": "allow", "rationale": "fine"}}], entries,
                           [esc_request(ws)])  # fmt: skip
    assert answers[0].by is AnsweredBy.REVIEWER
    assert answers[0].answer.decision is ReviewDecision.APPROVED
    sent = s.requests()
    assert len(sent) == 1
    body = sent[0]["body"]
    assert normalised(body, ws, r.session_id) == want["requests"][0]
    assert body["text"] == want["text"] and body["tools"] == want["tools"]
    assert body["reasoning"] == want["reasoning"] and body["include"] == want["include"]
    assert body["tool_choice"] == want["tool_choice"]
    assert body["prompt_cache_key"] == want["prompt_cache_key"].replace("{SESSION}",
                                                                        r.session_id)
    # Codex also sends client_metadata (its installation, thread and turn ids): not ours to send
    assert sorted(body) == sorted(k for k in want["body_keys"] if k != "client_metadata")
    headers = {k.lower(): v for k, v in sent[0]["headers"].items()}
    assert headers["x-openai-subagent"] == "guardian"
    assert "instructions" not in body


def test_a_prompt_rule_s_retry_reason(tmp_path: Path) -> None:
    want = SCEN["rule_deny"]
    ws = tmp_path / "ws"
    q = ApprovalRequest("q", RequestKind.EXEC, ("/bin/bash", "-lc", "touch sandboxed.txt"),
                        str(ws), "`/bin/bash -lc 'touch sandboxed.txt'` requires approval: "
                        "touch needs a look", ())  # fmt: skip
    entries = [Entry("user", want["prompt"]), Entry("tool_call", '{"cmd": "touch sandboxed.txt"}')]
    answers, s, r = review(tmp_path, [{"json": {"risk_level": "high", "user_authorization": "low",
                           "outcome": "deny", "rationale": "touching files outside the sandbox "
                           "was not requested"}}], entries, [q])  # fmt: skip
    assert normalised(s.requests()[0]["body"], ws, r.session_id)[3] == want["requests"][0][3]
    assert answers[0].answer.decision is ReviewDecision.DENIED
    assert answers[0].said == inner(want["told"][-1])


def test_a_second_review_continues_the_conversation(tmp_path: Path) -> None:
    """two_reviews: the same thread, the reviewer's answer, the note, the transcript delta."""
    want = SCEN["two_reviews"]
    ws = tmp_path / "ws"
    entries = [Entry("user", want["prompt"]), call_entry("touch first.txt")]
    ws.mkdir(parents=True)
    script = [{"json": {"risk_level": "low", "user_authorization": "high", "outcome": "allow",
                        "rationale": "ok 1"}},
              {"json": {"risk_level": "medium", "user_authorization": "medium",
                        "outcome": "deny", "rationale": "no 2"}}]  # fmt: skip
    with standin(tmp_path / "standin", script) as s:
        r = reviewer(s.base_url, entries)
        first = asyncio.run(r.answer(esc_request(ws, "touch first.txt")))
        entries += [Entry("tool_result", "Chunk ID: {CHUNK}\nWall time: 0.0000 seconds\n"
                          "Process exited with code 0\nOriginal token count: 0\nOutput:\n"),
                    call_entry("touch second.txt")]  # fmt: skip
        second = asyncio.run(r.answer(esc_request(ws, "touch second.txt")))
        sent = s.requests()
    assert first.answer.decision is ReviewDecision.APPROVED
    assert second.said == inner(want["told"][-1])
    assert len(sent) == 2
    assert normalised(sent[1]["body"], ws, r.session_id) == want["requests"][1]


@pytest.mark.parametrize("name", ["policy_cfg", "req_extra"])
def test_policy_texts_applied_as_codex_applies_them(name: str) -> None:
    want = SCEN[name]["requests"][0][0]["texts"][0]
    if name == "policy_cfg":
        got = policy_text(user_policy="CUSTOM-USER-POLICY-MARKER: deny everything that touches "
                          "files.")  # fmt: skip
    else:
        got = policy_text(admin_extra="ADMIN-EXTRA-MARKER: never allow curl.")
    assert got == want
    assert len(DEFAULT_POLICY) == 18308


FAILED_TAIL = ("\nThe action was not executed because automatic approval review could not be "
               "completed. This is a review failure, not a determination that the action is "
               "unsafe. Do not bypass the approval check; resolve the error or ask the user for "
               "guidance.")  # fmt: skip
# (spec auto-review.md §5: reviewer script, requests Codex made, first line the model read)
FAILURES = {
    "malformed": ([{"text": "this is not json"}], 3,
                  "Automatic approval review failed: guardian assessment was not valid JSON"),
    "badenum": ([{"json": {"risk_level": "bogus", "outcome": "allow"}}], 3,
                "Automatic approval review failed: unknown variant `bogus`, expected one of "
                "`low`, `medium`, `high`, `critical` at line 1 column 22"),
    "http500": ([{"status": 500, "body": "reviewer exploded"}], 12,
                "Automatic approval review failed: We\u2019re currently experiencing high "
                "demand, which may cause temporary errors."),
    "drop": ([{"drop": True}], 4, "Automatic approval review failed: stream disconnected "
             "before completion: error sending request"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(FAILURES))
def test_failures_fail_closed_with_codex_s_tries_and_text(tmp_path: Path, name: str) -> None:
    script, tries, first_line = FAILURES[name]
    answers, s, _ = review(tmp_path, script, [Entry("user", "x")], [esc_request(tmp_path)])
    assert answers[0].answer.decision is ReviewDecision.DENIED  # never an allow, never a person
    assert answers[0].by is AnsweredBy.REVIEWER
    assert answers[0].said == first_line + FAILED_TAIL
    assert len(s.requests()) == tries
    if name == "malformed":
        assert normalised(s.requests()[1]["body"], tmp_path / "ws", _.session_id)[4:] == [
            {**m, "texts": [t.replace("{WS}", str(tmp_path)) for t in m["texts"]]}
            for m in SCEN["esc_malformed"]["requests"][1][4:]]


def _roles(request: dict[str, Any]) -> list[str]:
    return [m["role"] for m in request["body"]["input"]]


def test_retries_continue_the_conversation_as_codex(tmp_path: Path) -> None:
    """As the live oracle found (test_oracle_live.py, esc_malformed and esc_500): a retry after
    an answer adds the answer and the request, the note on prior reviews only the first time;
    after a server error the next attempt adds the request alone (requests 4 and 8 of 12)."""
    _, s, _ = review(tmp_path, FAILURES["malformed"][0], [Entry("user", "x")],
                     [esc_request(tmp_path)])  # fmt: skip
    last = s.requests()[-1]["body"]["input"]
    assert [m["content"][0]["text"] for m in last].count(FOLLOW_UP_NOTE) == 1
    assert _roles(s.requests()[-1])[4:] == ["assistant", "developer", "user", "assistant", "user"]
    _, s, _ = review(tmp_path / "500", FAILURES["http500"][0], [Entry("user", "x")],
                     [esc_request(tmp_path)])  # fmt: skip
    lengths = [len(r["body"]["input"]) for r in s.requests()]
    assert lengths == [4] * 4 + [5] * 4 + [6] * 4
    assert _roles(s.requests()[-1])[4:] == ["user", "user"]


def test_gpt5_and_a_workspace_write_session_as_codex_sends_them(tmp_path: Path) -> None:
    """model_gpt55 and approve_for_me (live oracle): gpt-5's reasoning and verbosity; the
    session's writable roots in the environment, as read entries."""
    ws = tmp_path / "ws"
    with standin(tmp_path / "standin", [{"json": {"outcome": "allow"}}]) as s:
        r = Reviewer(Provider("gpt-5.5", s.base_url, "responses", None), DEFAULT_POLICY,
                     lambda: [Entry("user", "x")], sandbox="workspace-write")  # fmt: skip
        asyncio.run(r.answer(esc_request(ws)))
        body = s.requests()[0]["body"]
    assert body["reasoning"] == {"effort": "low"} and body["text"]["verbosity"] == "low"
    env = body["input"][2]["content"][0]["text"]
    assert (f'<entry access="read"><path>{ws}</path></entry><entry access="read"><special>'
            ":slash_tmp</special></entry>") in env
    assert f'<entry access="read"><path>{ws}/.git</path></entry>' in env


def test_a_slow_review_times_out_with_one_request(tmp_path: Path) -> None:
    answers, s, _ = review(tmp_path, [{"delay_ms": 4000, "json": {"outcome": "allow"}}],
                           [Entry("user", "x")], [esc_request(tmp_path)], timeout_ms=1500)
    assert answers[0].answer.decision is ReviewDecision.DENIED
    assert answers[0].said.startswith("The automatic permission approval review did not finish")
    assert len(s.requests()) == 1


@pytest.mark.parametrize("answer,decision", [
    ({"text": 'Sure! {"outcome": "allow", "risk_level": "low"} hope that helps'}, "approved"),
    ({"json": {"outcome": "allow", "risk_level": "low", "extra_field": 1}}, "approved"),
    ({"json": {"outcome": "allow"}}, "approved"),
    ({"json": {"risk_level": "critical", "user_authorization": "low", "outcome": "allow"}},
     "approved"),
    ({"json": {"outcome": "deny"}}, "denied"),
])  # fmt: skip
def test_only_outcome_acts(tmp_path: Path, answer: dict[str, Any], decision: str) -> None:
    answers, _, _ = review(tmp_path, [answer], [Entry("user", "x")], [esc_request(tmp_path)])
    assert answers[0].answer.decision.value == decision
    if decision == "denied":
        assert "Reason: Auto-review returned a deny decision without a rationale." in \
            answers[0].said


def test_three_denials_in_a_turn_interrupt_it(tmp_path: Path) -> None:
    deny = {"json": {"outcome": "deny", "rationale": "no"}}
    answers, _, _ = review(tmp_path, [deny], [Entry("user", "x")],
                           [esc_request(tmp_path)] * 3)  # fmt: skip
    assert [a.answer.decision for a in answers] == [ReviewDecision.DENIED] * 2 + [
        ReviewDecision.ABORT]
    assert answers[2].said == ("Automatic approval review rejected too many approval requests "
                               "for this turn (3 consecutive, 3 in the last 50 reviews); "
                               "interrupting the turn.")  # fmt: skip


def test_the_reviewer_looks_only_read_only(tmp_path: Path) -> None:
    """r_tool: the reviewer's own command runs in the read-only sandbox: it cannot write."""
    from shellgate.answer.reviewer import read_only_look
    from shellgate.exec.probe import probe_sandbox

    if not probe_sandbox().ok:
        pytest.skip("no working sandbox here")
    script = [{"tool_calls": [{"name": "exec_command", "arguments": {
        "cmd": "touch reviewer_wrote.txt; echo rc=$?"}}]},
        {"json": {"outcome": "allow", "rationale": "checked"}}]  # fmt: skip
    answers, s, _ = review(tmp_path, script, [Entry("user", "x")], [esc_request(tmp_path)],
                           read_only=read_only_look)  # fmt: skip
    assert answers[0].answer.decision is ReviewDecision.APPROVED
    assert not (tmp_path / "reviewer_wrote.txt").exists()
    outputs = [i for i in s.requests()[1]["body"]["input"] if i.get("type") ==
               "function_call_output"]  # fmt: skip
    assert "rc=1" in outputs[0]["output"]


def test_a_blocked_host_is_reviewed_as_network_access(tmp_path: Path) -> None:
    q = ApprovalRequest("q", RequestKind.NETWORK, ("/bin/bash", "-lc", "curl example.com"),
                        str(tmp_path / "ws"), "network access to example.com was blocked", (),
                        host="example.com")  # fmt: skip
    answers, s, _ = review(tmp_path, [{"json": {"outcome": "allow"}}], [Entry("user", "x")], [q])
    assert answers[0].answer.decision is ReviewDecision.APPROVED
    parts = [c["text"] for c in s.requests()[0]["body"]["input"][3]["content"]]
    assert json.loads(parts[-2]) == {"host": "example.com", "target": "example.com",
                                     "tool": "network_access"}


# Codex's routing (spec auto-review.md §3), through the orchestrator: (policy, rules, command,
# who is asked, does it run)
ROUTES = [
    ("on-request", "prompt", "touch made", "reviewer", True),  # rule_prompt: reviewed
    ("untrusted", "", "touch made", "person", True),  # as_untrusted: the person, not reviewed
    ("never", "prompt", "touch made", "nobody", False),  # never_rule_prompt: refused
    ("on-request", "forbidden", "touch made", "nobody", False),  # rule_forbidden: never reviewed
    ("on-request", "", "ls", "nobody", True),  # nothing to ask
]  # fmt: skip


@pytest.mark.parametrize("policy,rule,command,asked,ran", ROUTES)
def test_routing_as_codex_routes(tmp_path: Path, policy: str, rule: str, command: str,
                                 asked: str, ran: bool) -> None:
    from shellgate.approval.answerers import AnswerStage, reviews
    from shellgate.approval.context import ApprovalPolicy, ExecContext, SandboxMode
    from shellgate.approval.question import AutomaticApprover
    from shellgate.exec.orchestrator import Orchestrator
    from shellgate.exec.results import ExecRequest
    from shellgate.rules.loader import load_policy
    from shellgate.rules.policy import Policy

    rules = tmp_path / "r.rules"
    rules.write_text(f'prefix_rule(pattern=["touch"], decision="{rule}")\n' if rule else "")
    ws = tmp_path / "ws"
    ws.mkdir()
    approval = ApprovalPolicy.parse(policy)
    person = AutomaticApprover(default=ReviewDecision.APPROVED)
    with standin(tmp_path / "standin", [{"json": {"outcome": "allow"}}]) as s:
        r = reviewer(s.base_url, [Entry("user", "do it")])
        stage = AnswerStage(person, (r,) if reviews(approval) else ())
        orch = Orchestrator(load_policy([str(rules)]) if rule else Policy(), person,
                            ExecContext(approval, SandboxMode.DANGER_FULL_ACCESS),
                            codex_home=str(tmp_path / "home"), deny_read=(),
                            answerers=stage)  # fmt: skip
        result = asyncio.run(orch.run(ExecRequest(("bash", "-lc", command), str(ws))))
        sent = s.requests()
    who = "reviewer" if sent else "person" if person.asked else "nobody"
    assert who == asked, (result, person.asked)
    assert (result.status.value == "completed") is ran, result
    if asked == "reviewer":
        assert result.answered_by is AnsweredBy.REVIEWER and not person.asked
