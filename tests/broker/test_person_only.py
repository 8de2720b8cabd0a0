"""An admin's `prompt-user` rule travels as `personOnly` from requirements.toml, through the
policy and the broker's wire, to whoever answers: a person only (no Codex hook, no reviewer)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from shellgate.approval.matched import MatchedRule
from shellgate.approval.question import matched_rules
from shellgate.broker.protocol import AgentDecision, decision_from_json
from shellgate.codexconfig.requirements import parse_requirements
from shellgate.rules.policy import Policy

SCHEMA = json.loads((Path(__file__).parents[2] / "rules-schema" / "broker.schema.json").read_text())
REQ = """[rules]
prefix_rules = [
  { pattern = [{ token = "touch" }], decision = "prompt-user", justification = "ask me" },
  { pattern = [{ token = "make" }], decision = "prompt" },
]
"""


def test_prompt_user_is_person_only_from_the_file_to_the_wire() -> None:
    rules = parse_requirements(REQ, "/etc/codex/requirements.toml", base=Path("/etc/codex"))
    policy = Policy(rules.prefix_rules(), [], {})
    touch = matched_rules(policy.check(["touch", "x"], None))
    make = matched_rules(policy.check(["make"], None))
    assert [m.person_only for m in touch] == [True] and [m.person_only for m in make] == [False]
    decision = AgentDecision("prompt", "needs_approval", "ask me", None, None, False,
                             matched=touch)  # fmt: skip
    wire = decision.to_json()
    jsonschema.validate(wire["matched"][0], SCHEMA["definitions"]["matchedRule"])
    back = decision_from_json(wire)
    assert back.person_only and back.matched == touch
    # an older asker, without the key, is read as before
    old = {k: v for k, v in wire["matched"][0].items() if k != "personOnly"}
    assert decision_from_json({**wire, "matched": [old]}).matched[0] == MatchedRule(
        **{**touch[0]._asdict(), "person_only": False})
