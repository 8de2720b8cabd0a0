"""Codex's flow end to end with real sandboxed attempts and scripted approvers."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from exec_helpers import GIT_ENV, WebServer

from shellgate.approval.context import ApprovalPolicy, ExecContext, SandboxMode
from shellgate.approval.question import (
    Answer,
    ApprovalRequest,
    AutomaticApprover,
    RequestKind,
)
from shellgate.approval.review import ReviewDecision
from shellgate.exec.denial import Outcome
from shellgate.exec.orchestrator import Orchestrator
from shellgate.exec.probe import SandboxProbe, run_probe
from shellgate.exec.results import ExecRequest, ExecResult, Status
from shellgate.exec.sandbox import NetworkAccess
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy


def make(
    tmp_path: Path,
    probe: SandboxProbe,
    policy_name: str = "untrusted",
    script: Callable[[ApprovalRequest], str | Answer | None] | None = None,
    *,
    policy: Policy | None = None,
    mode: SandboxMode = SandboxMode.WORKSPACE_WRITE,
    **kw: object,
) -> tuple[Orchestrator, AutomaticApprover]:
    approver = AutomaticApprover(script=script)
    orch = Orchestrator(
        policy or Policy(),
        approver,
        ExecContext(ApprovalPolicy.parse(policy_name), mode),
        codex_home=str(tmp_path / "codex-home"),
        probe=probe,
        network=kw.pop("network", NetworkAccess.OFF),  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )
    return orch, approver


def run(orch: Orchestrator, cwd: Path, *command: str) -> ExecResult:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", **GIT_ENV, "HOME": str(cwd)}
    return asyncio.run(orch.run(ExecRequest(tuple(command), str(cwd), env=env)))


def test_forbidden_never_runs_and_nobody_is_asked(
    tmp_path: Path, probe: SandboxProbe, workspace: Path
) -> None:
    policy = Policy()
    policy.add_prefix_rule(["touch"], Decision.FORBIDDEN)
    orch, approver = make(tmp_path, probe, "on-request", policy=policy)
    r = run(orch, workspace, "touch", "x")
    assert r.status is Status.FORBIDDEN
    assert r.reason == "`touch x` rejected: policy forbids commands starting with `touch`"
    assert not (workspace / "x").exists() and approver.asked == []


@pytest.mark.parametrize(
    "script", [r"\touch x", "t'ouc'h x", "timeout 5 touch x", "echo 'touch x' | sh", "{touch,x}"]
)
def test_what_bash_runs_is_judged_before_it_runs(
    tmp_path: Path, probe: SandboxProbe, workspace: Path, script: str
) -> None:
    """ShellGate as the gate (beyond Codex): every spelling of a forbidden program is refused,
    and a command bash names only at run time is asked."""
    policy = Policy()
    policy.add_prefix_rule(["touch"], Decision.FORBIDDEN)
    orch, approver = make(tmp_path, probe, "on-request", policy=policy)
    r = run(orch, workspace, "bash", "-lc", script)
    assert r.status is Status.FORBIDDEN, r.reason
    assert "bash runs `touch x`" in (r.reason or "")
    assert not (workspace / "x").exists() and approver.asked == []
    orch, approver = make(tmp_path, probe, "on-request", policy=policy, script=lambda _: "denied")
    r = run(orch, workspace, "bash", "-lc", "C=touch; $C x")
    assert not (workspace / "x").exists()
    assert [a.reason for a in approver.asked] == [
        "bash decides this command at run time: its name is `$C`"
    ]


def test_escalation_end_to_end_with_the_narrowest_grant(
    tmp_path: Path, probe: SandboxProbe, workspace: Path, outside: Path
) -> None:
    # on-failure: runs sandboxed without a question, asks when the sandbox denies it.
    orch, approver = make(tmp_path, probe, "on-failure", lambda req: "approved")
    target = outside / "out.txt"
    r = run(orch, workspace, "sh", "-c", f"echo ok > {target}")
    assert r.status is Status.COMPLETED and r.exit_code == 0, r
    assert target.read_text() == "ok\n"
    [escalation] = approver.asked
    assert escalation.kind is RequestKind.ESCALATION
    assert escalation.reason == (
        f"the sandbox denied a write: read-only file system ({target}); "
        f"retry with {outside} writable?"
    )
    assert escalation.retry_permission == f"sandbox + writable {outside}"
    assert [a.outcome for a in r.attempts] == [Outcome.FS_DENIED, Outcome.OK]
    assert all(a.sandboxed for a in r.attempts)  # never left the sandbox


def test_protected_path_escalates_to_no_sandbox_only_when_approved(
    tmp_path: Path, probe: SandboxProbe, workspace: Path
) -> None:
    orch, approver = make(tmp_path, probe, "on-failure", lambda req: "denied")
    r = run(orch, workspace, "sh", "-c", "echo x > .git/shellgate-test")
    assert r.status is Status.DENIED and r.reason == "rejected by user"
    assert not (workspace / ".git" / "shellgate-test").exists()
    [q] = approver.asked
    assert q.retry_permission == "no sandbox"
    assert [c.key for c in q.choices] == ["y", "a", "d", "n"]

    orch, approver = make(tmp_path, probe, "on-failure", lambda req: "approved")
    r = run(orch, workspace, "sh", "-c", "echo x > .git/shellgate-test")
    assert r.status is Status.COMPLETED and r.exit_code == 0
    assert [a.sandboxed for a in r.attempts] == [True, False]
    assert (workspace / ".git" / "shellgate-test").exists()


def test_an_approved_command_is_retried_without_a_second_question(
    tmp_path: Path, probe: SandboxProbe, workspace: Path, outside: Path
) -> None:
    # Codex (C.6): under untrusted the first "yes" covers the escalated retry.
    orch, approver = make(tmp_path, probe, "untrusted", lambda req: "approved")
    r = run(orch, workspace, "sh", "-c", f"echo ok > {outside}/f")
    assert r.exit_code == 0 and (outside / "f").exists()
    assert [q.kind for q in approver.asked] == [RequestKind.EXEC]
    assert [a.permission for a in r.attempts] == ["sandbox", f"sandbox + writable {outside}"]


def test_on_request_returns_a_denial_without_asking(
    tmp_path: Path, probe: SandboxProbe, workspace: Path, outside: Path
) -> None:
    orch, approver = make(tmp_path, probe, "on-request", lambda req: "approved")
    r = run(orch, workspace, "sh", "-c", f"echo x > {outside}/f")
    assert r.status is Status.COMPLETED and r.exit_code != 0
    assert [a.outcome for a in r.attempts] == [Outcome.FS_DENIED]
    assert approver.asked == [] and not (outside / "f").exists()


def test_a_plain_failure_is_not_escalated(
    tmp_path: Path, probe: SandboxProbe, workspace: Path
) -> None:
    orch, approver = make(tmp_path, probe, "untrusted", lambda req: "approved")
    r = run(orch, workspace, "sh", "-c", "echo nope >&2; exit 3")
    assert r.exit_code == 3 and [a.outcome for a in r.attempts] == [Outcome.FAILED]
    assert [q.kind for q in approver.asked] == [RequestKind.EXEC]


def test_amendment_written_once_and_honoured_at_once(
    tmp_path: Path, probe: SandboxProbe, workspace: Path
) -> None:
    def script(req: ApprovalRequest) -> str:
        assert req.proposed_amendment == ("touch", "made")
        assert req.amendment_text == 'prefix_rule(pattern=["touch", "made"], decision="allow")'
        return "approved_execpolicy_amendment"

    orch, approver = make(tmp_path, probe, "untrusted", script)
    for _ in range(3):
        assert run(orch, workspace, "touch", "made").exit_code == 0
    assert len(approver.asked) == 1
    rules = tmp_path / "codex-home" / "rules" / "default.rules"
    assert rules.read_text() == 'prefix_rule(pattern=["touch", "made"], decision="allow")\n'
    # A fresh session loading that file would not ask either.
    fresh = Policy()
    fresh.add_prefix_rule(["touch", "made"], Decision.ALLOW)
    orch2, approver2 = make(tmp_path, probe, "untrusted", policy=fresh)
    assert run(orch2, workspace, "touch", "made").exit_code == 0 and approver2.asked == []


def test_session_approval_is_cached_by_canonical_key(
    tmp_path: Path, probe: SandboxProbe, workspace: Path
) -> None:
    orch, approver = make(tmp_path, probe, "untrusted", lambda req: "approved_for_session")
    assert run(orch, workspace, "bash", "-lc", "touch s1").exit_code == 0
    assert run(orch, workspace, "bash", "-lc", "touch   s1").exit_code == 0  # same canonical key
    assert len(approver.asked) == 1
    assert run(orch, workspace, "touch", "s2").exit_code == 0
    assert len(approver.asked) == 2


@pytest.mark.parametrize(
    ("answer", "status", "reason"),
    [
        ("denied", Status.DENIED, "rejected by user"),
        ("abort", Status.ABORTED, "rejected by user"),
        (Answer(ReviewDecision.TIMED_OUT), Status.DENIED, "approval timed out: treated as denied"),
    ],
)
def test_refusals_do_not_run(
    tmp_path: Path,
    probe: SandboxProbe,
    workspace: Path,
    answer: str | Answer,
    status: Status,
    reason: str,
) -> None:
    orch, _ = make(tmp_path, probe, "untrusted", lambda req: answer)
    r = run(orch, workspace, "touch", "refused")
    assert (r.status, r.reason) == (status, reason)
    assert not (workspace / "refused").exists()


def test_unanswered_request_times_out_as_denied(
    tmp_path: Path, probe: SandboxProbe, workspace: Path
) -> None:
    orch, approver = make(
        tmp_path, probe, "untrusted", lambda req: "approved", approval_timeout=0.2
    )
    approver.delay = 5
    r = run(orch, workspace, "touch", "late")
    assert r.status is Status.DENIED and "timed out" in (r.reason or "")
    assert not (workspace / "late").exists()


def test_two_pending_approvals_are_routed_to_their_commands(
    tmp_path: Path, probe: SandboxProbe, workspace: Path
) -> None:
    class Holding:
        """Holds every request until two are pending, then answers by command."""

        def __init__(self) -> None:
            self.pending: list[tuple[ApprovalRequest, asyncio.Future[Answer]]] = []
            self.both = asyncio.Event()

        async def request_approval(self, request: ApprovalRequest) -> Answer:
            fut: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
            self.pending.append((request, fut))
            if len(self.pending) == 2:
                self.both.set()
            return await fut

    async def go() -> tuple[ExecResult, ExecResult]:
        holder = Holding()
        orch = Orchestrator(
            Policy(),
            holder,
            ExecContext(ApprovalPolicy.parse("untrusted")),
            codex_home=str(tmp_path / "h"),
            probe=probe,
            network=NetworkAccess.OFF,
        )
        a = asyncio.ensure_future(orch.run(ExecRequest(("touch", "yes-file"), str(workspace))))
        b = asyncio.ensure_future(orch.run(ExecRequest(("touch", "no-file"), str(workspace))))
        await asyncio.wait_for(holder.both.wait(), 10)
        assert len({req.id for req, _ in holder.pending}) == 2
        # Answer in the reverse order of asking.
        for req, fut in reversed(holder.pending):
            approve = req.command == ("touch", "yes-file")
            fut.set_result(Answer(ReviewDecision.APPROVED if approve else ReviewDecision.DENIED))
        return await a, await b

    ra, rb = asyncio.run(go())
    assert ra.status is Status.COMPLETED and rb.status is Status.DENIED
    assert (workspace / "yes-file").exists() and not (workspace / "no-file").exists()


def test_without_a_sandbox_every_command_is_asked(tmp_path: Path, workspace: Path) -> None:
    broken = run_probe(None)
    orch, approver = make(tmp_path, broken, "on-request", lambda req: "approved")
    r = run(orch, workspace, "touch", "unsandboxed")
    assert r.status is Status.COMPLETED and (workspace / "unsandboxed").exists()
    [question] = approver.asked
    assert "bubblewrap not found" in (question.reason or "")
    assert [c.id for c in question.choices] == ["approved", "abort"]  # once, never remembered
    assert any("bubblewrap not found" in n for n in r.notes)

    orch, approver = make(tmp_path, broken, "never")
    r = run(orch, workspace, "touch", "never-runs")
    assert r.status is Status.FORBIDDEN and "bubblewrap not found" in (r.reason or "")
    assert not (workspace / "never-runs").exists()


def test_full_access_runs_without_a_sandbox(tmp_path: Path, workspace: Path, outside: Path) -> None:
    orch, _ = make(tmp_path, run_probe(None), "never", mode=SandboxMode.DANGER_FULL_ACCESS)
    r = run(orch, workspace, "sh", "-c", f"echo free > {outside}/free")
    assert r.exit_code == 0 and (outside / "free").read_text() == "free\n"
    assert [a.sandboxed for a in r.attempts] == [False]


@pytest.mark.skipif(
    shutil.which("socat") is None or shutil.which("curl") is None,
    reason="the bridge needs socat; the test uses curl",
)
def test_blocked_host_prompt_then_retry(
    tmp_path: Path, probe: SandboxProbe, workspace: Path, web: WebServer
) -> None:
    answers = iter(["approved", "approved_for_session"])
    orch, approver = make(
        tmp_path,
        probe,
        "on-request",
        lambda req: next(answers) if req.kind is RequestKind.NETWORK else "approved",
        network=NetworkAccess.PROXY,
    )
    url = f"http://127.0.0.1:{web.port}/"
    r = run(orch, workspace, "curl", "-sSf", url)
    assert (r.exit_code, r.stdout) == (0, "secret-page")
    [q] = approver.asked
    assert q.kind is RequestKind.NETWORK and q.host == "127.0.0.1"
    assert q.reason == 'Network access to "127.0.0.1" is blocked by policy.'
    assert [c.key for c in q.choices] == ["y", "a", "p", "d", "n"]
    # "just this once": asked again next time; "for this conversation": not after that.
    assert run(orch, workspace, "curl", "-sSf", url).stdout == "secret-page"
    assert run(orch, workspace, "curl", "-sSf", url).stdout == "secret-page"
    assert len(approver.asked) == 2


@pytest.mark.skipif(
    shutil.which("socat") is None or shutil.which("curl") is None,
    reason="the bridge needs socat; the test uses curl",
)
def test_network_amendments_allow_or_block_a_host(
    tmp_path: Path, probe: SandboxProbe, workspace: Path, web: WebServer
) -> None:
    orch, approver = make(
        tmp_path,
        probe,
        "on-request",
        lambda req: "network_policy_amendment:deny",
        network=NetworkAccess.PROXY,
    )
    r = run(orch, workspace, "curl", "-sSf", f"http://127.0.0.1:{web.port}/")
    assert r.status is Status.DENIED and "127.0.0.1" in orch.host_rules.deny
    rules = (tmp_path / "codex-home" / "rules" / "default.rules").read_text()
    assert 'network_rule(host="127.0.0.1", protocol="https", decision="deny")' in rules

    orch, approver = make(
        tmp_path,
        probe,
        "on-request",
        lambda req: "network_policy_amendment:allow",
        network=NetworkAccess.PROXY,
    )
    r = run(orch, workspace, "curl", "-sSf", f"http://localhost:{web.port}/")
    assert r.stdout == "secret-page"
    assert run(orch, workspace, "curl", "-sSf", f"http://localhost:{web.port}/").exit_code == 0
    assert len(approver.asked) == 1
    rules = (tmp_path / "codex-home" / "rules" / "default.rules").read_text()
    assert 'network_rule(host="localhost", protocol="http", decision="allow")' in rules
