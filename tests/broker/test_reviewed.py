"""`shellgate/reviewed`: when Codex's auto-reviewer answers an agent's question in the agent's
hook, the editor whose workspace holds the command keeps the verdict in its approval history
(Show Approvals), next to the questions people answered; nobody is asked."""

from __future__ import annotations

from pathlib import Path

from shellgate.approval.question import AutomaticApprover
from shellgate.broker import client
from shellgate.broker.desk import Desk
from shellgate.broker.protocol import AgentDecision, AgentRequest

from .conftest import World, running, validate

DECIDED = AgentDecision("prompt", "needs_approval", "look first", None, None, False)
VERDICT = {"outcome": "deny", "riskLevel": "high", "userAuthorization": "low",
           "rationale": "not asked for", "model": "gpt-5.5",
           "told": "This action was rejected due to unacceptable risk.\nReason: not asked for"}


def test_the_reviewers_verdict_lands_in_the_history(world: World) -> None:
    desk = Desk(AutomaticApprover(), lambda: Path(world.home))
    seen: list[object] = []
    request = AgentRequest("claude-code", "s1", str(world.project), "touch made")
    with running([str(world.project)], on_reviewed=desk.reviewed) as ep:
        ep.trace = lambda direction, message: seen.append((direction, message))
        assert client.reviewed(request, DECIDED, VERDICT) is True
    (entry,) = desk.history
    shown = entry.to_json()
    assert shown["state"] == "reviewed" and shown["answer"] == "decline"
    assert shown["review"] == VERDICT and shown["message"] == VERDICT["told"]
    assert shown["command"] == ["bash", "-lc", "touch made"]
    assert desk.waiting == 0 and desk.showing == 0  # nobody was asked
    sent = next(m for d, m in seen if d == "in")
    validate("request", sent)


def test_no_editor_is_no_harm(world: World) -> None:
    request = AgentRequest("gemini", "s1", str(world.project), "touch made")
    assert client.reviewed(request, DECIDED, {**VERDICT, "outcome": None}) is False
