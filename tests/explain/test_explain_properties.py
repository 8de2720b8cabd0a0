"""Hypothesis: a forbidden rule anywhere in a script forbids the whole script, whatever the
policy, sandbox and other rules say."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shellgate.approval.context import (
    ApprovalPolicy,
    ExecContext,
    SandboxMode,
    SandboxPermissions,
)
from shellgate.approval.requirement import Forbidden
from shellgate.explain import explain, render_text, to_json
from shellgate.explain.model import Parse
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy
from shellgate.shell.quote import try_join

SCHEMA = json.loads(
    (Path(__file__).parents[2] / "rules-schema" / "explain.schema.json").read_text("utf-8")
)
WORDS = ["git", "ls", "rm", "cargo", "push", "-rf", "-la", "status", "build", "x", "sudo"]
word = st.sampled_from(WORDS)
command = st.lists(word, min_size=1, max_size=4)
operator = st.sampled_from([" && ", " || ", "; ", " | "])
policies = st.one_of(
    st.sampled_from(["untrusted", "on-request", "on-failure", "never"]).map(ApprovalPolicy.parse),
    st.tuples(st.booleans(), st.booleans()).map(
        lambda f: ApprovalPolicy.parse(
            {"granular": {"sandbox_approval": f[0], "rules": f[1], "mcp_elicitations": True}}
        )
    ),
)
contexts = st.builds(
    ExecContext,
    approval_policy=policies,
    sandbox=st.sampled_from(
        [SandboxMode.READ_ONLY, SandboxMode.WORKSPACE_WRITE, SandboxMode.DANGER_FULL_ACCESS]
    ),
    sandbox_permissions=st.sampled_from(list(SandboxPermissions)),
)
other_rules = st.lists(
    st.tuples(command, st.sampled_from([Decision.ALLOW, Decision.PROMPT])), max_size=5
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    segments=st.lists(command, min_size=1, max_size=5),
    ops=st.lists(operator, min_size=4, max_size=4),
    pick=st.integers(min_value=0, max_value=4),
    prefix_len=st.integers(min_value=1, max_value=4),
    rules=other_rules,
    context=contexts,
)
def test_any_forbidden_segment_forbids_the_script(
    segments: list[list[str]],
    ops: list[str],
    pick: int,
    prefix_len: int,
    rules: list[tuple[list[str], Decision]],
    context: ExecContext,
) -> None:
    target = segments[pick % len(segments)]
    policy = Policy()
    for tokens, decision in rules:
        policy.add_prefix_rule(tokens, decision)
    policy.add_prefix_rule(target[:prefix_len], Decision.FORBIDDEN)
    script = " ".join(segments[0])
    for op, seg in zip(ops, segments[1:], strict=False):
        script += op + " ".join(seg)

    ex = explain(script, policy=policy, context=context)

    assert ex.parse is Parse.PLAIN
    assert [list(s.command) for s in ex.segments] == segments
    assert isinstance(ex.requirement, Forbidden)
    if ex.decision is None:  # an escalation refused before the rules: forbidden all the same
        assert context.sandbox_permissions is SandboxPermissions.REQUIRE_ESCALATED
    else:
        assert ex.decision is Decision.FORBIDDEN
        assert ex.requirement.reason.startswith(f"`{try_join(['bash', '-lc', script])}` rejected: ")
    assert to_json(ex)["requirement"]["type"] == "forbidden"


NASTY = st.sampled_from(
    ["$(", "`", "'", '"', "<<EOF\n", ">", "|", "&&", ";", "\\", "\x00", "{", "}", "((", "sudo ",
     "env A=1 ", "rm -rf ", "bash -c '", "timeout 5 ", "\n", " ", "x", "ls"]
)  # fmt: skip


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    script=st.one_of(st.text(max_size=80), st.lists(NASTY, max_size=15).map("".join)),
    context=contexts,
)
def test_explain_never_raises_and_always_fits_the_schema(
    script: str, context: ExecContext
) -> None:
    ex = explain(script, policy=Policy(), context=context)
    data = to_json(ex)
    jsonschema.validate(data, SCHEMA)
    assert render_text(ex).startswith(("ALLOWED", "ASKS", "REFUSED"))
