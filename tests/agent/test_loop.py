"""The loop against the stand-in over real HTTP on 127.0.0.1 (both wire APIs, streamed and not).

The command runner here is scripted: these tests are about the loop, the protocols and what the
model is told; test_e2e.py runs the same loop through the real orchestrator and sandbox.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from agent_fakes import ScriptedRunner

from shellgate.agent.config import WireApi
from shellgate.agent.loop import ABORTED_BY_USER, REJECTED_BY_USER, TURN_ABORTED, TurnStatus
from shellgate.agent.runner import CommandResult, Outcome

MODES = [(WireApi.CHAT, True), (WireApi.CHAT, False), (WireApi.RESPONSES, True),
         (WireApi.RESPONSES, False)]


def call(command: str, **extra: object) -> dict:
    return {"name": "shell_command", "arguments": {"command": command, **extra}}


def tool_outputs(body: dict) -> list[str]:
    """What the model was told, from the request the stand-in received."""
    if "messages" in body:
        return [m["content"] for m in body["messages"] if m["role"] == "tool"]
    return [i["output"] for i in body["input"] if i.get("type") == "function_call_output"]


def user_texts(body: dict) -> list[str]:
    if "messages" in body:
        return [m["content"] for m in body["messages"] if m["role"] == "user"]
    return [i["content"][0]["text"] for i in body["input"]
            if i.get("type") == "message" and i["role"] == "user"]


@pytest.mark.parametrize(("wire", "stream"), MODES)
async def test_parallel_calls_then_answer(harness, wire, stream) -> None:
    h = harness([{"text": "Looking.", "tool_calls": [call("ls a"), call("ls b", workdir="sub")]},
                 {"text": "Both listed."}], wire=wire, stream=stream)
    result = await h.session.run_turn("list a and b")
    assert result.status is TurnStatus.COMPLETED
    assert result.final_text == "Both listed." and result.model_calls == 2
    assert [r.command for r in h.runner.seen] == ["ls a", "ls b"]
    assert [r.workdir for r in h.runner.seen] == ["/tmp", "/tmp/sub"]
    second = h.standin.posts[1]
    outputs = tool_outputs(second)
    assert len(outputs) == 2
    assert outputs[0].startswith("Exit code: 0\nWall time: ") and "ran ls a" in outputs[0]
    assert second["stream"] is stream
    # The streamed text reassembles exactly, and items are in Codex's vocabulary.
    deltas = "".join(p["delta"] for m, p in h.events if m == "item/agentMessage/delta")
    assert deltas == "Looking.Both listed."
    assert [i["status"] for i in h.items("commandExecution")] == ["completed", "completed"]
    assert h.methods()[0] == "thread/started" and h.methods()[-1] == "turn/completed"


@pytest.mark.parametrize("quirk", ["index0", "no_index", "whole_args"])
async def test_local_server_quirks(harness, quirk) -> None:
    h = harness([{"tool_calls": [call("ls a"), call("ls b")], "quirk": quirk},
                 {"text": "ok"}])
    result = await h.session.run_turn("go")
    assert result.status is TurnStatus.COMPLETED
    assert [r.command for r in h.runner.seen] == ["ls a", "ls b"]
    sent = h.standin.posts[1]["messages"]
    ids = [c["id"] for c in sent[2]["tool_calls"]]
    assert len(set(ids)) == 2 and [m["tool_call_id"] for m in sent[3:5]] == ids


async def test_several_user_messages_keep_history(harness) -> None:
    h = harness([{"tool_calls": [call("pwd")]}, {"text": "in /tmp"}, {"text": "second answer"}])
    assert (await h.session.run_turn("where?")).final_text == "in /tmp"
    assert (await h.session.run_turn("and now?")).final_text == "second answer"
    roles = [m["role"] for m in h.standin.posts[2]["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]


@pytest.mark.parametrize(("wire", "stream"), MODES)
async def test_429_then_success_honours_retry_after(harness, wire, stream) -> None:
    h = harness([{"status": 429, "body": "slow down", "retry_after": "0.3"},
                 {"status": 503, "body": "warming up", "retry_after": "0"},
                 {"text": "made it"}], wire=wire, stream=stream)
    t0 = time.monotonic()
    result = await h.session.run_turn("hi")
    assert result.status is TurnStatus.COMPLETED and result.final_text == "made it"
    assert time.monotonic() - t0 >= 0.3
    retries = [p for m, p in h.events if m == "model/retry"]
    assert [r["attempt"] for r in retries] == [1, 2]
    assert retries[0]["delaySeconds"] == pytest.approx(0.3) and "slow down" in retries[0]["message"]
    assert len(h.standin.posts) == 3


async def test_retries_give_up_visibly(harness) -> None:
    h = harness([{"status": 500, "retry_after": 0}] * 3, max_retries=2)
    result = await h.session.run_turn("hi")
    assert result.status is TurnStatus.FAILED and "HTTP 500" in (result.message or "")
    assert len(h.standin.posts) == 3


@pytest.mark.parametrize("wire", [WireApi.CHAT, WireApi.RESPONSES])
async def test_stream_cut_short_is_retried_once(harness, wire) -> None:
    h = harness([{"text": "partial", "cut": True}, {"text": "whole answer"}], wire=wire)
    result = await h.session.run_turn("hi")
    assert result.status is TurnStatus.COMPLETED and result.final_text == "whole answer"
    h2 = harness([{"text": "partial", "cut": True}, {"text": "again", "cut": True}], wire=wire)
    result2 = await h2.session.run_turn("hi")
    assert result2.status is TurnStatus.FAILED and "stopped before" in (result2.message or "")


@pytest.mark.parametrize(("status", "needle"), [
    (400, "--enable-auto-tool-choice"), (401, "OPENAI_API_KEY"), (404, "--model-url")])
async def test_client_errors_end_the_task_with_advice(harness, status, needle) -> None:
    h = harness([{"status": status, "body": "nope"}] * 2)
    result = await h.session.run_turn("hi")
    assert result.status is TurnStatus.FAILED
    assert needle in (result.message or "") and "nope" in (result.message or "")
    # Never retried as such; a 400 to a streamed request is asked once more without streaming.
    assert [p["stream"] for p in h.standin.posts] == ([True, False] if status == 400 else [True])
    errors = [p for m, p in h.events if m == "error"]
    assert errors[0]["error"]["httpStatusCode"] == status


@pytest.mark.parametrize("wire", [WireApi.CHAT, WireApi.RESPONSES])
async def test_400_to_a_stream_falls_back_to_whole_answers(harness, wire) -> None:
    h = harness([{"status": 400, "body": "stream with tools unsupported"},
                 {"tool_calls": [call("ls")]}, {"text": "ok"}], wire=wire)
    result = await h.session.run_turn("hi")
    assert result.status is TurnStatus.COMPLETED and h.runner.seen[0].command == "ls"
    assert [p["stream"] for p in h.standin.posts] == [True, False, False]


@pytest.mark.parametrize("wire", [WireApi.CHAT, WireApi.RESPONSES])
async def test_cancel_mid_stream_closes_the_stream(harness, wire) -> None:
    h = harness([{"text": "never finished", "stall_ms": 5000}, {"text": "next turn"}], wire=wire)
    turn = asyncio.ensure_future(h.session.run_turn("wait"))
    while not h.standin.requests:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    t0 = time.monotonic()
    assert h.session.cancel()
    result = await turn
    elapsed = time.monotonic() - t0
    assert result.status is TurnStatus.INTERRUPTED and elapsed < 2.0  # the stall is 5 s
    deadline = time.monotonic() + 1
    while not h.standin.events and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert h.standin.events[0]["event"] == "client_disconnected"  # the server saw it close
    # The next message carries Codex's interruption marker before the user's words.
    await h.session.run_turn("do it differently")
    assert user_texts(h.standin.posts[1])[-2:] == [TURN_ABORTED, "do it differently"]


async def test_cancel_while_a_command_runs(harness) -> None:
    h = harness([{"tool_calls": [call("sleep 100")]}], runner=ScriptedRunner(hang=True))
    turn = asyncio.ensure_future(h.session.run_turn("wait"))
    while not h.runner.seen:
        await asyncio.sleep(0.01)
    h.session.cancel()
    result = await turn
    assert result.status is TurnStatus.INTERRUPTED
    # The unanswered call is answered "aborted by user" so that the history stays valid.
    assert h.session.history[-1].output == ABORTED_BY_USER  # type: ignore[union-attr]
    assert h.items("commandExecution")[0]["status"] == "failed"


async def test_turn_limit_is_visible(harness) -> None:
    h = harness([{"tool_calls": [call(f"echo {n}")]} for n in range(5)], max_turns=3)
    result = await h.session.run_turn("loop forever")
    assert result.status is TurnStatus.MAX_TURNS and result.model_calls == 3
    assert "turn limit of 3" in (result.message or "")
    done = next(p for m, p in h.events if m == "turn/completed")["turn"]
    assert done["status"] == "failed" and done["shellgateStatus"] == "max_turns"


async def test_wall_clock_budget(harness) -> None:
    h = harness([{"text": "slow", "delay_ms": 5000}], budget_s=0.3)
    t0 = time.monotonic()
    result = await h.session.run_turn("hi")
    assert result.status is TurnStatus.BUDGET and time.monotonic() - t0 < 3.0
    assert "budget of 0.3 s" in (result.message or "")


@pytest.mark.parametrize(("bad", "needle"), [
    ({"name": "shell_command", "raw_arguments": "{\"command\": \"rm -rf /\""},
     "failed to parse function arguments"),
    ({"name": "run_anything", "arguments": {"command": "rm -rf /"}}, "unknown tool"),
    ({"name": "shell_command", "arguments": {"command": ["rm", "-rf", "/"]}},
     "`command` must be a non-empty string"),
    ({"name": "shell_command", "arguments": {"command": "ls", "prefix_rule": "ls"}},
     "`prefix_rule` must be a list"),
    ({"name": "shell_command", "arguments": {"command": "touch x", "workdir": "/"}},
     "`workdir` / is outside the workspace"),
    ({"name": "shell_command", "arguments": {"command": "touch x", "workdir": "../.."}},
     "is outside the workspace"),
])
async def test_invalid_calls_are_never_executed(harness, bad, needle) -> None:
    h = harness([{"tool_calls": [bad]}, {"text": "sorry"}])
    result = await h.session.run_turn("go")
    assert result.status is TurnStatus.COMPLETED
    assert h.runner.seen == []
    told = tool_outputs(h.standin.posts[1])
    assert (len(told) == 1 and needle in told[0] and "nothing was run" in told[0]) or \
        needle in told[0]
    assert h.items("invalidToolCall")[0]["error"] == told[0]


async def test_workdir_symlink_out_of_the_workspace_is_refused(harness, tmp_path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "up").symlink_to("/")
    h = harness([{"tool_calls": [call("touch x", workdir="up"), call("ls", workdir=".")]},
                 {"text": "ok"}], cwd=str(tmp_path / "ws"))
    await h.session.run_turn("go")
    assert [r.command for r in h.runner.seen] == ["ls"]
    assert "outside the workspace" in tool_outputs(h.standin.posts[1])[0]


async def test_three_invalid_calls_in_a_row_end_the_turn(harness) -> None:
    bad = {"name": "shell_command", "raw_arguments": "not json"}
    h = harness([{"tool_calls": [bad]}] * 5)
    result = await h.session.run_turn("go")
    assert result.status is TurnStatus.FAILED and h.runner.seen == []
    assert len(h.standin.posts) == 3


async def test_what_the_model_is_told(harness) -> None:
    runner = ScriptedRunner(results={
        "rm -rf build": CommandResult(Outcome.FORBIDDEN,
                                      reason="`rm -rf build` rejected: use `trash` instead"),
        "git push": CommandResult(Outcome.DECLINED, decision="decline"),
        "false": CommandResult(Outcome.RAN, 1, "", 0.02),
    })
    h = harness([{"tool_calls": [call("rm -rf build"), call("git push"), call("false")]},
                 {"text": "understood"}], runner=runner)
    await h.session.run_turn("clean")
    told = tool_outputs(h.standin.posts[1])
    assert told[0] == "`rm -rf build` rejected: use `trash` instead"
    assert told[1] == REJECTED_BY_USER
    assert told[2].startswith("Exit code: 1\n")
    decisions = [p["decision"] for m, p in h.events if m == "item/commandExecution/approval"]
    assert decisions == ["decline"]


async def test_abort_ends_the_turn_and_marks_the_next(harness) -> None:
    runner = ScriptedRunner(results={"git push": CommandResult(Outcome.ABORTED,
                                                               decision="cancel")})
    h = harness([{"tool_calls": [call("git push"), call("ls")]}, {"text": "ok, no push"}],
                runner=runner)
    result = await h.session.run_turn("ship it")
    assert result.status is TurnStatus.ABORTED and len(h.standin.posts) == 1
    assert [r.command for r in runner.seen] == ["git push"]  # the rest of the turn never ran
    await h.session.run_turn("don't push, just list")
    body = h.standin.posts[1]
    assert tool_outputs(body) == [ABORTED_BY_USER, ABORTED_BY_USER]
    assert user_texts(body)[-2:] == [TURN_ABORTED, "don't push, just list"]


async def test_long_output_keeps_head_and_tail(harness) -> None:
    big = "".join(f"line {n}\n" for n in range(20000))
    runner = ScriptedRunner(results={"seq": CommandResult(Outcome.RAN, 0, big, 0.5)})
    h = harness([{"tool_calls": [call("seq")]}, {"text": "ok"}], runner=runner,
                max_output_bytes=2000)
    await h.session.run_turn("count")
    told = tool_outputs(h.standin.posts[1])[0]
    assert "line 0\n" in told and "line 19999\n" in told and "bytes truncated" in told
    assert len(told) < 2300


async def test_request_shape_and_no_key_anywhere(harness, monkeypatch) -> None:
    monkeypatch.setenv("SG_TEST_KEY", "sk-secret-123")
    h = harness([{"text": "hi"}], api_key_env="SG_TEST_KEY")
    await h.session.run_turn("hello")
    request = h.standin.requests[0]
    assert request["auth_scheme"] == "Bearer"
    body = request["body"]
    assert body["model"] == "stand-in" and body["tool_choice"] == "auto"
    assert [t["function"]["name"] for t in body["tools"]] == ["shell_command"]
    params = body["tools"][0]["function"]["parameters"]
    assert {"command", "workdir", "justification", "prefix_rule"} <= set(params["properties"])
    assert "sk-secret-123" not in json.dumps(h.events)


async def test_responses_request_is_stateless(harness) -> None:
    h = harness([{"tool_calls": [call("ls")]}, {"text": "done"}], wire=WireApi.RESPONSES)
    await h.session.run_turn("list")
    body = h.standin.posts[1]
    assert body["store"] is False and "previous_response_id" not in body
    kinds = [i["type"] for i in body["input"]]
    assert kinds == ["message", "function_call", "function_call_output"]
    assert body["input"][1]["call_id"] == body["input"][2]["call_id"]
