"""ShellGate's OpenTelemetry export, situation by situation, through the real flow (the
orchestrator with a real policy from a rules file, real commands, the real sandbox), the SDK's
OTLP exporters (JSON and protobuf) and a real OTLP/HTTP receiver on 127.0.0.1, compared with
what the real Codex exported in the same situations (codex_shapes.json, from Codex 0.171.0 runs:
test_codex_oracle.py checks it against the live binary): the same event names, attribute names,
value spellings and types, and the same events for each situation."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from receiver import Receiver
from shapes import shape

from shellgate.approval.context import ApprovalPolicy, ExecContext, SandboxMode
from shellgate.approval.question import ApprovalRequest, AutomaticApprover
from shellgate.broker.protocol import AgentAnswer
from shellgate.codexconfig.layers import LayerKind, RulesLayer, load_layers
from shellgate.exec.orchestrator import Orchestrator
from shellgate.exec.probe import SandboxProbe, probe_sandbox
from shellgate.exec.results import ExecRequest
from shellgate.record.build import from_hook
from shellgate.record.drain import drain_now
from shellgate.record.sink import record

CODEX = json.loads((Path(__file__).parent / "codex_shapes.json").read_text())
RULES = """\
prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm here")
prefix_rule(pattern=["touch", "asked"], decision="prompt", justification="asked needs a look")
prefix_rule(pattern=["git", "status"], decision="allow")
"""


def otel_config(codex_home: Path, receiver: Receiver, protocol: str) -> None:
    codex_home.mkdir(parents=True, exist_ok=True)
    lines = ["[otel]", 'environment = "ci"']
    for key, signal in (("exporter", "logs"), ("metrics_exporter", "metrics"),
                        ("trace_exporter", "traces")):  # fmt: skip
        lines.append(f'{key} = {{ otlp-http = {{ endpoint = "{receiver.url(signal)}", '
                     f'protocol = "{protocol}" }} }}')  # fmt: skip
    (codex_home / "config.toml").write_text("\n".join(lines) + "\n")


def deliver(timeout: float = 30) -> None:
    """Until the spool is empty (a detached sender may hold it a moment)."""
    deadline = time.monotonic() + timeout
    while True:
        report = drain_now()
        if report.pending == 0 and not report.busy:
            return
        assert time.monotonic() < deadline, str(report)
        time.sleep(0.2)


@pytest.fixture(scope="module")
def probe() -> SandboxProbe:
    p = probe_sandbox()
    if not p.ok:
        pytest.skip(f"no working sandbox: {p.reason}")
    return p


@pytest.fixture(params=["json", "binary"])
def collector(request: pytest.FixtureRequest, tmp_path: Path,
              monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:  # fmt: skip
    receiver = Receiver()
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    otel_config(tmp_path / "codex", receiver, request.param)
    receiver.protocol = request.param  # type: ignore[attr-defined]
    yield receiver
    receiver.close()


def flow(tmp_path: Path, probe: SandboxProbe, policy_name: str,
         answer: Callable[[ApprovalRequest], str] | None = None,
         mode: SandboxMode = SandboxMode.DANGER_FULL_ACCESS) -> Orchestrator:  # fmt: skip
    rules = tmp_path / "default.rules"
    rules.write_text(RULES)
    layer = RulesLayer(LayerKind.USER, str(tmp_path), (str(rules),))  # spans and the layer
    return Orchestrator(load_layers([layer]), AutomaticApprover(script=answer),
                        ExecContext(ApprovalPolicy.parse(policy_name), mode),
                        codex_home=str(tmp_path / "codex"), probe=probe,
                        originator="run")  # fmt: skip


def run(orch: Orchestrator, cwd: Path, *command: str) -> None:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(cwd)}
    asyncio.run(orch.run(ExecRequest(tuple(command), str(cwd), env=env)))


def same_as_codex(receiver: Receiver, scenario: str) -> list[dict[str, Any]]:
    deliver()
    rows = receiver.rows()
    ours = shape(rows)
    assert ours == CODEX[scenario], json.dumps({"shellgate": ours, "codex": CODEX[scenario]},
                                               indent=1)  # fmt: skip
    return rows


def ws(tmp_path: Path) -> Path:
    d = tmp_path / "ws"
    d.mkdir(exist_ok=True)
    return d


def test_allowed_by_a_rule(tmp_path: Path, probe: SandboxProbe, collector: Receiver) -> None:
    run(flow(tmp_path, probe, "never"), ws(tmp_path), "git", "status")
    rows = same_as_codex(collector, "o171-exec-allowed")
    decision = next(r for r in rows if r["name"] == "codex.tool_decision")
    a = decision["attrs"]
    # ShellGate's own, beside Codex's: the rule with its file and line, the answerer
    assert a["shellgate.rule.pattern"] == ("string", "git status")
    assert a["shellgate.rule.file"] == ("string", str(tmp_path / "default.rules"))
    assert a["shellgate.rule.line"] == ("int", 3)
    assert a["shellgate.rule.layer"] == ("string", "user")
    assert a["shellgate.answerer"] == ("string", "rules") and a["originator"] == ("string", "run")
    assert a["shellgate.sandbox"] == ("string", "none")
    resource = decision["resource"]
    assert resource["service.name"] == ("string", "shellgate")
    assert resource["env"] == ("string", "ci") and resource["service.version"][0] == "string"
    assert decision["scope"] == "codex_otel.log_only" and decision["severity"] == "INFO"
    result = next(r for r in rows if r["name"] == "codex.tool_result")
    assert json.loads(result["attrs"]["arguments"][1])["cmd"] == "git status"
    span = next(r for r in rows if r["signal"] == "span")
    assert span["name"] == "exec_command"
    events = json.dumps(span["events"])  # the trace is trace-safe: lengths, never the command
    assert "git status" not in events and "arguments_length" in events


def test_refused_by_a_rule_has_a_result_and_no_decision(
        tmp_path: Path, probe: SandboxProbe, collector: Receiver) -> None:  # fmt: skip
    run(flow(tmp_path, probe, "on-request"), ws(tmp_path), "rm", "-f", "victim")
    rows = same_as_codex(collector, "o171-exec-forbidden-rule")
    result = rows[0]["attrs"] if rows[0]["signal"] == "log" else {}
    assert "no rm here" in result["output"][1]
    assert result["shellgate.decision"] == ("string", "forbidden")


def test_asked_and_approved_by_the_person(
        tmp_path: Path, probe: SandboxProbe, collector: Receiver) -> None:  # fmt: skip
    run(flow(tmp_path, probe, "on-request", lambda q: "approved"), ws(tmp_path), "touch", "asked")
    rows = same_as_codex(collector, "o171-app-untrusted-accept")
    decision = next(r for r in rows if r["name"] == "codex.tool_decision")
    assert decision["attrs"]["shellgate.answerer"] == ("string", "person")
    metric = next(r for r in rows if r["signal"] == "metric")
    assert metric["scope"] == "codex" and metric["temporality"] == 1  # delta, as Codex's


def test_approved_for_the_session_then_not_asked_again(
        tmp_path: Path, probe: SandboxProbe, collector: Receiver) -> None:  # fmt: skip
    orch = flow(tmp_path, probe, "on-request", lambda q: "approved_for_session")
    run(orch, ws(tmp_path), "touch", "asked")
    run(orch, ws(tmp_path), "touch", "asked")
    same_as_codex(collector, "o171-app-untrusted-session")


def test_declined_by_the_person(tmp_path: Path, probe: SandboxProbe,
                                collector: Receiver) -> None:  # fmt: skip
    run(flow(tmp_path, probe, "on-request", lambda q: "denied"), ws(tmp_path), "touch", "asked")
    same_as_codex(collector, "o171-app-untrusted-decline")
    assert not (ws(tmp_path) / "asked").exists()


def test_declined_then_a_rule_added(tmp_path: Path, probe: SandboxProbe,
                                    collector: Receiver) -> None:  # fmt: skip
    answers = iter(["denied", "approved_execpolicy_amendment"])
    orch = flow(tmp_path, probe, "untrusted", lambda q: next(answers))
    run(orch, ws(tmp_path), "touch", "b.txt")  # no rule: Codex's amendment is offered
    run(orch, ws(tmp_path), "touch", "b.txt")
    assert "touch" in (tmp_path / "codex" / "rules" / "default.rules").read_text()
    same_as_codex(collector, "o171-app-amend")


def test_denied_by_the_sandbox(tmp_path: Path, probe: SandboxProbe, collector: Receiver) -> None:
    outside = Path("/var/tmp") / f"sg-otel-{os.getpid()}-{collector.protocol}"  # type: ignore[attr-defined]
    outside.mkdir(exist_ok=True)
    try:
        orch = flow(tmp_path, probe, "never", mode=SandboxMode.WORKSPACE_WRITE)
        run(orch, ws(tmp_path), "touch", str(outside / "x"))
        rows = same_as_codex(collector, "o171-exec-sandbox-denied")
    finally:
        outside.rmdir()
    outcome = next(r for r in rows if r["name"] == "codex.sandbox_outcome")
    assert outcome["attrs"]["shellgate.sandbox"] == ("string", "workspace-write")


def test_sandbox_denial_then_unsandboxed_retry(
        tmp_path: Path, probe: SandboxProbe, collector: Receiver) -> None:  # fmt: skip
    outside = Path("/var/tmp") / f"sg-otel-r-{os.getpid()}-{collector.protocol}"  # type: ignore[attr-defined]
    outside.mkdir(exist_ok=True)
    try:
        orch = flow(tmp_path, probe, "untrusted", lambda q: "approved",
                    mode=SandboxMode.WORKSPACE_WRITE)  # fmt: skip
        run(orch, ws(tmp_path), "touch", str(outside / "u"))
        assert (outside / "u").exists()
        rows = same_as_codex(collector, "o171-app-untrusted-sbxdeny-retry")
    finally:
        (outside / "u").unlink(missing_ok=True)
        outside.rmdir()
    outcome = next(r for r in rows if r["name"] == "codex.sandbox_outcome")["attrs"]
    assert outcome["initial_duration_ms"][0] == outcome["escalated_duration_ms"][0] == "int"


class _HookAnswer:
    """An answer from a hook as an answering stage (issue 25's PermissionRequest hooks): it
    says who gave it."""

    answerer, verdict, message, amendment_written = "hook", "allow", None, None

    def __init__(self, answer: str) -> None:
        self.answer = answer


class _Request:
    agent, session_id, cwd, command = "claude-code", "s1", "/w", "touch a.txt"


def test_approved_by_a_permission_hook(collector: Receiver) -> None:
    trail = {"answer": _HookAnswer("accept")}
    record(from_hook(_Request(), "allow", "a hook said yes", trail, time.monotonic(),
                     sandbox="none"))  # fmt: skip
    rows = same_as_codex(collector, "o171-app-perm-hook-allow")
    decision = next(r for r in rows if r["name"] == "codex.tool_decision")
    assert decision["attrs"]["shellgate.answerer"] == ("string", "hook")


def test_a_persons_no_with_words_to_a_hook_is_a_denial_with_the_words() -> None:
    """Deny… with a reason in the editor: Claude Code reads the words and its turn goes on, so
    the record says denied, asked, and keeps what the person wrote."""
    trail = {"answer": AgentAnswer("cancel", "not in this folder, use the scratch area")}
    entry = from_hook(_Request(), "block", "ShellGate: the user declined Claude Code's command",
                      trail, time.monotonic())  # fmt: skip
    assert (entry.decision, entry.answerer, entry.asked) == ("denied", "person", True)
    assert entry.verdict == "not in this folder, use the scratch area"


def test_asked_under_never_is_refused_without_a_decision(
        tmp_path: Path, probe: SandboxProbe, collector: Receiver) -> None:  # fmt: skip
    run(flow(tmp_path, probe, "never"), ws(tmp_path), "touch", "asked")
    same_as_codex(collector, "o171-exec-prompt-rule-never")


def test_cancelled_by_the_person_exports_nothing(
        tmp_path: Path, probe: SandboxProbe, collector: Receiver) -> None:  # fmt: skip
    run(flow(tmp_path, probe, "on-request", lambda q: "abort"), ws(tmp_path), "touch", "asked")
    same_as_codex(collector, "o171-app-untrusted-cancel")
    from shellgate.record.verify import lines

    kept = [ln.entry["entry"] for ln in lines() if ln.entry]  # the local record keeps it
    assert [(e["decision"], e["answerer"]) for e in kept] == [("cancelled", "person")]


def test_over_grpc(tmp_path: Path, probe: SandboxProbe, monkeypatch: pytest.MonkeyPatch) -> None:
    """`otlp-grpc` where opentelemetry-exporter-otlp-proto-grpc is installed (the dev extra)."""
    pytest.importorskip("opentelemetry.exporter.otlp.proto.grpc")
    from receiver import GrpcReceiver

    receiver = GrpcReceiver()
    try:
        home = tmp_path / "codex"
        home.mkdir()
        endpoint = f"http://127.0.0.1:{receiver.port}"
        (home / "config.toml").write_text(
            f'[otel]\nexporter = {{ otlp-grpc = {{ endpoint = "{endpoint}" }} }}\n'
            f'metrics_exporter = {{ otlp-grpc = {{ endpoint = "{endpoint}" }} }}\n'
            f'trace_exporter = {{ otlp-grpc = {{ endpoint = "{endpoint}" }} }}\n')  # fmt: skip
        monkeypatch.setenv("CODEX_HOME", str(home))
        monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
        orch = flow(tmp_path, probe, "on-request", lambda q: "approved")
        run(orch, ws(tmp_path), "touch", "asked")
        deliver()
        rows = receiver.rows()
        assert shape(rows) == CODEX["o171-app-untrusted-accept"]
        assert any(r["signal"] == "span" for r in rows)
    finally:
        receiver.close()


class _Answered:
    """An answer wrapped with who gave it, as an answering stage returns it (issue 25)."""

    def __init__(self, decision: str, by: str, source: str) -> None:
        from shellgate.approval.question import Answer
        from shellgate.approval.review import ReviewDecision

        self.answer = Answer(ReviewDecision(decision))
        self.by, self.source = by, source


def test_answering_stages_in_the_flow(collector: Receiver) -> None:
    """The orchestrator's answers from a hook (PermissionRequest) and a refusal by a PreToolUse
    hook export as Codex exports its hooks'."""
    from shellgate.record.build import from_flow

    started = time.monotonic()
    record(from_flow("run", ("touch", "a.txt"), "/w", status="completed", started=started,
                     requirement="needsapproval",
                     answers=[_Answered("approved", "hook", "hooks.json:3")]))  # fmt: skip
    same_as_codex(collector, "o171-app-perm-hook-allow")
    collector.posts.clear()
    record(from_flow("run", ("rm", "x"), "/w", status="forbidden", started=started,
                     requirement="skip", answered_by="hook"))  # fmt: skip
    same_as_codex(collector, "o171-exec-pre-hook-deny")
