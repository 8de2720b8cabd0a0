"""The official openai SDK (a test dependency only) parses every shape the stand-in sends:
proof that the stand-in speaks the real protocols, so tests against it mean something."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from shellgate.agent.standin import StandIn

TOOL_CHAT = [{"type": "function", "function": {
    "name": "shell_command", "parameters": {"type": "object",
                                            "properties": {"command": {"type": "string"}}}}}]
TOOL_RESP = [{"type": "function", "name": "shell_command", "parameters": {
    "type": "object", "properties": {"command": {"type": "string"}}}}]
TWO_CALLS = {"text": "Listing.", "tool_calls": [
    {"name": "shell_command", "arguments": {"command": "ls a"}},
    {"name": "shell_command", "arguments": {"command": "ls b"}}]}


@pytest.fixture
def sdk() -> Iterator[tuple[openai.OpenAI, StandIn]]:
    standin = StandIn([])
    url = standin.start()
    yield openai.OpenAI(base_url=url, api_key="unused", max_retries=0), standin
    standin.stop()


def test_chat_stream_helper(sdk) -> None:
    client, standin = sdk
    standin.script[:] = [TWO_CALLS]
    with client.chat.completions.stream(model="stand-in", tools=TOOL_CHAT,
                                        messages=[{"role": "user", "content": "x"}]) as s:
        for _ in s:
            pass
        final = s.get_final_completion()
    choice = final.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content == "Listing."
    calls = [(c.function.name, json.loads(c.function.arguments))
             for c in choice.message.tool_calls or []]
    assert calls == [("shell_command", {"command": "ls a"}),
                     ("shell_command", {"command": "ls b"})]


def test_chat_create(sdk) -> None:
    client, standin = sdk
    standin.script[:] = [{"text": "hello"}]
    out = client.chat.completions.create(model="stand-in",
                                         messages=[{"role": "user", "content": "x"}])
    assert out.choices[0].message.content == "hello" and out.usage is not None


def test_responses_stream_typed_events(sdk) -> None:
    client, standin = sdk
    standin.script[:] = [TWO_CALLS]
    with client.responses.stream(model="stand-in", input="x", tools=TOOL_RESP) as s:
        kinds = [e.type for e in s]
        final = s.get_final_response()
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert "response.function_call_arguments.delta" in kinds
    assert "response.output_text.delta" in kinds
    assert final.output_text == "Listing."
    calls = [json.loads(o.arguments) for o in final.output if o.type == "function_call"]
    assert calls == [{"command": "ls a"}, {"command": "ls b"}]


def test_responses_create(sdk) -> None:
    client, standin = sdk
    standin.script[:] = [{"text": "plain answer"}]
    assert client.responses.create(model="stand-in", input="x").output_text == "plain answer"


def test_errors_surface_as_typed_sdk_errors(sdk) -> None:
    client, standin = sdk
    standin.script[:] = [{"status": 429, "body": "slow down", "retry_after": 2},
                         {"status": 401, "body": "bad key"}]
    with pytest.raises(openai.RateLimitError) as rate:
        client.chat.completions.create(model="stand-in", messages=[{"role": "user",
                                                                     "content": "x"}])
    assert rate.value.response.headers["retry-after"] == "2"
    with pytest.raises(openai.AuthenticationError):
        client.responses.create(model="stand-in", input="x")


def test_models_list(sdk) -> None:
    client, _ = sdk
    assert [m.id for m in client.models.list()] == ["stand-in"]


def test_runs_as_a_program_on_loopback_only(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"text": "from the program"}]))
    port_file = tmp_path / "port"
    log = tmp_path / "log.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "shellgate.agent.standin", str(script),
                             "--log", str(log), "--port-file", str(port_file)],
                            stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        while not (port_file.exists() and port_file.read_text()) and time.monotonic() < deadline:
            time.sleep(0.02)
        port = int(port_file.read_text())
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="sk-standin-secret",
                               max_retries=0)
        answer = client.chat.completions.create(model="m", messages=[{"role": "user",
                                                                       "content": "q"}])
        assert answer.choices[0].message.content == "from the program"
        listening = Path("/proc/net/tcp").read_text().splitlines()[1:]
        local = [line.split()[1] for line in listening if line.split()[3] == "0A"]
        assert f"0100007F:{port:04X}" in local  # bound to 127.0.0.1
        assert not any(addr.endswith(f":{port:04X}") and not addr.startswith("0100007F")
                       for addr in local)
        logged = [json.loads(line) for line in log.read_text().splitlines()]
        assert logged[0]["body"]["messages"][0]["content"] == "q"
        assert logged[0]["auth_scheme"] == "Bearer" and "authorization" in logged[0]["headers"]
        assert "sk-standin-secret" not in log.read_text()  # a key never lands in a log
    finally:
        proc.terminate()
        proc.wait(5)


def test_bad_script_is_a_clear_error(tmp_path: Path) -> None:
    script = tmp_path / "bad.json"
    script.write_text('[{"text": "a"},\n {"text": }]')
    proc = subprocess.run([sys.executable, "-m", "shellgate.agent.standin", str(script)],
                          capture_output=True, text=True, timeout=10)
    assert proc.returncode == 2
    assert f"{script}:2:" in proc.stderr and "invalid JSON" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_auto_tool_follows_what_the_client_offers() -> None:
    from shellgate.agent.standin import resolve_auto

    step = {"tool": "<auto>", "command": "ls", "extra": {"justification": "why"}}
    for offered, args in [("shell_command", {"command": "ls"}), ("exec_command", {"cmd": "ls"}),
                          ("shell", {"command": ["bash", "-lc", "ls"]})]:
        body = {"tools": [{"type": "function", "name": "other"},
                          {"type": "function", "function": {"name": offered}}]}
        call = resolve_auto(step, body)["tool_calls"][0]
        assert call == {"name": offered, "arguments": {**args, "justification": "why"}}
    assert "no shell tool" in resolve_auto(step, {"tools": []})["text"]
