"""`shellgate run --approve-for-me` and `shellgate agent --approve-for-me`: a question that
would wait for a person goes to the reviewer (the recipe's stand-in on 127.0.0.1), and the
person is never asked (stdin is closed: a question to the person would be a refusal saying
so). A broken or slow reviewer never lets a command through."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from reviewenv import standin

PROMPT_TOUCH = 'prefix_rule(pattern=["touch"], decision="prompt", justification="look first")\n'
ALLOW = {"json": {"risk_level": "low", "user_authorization": "high", "outcome": "allow",
                  "rationale": "benign"}}  # fmt: skip
DENY = {"json": {"risk_level": "high", "user_authorization": "low", "outcome": "deny",
                 "rationale": "not asked for"}}  # fmt: skip


def home(tmp_path: Path, port: int, extra: str = "") -> tuple[Path, Path]:
    codex_home, ws = tmp_path / "codex-home", tmp_path / "ws"
    (codex_home / "rules").mkdir(parents=True, exist_ok=True)
    ws.mkdir(exist_ok=True)
    (codex_home / "rules" / "default.rules").write_text(PROMPT_TOUCH)
    (codex_home / "config.toml").write_text(
        'model = "stand-in"\nmodel_provider = "standin"\n'
        f'[model_providers.standin]\nname = "standin"\nbase_url = "http://127.0.0.1:{port}/v1"\n'
        f'wire_api = "responses"\n{extra}')
    return codex_home, ws


def shellgate(codex_home: Path, ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "SHELLGATE_BWRAP")}
    env.update(HOME=str(ws.parent), CODEX_HOME=str(codex_home))
    return subprocess.run([sys.executable, "-m", "shellgate", *args], cwd=ws, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def run(codex_home: Path, ws: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return shellgate(codex_home, ws, "run", "--sandbox", "danger-full-access", *flags,
                     "--approve-for-me", "--", "touch", "made")  # fmt: skip


@pytest.mark.parametrize("script,ran,told", [
    ([ALLOW], True, None),
    ([DENY], False, "This action was rejected due to unacceptable risk.\nReason: not asked for"),
    ([{"status": 500}], False, "Automatic approval review failed: We\u2019re currently"),
    ([{"drop": True}], False, "Automatic approval review failed: stream disconnected"),
    ([{"text": "garbage"}], False, "guardian assessment was not valid JSON"),
])  # fmt: skip
def test_run_asks_the_reviewer_not_the_person(tmp_path: Path, script: list[dict[str, Any]],
                                              ran: bool, told: str | None) -> None:
    with standin(tmp_path / "standin", script) as s:
        codex_home, ws = home(tmp_path, s.port)
        done = run(codex_home, ws)
        sent = s.requests()
    assert (ws / "made").exists() is ran, done.stderr
    assert done.returncode == (0 if ran else 122), done.stderr
    assert "standard input" not in done.stderr  # the person was never asked
    assert sent and sent[0]["body"]["model"] == "stand-in"
    if told:
        assert told in done.stderr


def test_a_slow_reviewer_is_a_refusal(tmp_path: Path) -> None:
    with standin(tmp_path / "standin", [{"delay_ms": 5000, **ALLOW}]) as s:
        codex_home, ws = home(tmp_path, s.port, "[auto_review]\ntimeout_ms = 1000\n")
        done = run(codex_home, ws)
    assert done.returncode == 122 and not (ws / "made").exists()
    assert "did not finish before its deadline" in done.stderr


def test_the_admin_may_refuse_the_reviewer(tmp_path: Path) -> None:
    """allowed_approvals_reviewers = ["user"]: Codex falls back to the person, with its
    warning; with stdin closed that question is a refusal."""
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "requirements.toml").write_text('allowed_approvals_reviewers = ["user"]\n')
    from shellgate.answer.review_config import review_config
    from shellgate.codexconfig.requirements import load_requirements

    found = review_config((), load_requirements(etc), approve_for_me=True)
    assert found.reviewer == "user"
    assert found.warning == (
        "Configured value for `approvals_reviewer` is disallowed by requirements; falling back "
        "to required value User. Details: invalid value for `approvals_reviewer`: `AutoReview` "
        f"is not in the allowed set [User] (set by {etc}/requirements.toml)")


def test_an_unknown_reviewer_stops_as_codex_stops(tmp_path: Path) -> None:
    with standin(tmp_path / "standin", [ALLOW]) as s:
        codex_home, ws = home(tmp_path, s.port, 'approvals_reviewer = "robot"\n')
        # a top-level key after a table belongs to it: write it first
        text = (codex_home / "config.toml").read_text()
        (codex_home / "config.toml").write_text('approvals_reviewer = "robot"\n' + text.replace(
            'approvals_reviewer = "robot"\n', ""))
        done = shellgate(codex_home, ws, "run", "--", "touch", "made")
    assert done.returncode == 120
    assert ("unknown variant `robot`, expected one of `user`, `auto_review`, "
            "`guardian_subagent`") in done.stderr
    assert not (ws / "made").exists()


def test_the_agent_asks_the_reviewer_on_its_own_model(tmp_path: Path) -> None:
    """The embedded agent's command that needs approval: the reviewer (same model server,
    guardian-marked) answers; the reviewer reads the agent's conversation."""
    main = [{"tool": "<auto>", "command": "touch made"}, {"text": "done"}]
    with standin(tmp_path / "standin", [ALLOW], main=main) as s:
        codex_home, ws = home(tmp_path, s.port)
        done = shellgate(codex_home, ws, "agent", "--model-url", s.base_url, "--model",
                         "stand-in", "--wire-api", "responses", "--sandbox",
                         "danger-full-access", "--approve-for-me", "--transcript",
                         str(tmp_path / "t.jsonl"), "please make the file")  # fmt: skip
        reviews = s.requests()
    assert (ws / "made").exists(), done.stderr
    assert len(reviews) == 1
    texts = [c["text"] for c in reviews[0]["body"]["input"][3]["content"]]
    assert any("user: please make the file" in t for t in texts), texts
    assert any('"touch", "made"' in t or "touch made" in t for t in texts)
    assert json.loads(texts[-2])["command"][-1] == "touch made"


