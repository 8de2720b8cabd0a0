"""The approval seam's vocabulary: one table of wire names, the same as the broker schema's,
and choices worded for whoever reads the person's words."""

from __future__ import annotations

import json
from pathlib import Path

from shellgate.approval.question import (
    TIMED_OUT,
    exec_choices,
    exec_offered,
    network_choices,
    refusal,
)
from shellgate.approval.review import ReviewDecision
from shellgate.broker.protocol import ANSWERS, AgentAnswer

SCHEMA = Path(__file__).resolve().parents[2] / "rules-schema" / "broker.schema.json"


def _enum(node: object) -> list[str] | None:
    if isinstance(node, dict):
        answer = node.get("answer")
        if isinstance(answer, dict) and "enum" in answer:
            return list(answer["enum"])
        for value in node.values():
            if (found := _enum(value)) is not None:
                return found
    return None


def test_every_decision_has_one_wire_name_and_back() -> None:
    for d in ReviewDecision:
        assert ReviewDecision.from_wire(d.wire) is d
    assert ReviewDecision.TIMED_OUT.wire == "timeout"  # what the extension and the hooks read
    assert ReviewDecision.from_wire("timedOut") is None


def test_the_broker_answers_are_the_schemas() -> None:
    assert list(ANSWERS) == _enum(json.loads(SCHEMA.read_text()))
    for name in ANSWERS:
        decision = ReviewDecision.from_wire(name)
        assert decision is not None
        assert AgentAnswer(name).approved is decision.approves
    yes = {d for d in ReviewDecision if d.approves}
    assert yes == {ReviewDecision.APPROVED, ReviewDecision.APPROVED_FOR_SESSION,
                   ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT,
                   ReviewDecision.NETWORK_POLICY_AMENDMENT}  # fmt: skip


def test_the_last_choice_names_who_reads_the_words() -> None:
    def last(asker: str | None) -> str:
        return exec_choices(exec_offered(False), ("touch",), asker)[-1].label

    assert last("Codex") == "No, and tell Codex what to do differently"
    assert last("the agent") == "No, and tell the agent what to do differently"
    assert last(None) == "No, and stop"
    assert network_choices(None)[-1].label == "No, and stop"
    assert [c.decision for c in exec_choices(exec_offered(True), ("x",), None)] == [
        ReviewDecision.APPROVED, ReviewDecision.ABORT]  # fmt: skip


def test_why_nothing_ran() -> None:
    assert refusal(TIMED_OUT) == "approval timed out: treated as denied"
