"""explain() on real rules files: what it reports, in text and in JSON."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from shellgate.approval.context import (
    NEVER,
    UNTRUSTED,
    ApprovalPolicy,
    ExecContext,
    SandboxMode,
    SandboxPermissions,
)
from shellgate.approval.requirement import Forbidden, NeedsApproval, Skip
from shellgate.codexconfig.layers import discover_layers, load_layers
from shellgate.explain import explain, render_text, to_json
from shellgate.explain.model import Danger, DecidedBy, Parse
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy

SCHEMA = json.loads(
    (Path(__file__).parents[2] / "rules-schema" / "explain.schema.json").read_text("utf-8")
)
RULES = """\
prefix_rule(pattern=["git", "status"], decision="allow")
prefix_rule(pattern=["ls"], decision="allow")
prefix_rule(
    pattern=["git", "push"],
    decision="prompt",
    justification="pushes need a human look",
)
prefix_rule(pattern=["rm"], decision="forbidden", justification="use `trash` instead of rm")
"""


@pytest.fixture
def policy(tmp_path: Path) -> Policy:
    (tmp_path / "home").mkdir()
    rules = tmp_path / "team.rules"
    rules.write_text(RULES, encoding="utf-8")
    return load_layers(discover_layers(codex_home=tmp_path / "home", extra_rules=[str(rules)]))


def _valid(ex: object) -> dict[str, object]:
    data = to_json(ex)  # type: ignore[arg-type]
    jsonschema.validate(data, SCHEMA)
    return data


def test_each_segment_reports_its_rules_with_file_line_and_layer(policy: Policy) -> None:
    ex = explain("git status && git push origin && rm -rf build", policy=policy)
    assert ex.parse is Parse.PLAIN
    assert [s.command for s in ex.segments] == [
        ("git", "status"),
        ("git", "push", "origin"),
        ("rm", "-rf", "build"),
    ]
    push = ex.segments[1].rules[0]
    assert (push.decision, push.line, push.layer) == (Decision.PROMPT, 3, "cli")
    assert push.path is not None and push.path.endswith("team.rules")
    assert push.justification == "pushes need a human look"
    assert ex.segments[2].rules[0].line == 8
    assert ex.decision is Decision.FORBIDDEN and ex.decided_by is DecidedBy.RULES
    assert ex.requirement == Forbidden(
        "`bash -lc 'git status && git push origin && rm -rf build'` rejected: "
        "use `trash` instead of rm"
    )
    assert ex.first_attempt is None
    data = _valid(ex)
    assert data["decision"] == "forbidden"
    text = render_text(ex)
    assert text.startswith("REFUSED  `bash -lc")
    assert "team.rules:3 [cli] `git push` prompt: pushes need a human look" in text


def test_heuristics_say_why_and_flag_danger(policy: Policy) -> None:
    ex = explain(["bash", "-lc", "cargo build && sudo shred x"], policy=policy)
    cargo, sudo = ex.segments
    assert cargo.rules == () and cargo.heuristic is not None
    assert cargo.heuristic.decision is Decision.ALLOW and "sandbox" in cargo.heuristic.why
    assert sudo.heuristic is not None and sudo.heuristic.danger is None
    never = explain(["rm", "-f", "x"], policy=Policy(), context=ExecContext(NEVER))
    heuristic = never.segments[0].heuristic
    assert heuristic is not None and heuristic.danger is Danger.FORCED_RM
    assert heuristic.decision is Decision.FORBIDDEN
    assert never.decided_by is DecidedBy.HEURISTICS
    _valid(never)


def test_allowed_by_rules_warns_that_it_runs_outside_the_sandbox(policy: Policy) -> None:
    ex = explain("git status && ls -la", policy=policy)
    assert ex.requirement == Skip(True, None)
    assert ex.first_attempt is not None and not ex.first_attempt.sandboxed
    assert [w.code for w in ex.warnings] == ["runs-unsandboxed"]
    assert render_text(ex).startswith("ALLOWED  runs OUTSIDE the sandbox")
    sandboxed = explain("cargo build", policy=policy)
    assert sandboxed.first_attempt is not None and sandboxed.first_attempt.sandboxed
    assert sandboxed.warnings == ()


def test_hidden_commands_are_named_without_changing_the_decision(policy: Policy) -> None:
    ex = explain(["timeout", "5", "rm", "-rf", "x"], policy=policy)
    assert ex.requirement == Skip(False, ("timeout", "5", "rm", "-rf", "x"))
    hidden = [w for w in ex.warnings if w.code == "hidden-wrapper"]
    assert hidden and hidden[0].inner_command == ("rm", "-rf", "x")
    opaque = explain("ls > listing.txt", policy=policy)
    assert opaque.parse is Parse.WHOLE
    codes = {w.code for w in opaque.warnings}
    assert {"opaque-script", "hidden-redirection"} <= codes
    _valid(opaque)


def test_escalation_refused_before_rules_has_no_decision(policy: Policy) -> None:
    ctx = ExecContext(NEVER, sandbox_permissions=SandboxPermissions.REQUIRE_ESCALATED)
    ex = explain(["git", "status"], policy=policy, context=ctx)
    assert ex.decision is None and ex.decided_by is DecidedBy.ESCALATION_CHECK
    assert isinstance(ex.requirement, Forbidden)
    data = _valid(ex)
    assert "decision" not in data
    assert data["requirement"]["type"] == "forbidden"
    assert "refused before any rule was consulted" in render_text(ex)


def test_untrusted_question_with_amendment_and_known_safe_note(policy: Policy) -> None:
    ex = explain("ls && pwd", policy=policy, context=ExecContext(UNTRUSTED, SandboxMode.READ_ONLY))
    assert ex.requirement == NeedsApproval(None, ("pwd",))
    assert ex.decided_by is DecidedBy.HEURISTICS
    assert any(w.code == "known-safe-asked" for w in ex.warnings)
    data = _valid(ex)
    assert data["requirement"]["available_decisions"] == [
        "accept",
        "acceptWithExecpolicyAmendment",
        "cancel",
    ]
    assert 'adds prefix_rule(pattern=["pwd"], decision="allow")' in render_text(ex)


def test_one_shot_question(policy: Policy) -> None:
    nosbx = ApprovalPolicy.parse(
        {"granular": {"sandbox_approval": False, "rules": True, "mcp_elicitations": True}}
    )
    ex = explain(["rm", "-rf", "build"], policy=Policy(), context=ExecContext(nosbx))
    assert ex.requirement == NeedsApproval(None, None, one_shot=True)
    assert _valid(ex)["requirement"]["available_decisions"] == ["accept", "cancel"]
    assert render_text(ex).startswith("ASKS     once")


def test_an_empty_argv_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match="empty"):
        explain([], policy=Policy())


def test_hidden_command_warning_says_what_a_rule_would_say(policy: Policy) -> None:
    ex = explain(["timeout", "5", "rm", "-rf", "x"], policy=policy)
    (hidden,) = [w for w in ex.warnings if w.code == "hidden-wrapper"]
    assert "on its own a rule would make it forbidden: `rm`" in hidden.message
    assert "team.rules:8" in hidden.message


def test_a_path_spelling_the_rules_do_not_see_is_named(tmp_path: Path) -> None:
    rules = tmp_path / "r.rules"
    rules.write_text(
        'host_executable(name="git", paths=["/usr/bin/git"])\n'
        'prefix_rule(pattern=["git", "push"], decision="forbidden")\n',
        encoding="utf-8",
    )
    (tmp_path / "home").mkdir()
    policy = load_layers(discover_layers(codex_home=tmp_path / "home", extra_rules=[str(rules)]))
    blocked = explain(["/usr/bin/git", "push"], policy=policy)
    assert isinstance(blocked.requirement, Forbidden)
    assert not [w for w in blocked.warnings if w.code == "path-spelling"]
    ex = explain(["/tmp/evil/git", "push"], policy=policy)
    assert ex.decision is Decision.ALLOW  # Codex: an unregistered path matches no rule
    (warning,) = [w for w in ex.warnings if w.code == "path-spelling"]
    assert "`/tmp/evil/git` is not `git`" in warning.message
    assert warning.inner_command == ("git", "push")


SPLIT_RULES = """\
prefix_rule(pattern=["git", "status"], decision="allow")
prefix_rule(pattern=["cat"], decision="allow")
prefix_rule(pattern=["head"], decision="allow")
prefix_rule(pattern=["true"], decision="allow")
prefix_rule(pattern=["time"], decision="allow")
"""


@pytest.fixture
def allow_head(tmp_path: Path) -> Policy:
    (tmp_path / "home").mkdir()
    rules = tmp_path / "allow.rules"
    rules.write_text(SPLIT_RULES, encoding="utf-8")
    return load_layers(discover_layers(codex_home=tmp_path / "home", extra_rules=[str(rules)]))


def test_a_script_codex_splits_but_bash_runs_otherwise_says_both(allow_head: Policy) -> None:
    # Codex's rules would allow `head rm -rf x` (a rule for `head`); bash runs `rm -rf x`
    ex = explain("git status | cat | head\nrm -rf x && true", policy=allow_head)
    assert ex.parse is Parse.WHOLE
    diff = ex.split_difference
    assert diff is not None and "glues the next line onto `head`" in diff.why
    assert diff.codex == (("git", "status"), ("cat",), ("head", "rm", "-rf", "x"), ("true",))
    assert diff.bash == ("git status", "cat", "head", "rm -rf x", "true")
    assert isinstance(ex.requirement, NeedsApproval)  # the whole argv, and `rm -rf` is dangerous
    assert ex.segments[0].heuristic is not None
    assert ex.segments[0].heuristic.danger is Danger.FORCED_RM
    data = _valid(ex)
    assert data["split_difference"] == {
        "codex_split": [["git", "status"], ["cat"], ["head", "rm", "-rf", "x"], ["true"]],
        "bash_runs": ["git status", "cat", "head", "rm -rf x", "true"],
        "why": diff.why,
    }
    text = render_text(ex)
    assert "Codex splits  `git status` ; `cat` ; `head rm -rf x` ; `true`" in text
    assert "bash runs     `git status` ; `cat` ; `head` ; `rm -rf x` ; `true`" in text
    assert "opaque-script" not in {w.code for w in ex.warnings}


def test_time_is_a_keyword_bash_runs_what_follows(allow_head: Policy) -> None:
    ex = explain("time -p rm -rf build", policy=allow_head)
    assert ex.split_difference is not None
    assert ex.split_difference.codex == (("time", "-p", "rm", "-rf", "build"),)
    assert ex.split_difference.bash == ("rm -rf build",)
    assert isinstance(ex.requirement, NeedsApproval)  # not allowed by the rule for `time`
    assert "`time` is a bash keyword" in render_text(ex)


def test_plain_and_opaque_scripts_have_no_split_difference(allow_head: Policy) -> None:
    for script in ("git status | cat", "cat > f", "ls | time ls"):
        ex = explain(script, policy=allow_head)
        assert ex.split_difference is None
        assert "split_difference" not in _valid(ex)