def test_review_prints_the_assessment_and_runs_nothing(tmp_path: Path) -> None:
    policy = tmp_path / "policy.txt"
    policy.write_text("TRY-THIS-POLICY: deny every touch.\n")
    with standin(tmp_path / "standin", [DENY]) as s:
        codex_home, ws = home(tmp_path, s.port)
        done = shellgate(codex_home, ws, "review", "--json", "--policy", str(policy), "--",
                         "touch", "made")  # fmt: skip
        sent = s.requests()
    assert done.returncode == 1, done.stderr
    out = json.loads(done.stdout)
    assert (out["outcome"], out["risk_level"], out["user_authorization"], out["rationale"]) == (
        "deny", "high", "low", "not asked for")
    assert not (ws / "made").exists()
    policy_sent = sent[0]["body"]["input"][0]["content"][0]["text"]
    assert "# Security Policy\nTRY-THIS-POLICY: deny every touch.\n\n\n\n# Investigation" in \
        policy_sent


def hook(codex_home: Path, ws: Path, agent: str, command: str, *flags: str,
         transcript: Path | None = None,
         cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    event = {"hook_event_name": "BeforeTool" if agent == "gemini" else "PreToolUse",
             "tool_name": "run_shell_command" if agent == "gemini" else "Bash",
             "cwd": str(ws), "session_id": "s1", "tool_input": {"command": command},
             "transcript_path": str(transcript) if transcript else None}
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG")}
    env.update(HOME=str(ws.parent), CODEX_HOME=str(codex_home),
               XDG_RUNTIME_DIR=str(ws.parent), SHELLGATE_HOOK_FALLBACK="ask",
               XDG_CACHE_HOME=str(cache or ws.parent / "cache"))
    return subprocess.run([sys.executable, "-m", "shellgate", "hook", agent, *flags],
                          input=json.dumps(event), cwd=ws, env=env, capture_output=True,
                          text=True, timeout=120)  # fmt: skip


def verdict(agent: str, done: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    out = json.loads(done.stdout)
    if agent == "gemini":
        return out["decision"], out.get("reason", "")
    spec = out["hookSpecificOutput"]
    return spec["permissionDecision"], spec["permissionDecisionReason"]


ALLOWED = ([ALLOW], "allow", "approved by Codex's auto-reviewer")
DENIED = ([DENY], "deny", "rejected due to unacceptable risk.\nReason: not asked for")


@pytest.mark.parametrize("agent,script,want,told", [
    ("claude-code", *ALLOWED), ("gemini", *ALLOWED), ("copilot", *ALLOWED),
    ("claude-code", *DENIED), ("gemini", *DENIED),
    ("claude-code", [{"status": 500}], "deny", "Automatic approval review failed"),
    ("copilot", [{"text": "garbage"}], "deny", "guardian assessment was not valid JSON"),
])  # fmt: skip
def test_other_agents_questions_go_to_the_reviewer(tmp_path: Path, agent: str,
                                                   script: list[dict[str, Any]], want: str,
                                                   told: str) -> None:
    """A command that would wait for a person (no rule allows `touch`, no sandbox) is answered
    by the reviewer; a broken one refuses it. The reviewer reads the agent's own transcript."""
    transcript = tmp_path / "claude.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {
        "role": "user", "content": "please create the file made"}}) + "\n")
    with standin(tmp_path / "standin", script) as s:
        codex_home, ws = home(tmp_path, s.port)
        (codex_home / "rules" / "default.rules").write_text("")
        done = hook(codex_home, ws, agent, "touch made", "--approve-for-me",
                    transcript=transcript)
        sent = s.requests()
    decision, reason = verdict(agent, done)
    assert decision == want, done
    assert told in reason
    texts = [c["text"] for c in sent[0]["body"]["input"][3]["content"]]
    assert any("user: please create the file made" in t for t in texts), texts


def test_without_the_reviewer_the_person_is_asked(tmp_path: Path) -> None:
    with standin(tmp_path / "standin", [ALLOW]) as s:
        codex_home, ws = home(tmp_path, s.port)
        (codex_home / "rules" / "default.rules").write_text("")
        done = hook(codex_home, ws, "claude-code", "touch made")
        assert s.requests() == []
    assert verdict("claude-code", done)[0] == "ask"  # no editor: Claude Code's own prompt


def test_the_mcp_shell_tool_asks_the_reviewer(tmp_path: Path) -> None:
    """approvals_reviewer = "auto_review" in Codex's config: the MCP `shell` tool's question
    goes to the reviewer, not to the client's elicitation (the approver here would refuse)."""
    from shellgate.approval.context import ApprovalPolicy, SandboxMode
    from shellgate.approval.question import AutomaticApprover
    from shellgate.mcp.call import parse_call
    from shellgate.mcp.shell import McpSession

    with standin(tmp_path / "standin", [ALLOW, DENY]) as s:
        codex_home, ws = home(tmp_path, s.port)
        text = (codex_home / "config.toml").read_text()
        (codex_home / "config.toml").write_text('approvals_reviewer = "auto_review"\n' + text)
        session = McpSession(str(ws), codex_home, ApprovalPolicy.parse("on-request"),
                             SandboxMode.DANGER_FULL_ACCESS)  # fmt: skip
        person = AutomaticApprover()
        first = asyncio.run(session.run(parse_call(str(ws), "touch made"), person))
        second = asyncio.run(session.run(parse_call(str(ws), "touch again"), person))
        sent = s.requests()
    assert first.status.value == "completed" and (ws / "made").exists()
    assert first.answered_by.value == "reviewer"
    assert second.status.value == "denied" and "Reason: not asked for" in (second.reason or "")
    assert person.asked == []
    assert len(sent) == 2
    assert len(sent[1]["body"]["input"]) == 7  # one conversation: the second review continues it


def test_the_agent_reads_a_hooks_additional_context(tmp_path: Path) -> None:
    """A PostToolUse hook's additionalContext reaches the agent's next model request as a
    developer message, after the tool's result (spec §4.3); a PreToolUse rewrite is what ran."""
    from hookenv import Setup, pre

    s = Setup(tmp_path / "hooks", {
        "PostToolUse": {"kind": "json", "stdout": {"hookSpecificOutput": {
            "hookEventName": "PostToolUse", "additionalContext": "X-CONTEXT from the hook"}}},
        "PreToolUse": pre("allow", None, updatedInput={"command": "echo rewritten"})})
    s.user_toml([("PreToolUse", "Bash", "h1", None), ("PostToolUse", "Bash", "h1", None)])
    main = [{"tool": "<auto>", "command": "echo original"}, {"text": "done"}]
    with standin(tmp_path / "standin", [], main=main) as st:
        done = shellgate(s.home, s.ws, "agent", "--model-url", st.base_url, "--model",
                         "stand-in", "--wire-api", "responses", "--sandbox",
                         "danger-full-access", "--transcript", str(tmp_path / "t.jsonl"),
                         "say hi")  # fmt: skip
        last = st.requests("main")[-1]["body"]["input"]
    assert done.returncode == 0, done.stderr
    out = next(i for i in last if i.get("type") == "function_call_output")
    assert "rewritten" in out["output"] and "original" not in out["output"]
    assert last[-1] == {"type": "message", "role": "developer",
                        "content": [{"type": "input_text", "text": "X-CONTEXT from the hook"}]}


def test_one_reviewer_conversation_per_agent_session(tmp_path: Path) -> None:
    """Hook calls of one Claude Code session continue one reviewer conversation (kept between
    the hook's processes), and three denials in a turn trip Codex's circuit breaker; the
    user's next message starts a new turn."""
    transcript = tmp_path / "claude.jsonl"

    def said(text: str) -> None:
        with transcript.open("a") as f:
            f.write(json.dumps({"message": {"role": "user", "content": text}}) + "\n")

    said("make the files")
    with standin(tmp_path / "standin", [DENY]) as s:
        codex_home, ws = home(tmp_path, s.port)
        env_cache = tmp_path / "cache"
        reasons = []
        for n in range(4):
            if n == 3:
                said("try once more")
            done = hook(codex_home, ws, "claude-code", f"touch f{n}", "--approve-for-me",
                        transcript=transcript, cache=env_cache)  # fmt: skip
            reasons.append(verdict("claude-code", done)[1])
        sent = s.requests()
    # one conversation: each later review adds the last answer and the request (the note on
    # prior reviews once, as Codex sends it: test_oracle_live.py)
    assert [len(r["body"]["input"]) for r in sent] == [4, 7, 9, 11]
    assert all("Reason: not asked for" in r for r in reasons[:2])
    assert reasons[2].startswith("Automatic approval review rejected too many approval "
                                 "requests for this turn (3 consecutive")
    assert "Reason: not asked for" in reasons[3]  # a new turn
    delta = sent[3]["body"]["input"][-1]["content"]
    assert any("user: try once more" in part["text"] for part in delta)
    kept = list((env_cache / "shellgate" / "reviews").iterdir())
    assert len(kept) == 1 and oct(kept[0].stat().st_mode & 0o777) == "0o600"
