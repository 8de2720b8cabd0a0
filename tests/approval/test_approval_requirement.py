"""The requirement mapping on hand-built policies (the conformance rows cover the matrix)."""

from __future__ import annotations

from shellgate.approval.context import (
    NEVER,
    ON_REQUEST,
    UNTRUSTED,
    ApprovalPolicy,
    ExecContext,
    SandboxMode,
    SandboxPermissions,
)
from shellgate.approval.requirement import (
    BANNED_PREFIX_SUGGESTIONS,
    Forbidden,
    NeedsApproval,
    Skip,
    create_exec_approval_requirement,
)
from shellgate.approval.review import ReviewDecision
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy
from shellgate.rules.rule import PrefixRule

NOSBX = ApprovalPolicy.parse(
    {"granular": {"sandbox_approval": False, "rules": True, "mcp_elicitations": True}}
)


def _policy(*rules: tuple[list[str], Decision, str | None]) -> Policy:
    policy = Policy()
    for tokens, decision, just in rules:
        policy.add_rule(PrefixRule(tokens[0], tuple((t,) for t in tokens[1:]), decision, just))
    return policy


def test_longest_forbidden_prefix_gives_the_reason_last_on_ties() -> None:
    policy = _policy(
        (["git"], Decision.FORBIDDEN, "no git"),
        (["git", "push"], Decision.FORBIDDEN, None),
        (["git", "push"], Decision.FORBIDDEN, "pushes are reviewed"),
    )
    req = create_exec_approval_requirement(["git", "push", "-f"], ExecContext(), policy)
    assert req == Forbidden("`git push -f` rejected: pushes are reviewed")


def test_forbidden_without_justification_names_the_prefix_quoted_as_rust_shlex() -> None:
    policy = _policy((["FOO=1"], Decision.FORBIDDEN, None))
    req = create_exec_approval_requirement(["FOO=1", "x"], ExecContext(), policy)
    assert req == Forbidden("`'FOO=1' x` rejected: policy forbids commands starting with `'FOO=1'`")


def test_heuristic_refusal_names_the_first_dangerous_kind() -> None:
    ctx = ExecContext(NEVER)
    req = create_exec_approval_requirement(["bash", "-lc", "rm -rf build"], ctx, Policy())
    assert req == Forbidden(
        "`bash -lc 'rm -rf build'` rejected: rm -f style commands are not permitted. "
        "Use a safer approach"
    )
    nine = ["sudo"] * 9 + ["ls"]
    assert create_exec_approval_requirement(nine, ctx, Policy()) == Forbidden(
        "`" + " ".join(nine) + "` rejected: blocked by policy"
    )


def test_granular_without_sandbox_approval_asks_once_for_dangerous_commands() -> None:
    req = create_exec_approval_requirement(["rm", "-rf", "build"], ExecContext(NOSBX), Policy())
    assert req == NeedsApproval(None, None, one_shot=True)
    assert isinstance(req, NeedsApproval)
    assert req.available_decisions == (ReviewDecision.APPROVED, ReviewDecision.ABORT)


def test_granular_without_sandbox_approval_refuses_other_sandbox_questions() -> None:
    ctx = ExecContext(NOSBX, sandbox_permissions=SandboxPermissions.WITH_ADDITIONAL_PERMISSIONS)
    req = create_exec_approval_requirement(["touch", "x"], ctx, Policy())
    assert req == Forbidden(
        "approval required by policy, but AskForApproval::Granular.sandbox_approval is false"
    )


def test_escalation_is_refused_before_the_rules_under_never() -> None:
    ctx = ExecContext(NEVER, sandbox_permissions=SandboxPermissions.REQUIRE_ESCALATED)
    allow_all = _policy((["pwd"], Decision.ALLOW, None))
    req = create_exec_approval_requirement(["pwd"], ctx, allow_all)
    assert req == Forbidden(
        "approval policy is Never; reject command — you cannot ask for escalated permissions "
        "if the approval policy is Never"
    )


def test_escalated_question_carries_the_justification_unless_a_rule_gives_one() -> None:
    ctx = ExecContext(
        ON_REQUEST,
        sandbox_permissions=SandboxPermissions.REQUIRE_ESCALATED,
        justification="needs the network",
    )
    assert create_exec_approval_requirement(["pwd"], ctx, Policy()) == NeedsApproval(
        "needs the network", ("pwd",)
    )
    ruled = _policy((["pwd"], Decision.PROMPT, "look first"))
    assert create_exec_approval_requirement(["pwd"], ctx, ruled) == NeedsApproval(
        "`pwd` requires approval: look first", None
    )


def test_bypass_only_when_every_command_is_allowed_by_a_rule() -> None:
    policy = _policy((["ls"], Decision.ALLOW, None))
    both = create_exec_approval_requirement(["bash", "-lc", "ls && ls -la"], ExecContext(), policy)
    assert both == Skip(True, None)
    mixed = create_exec_approval_requirement(["bash", "-lc", "ls && pwd"], ExecContext(), policy)
    assert mixed == Skip(False, None)  # a rule matched: no amendment proposed
    none = create_exec_approval_requirement(["pwd"], ExecContext(), Policy())
    assert none == Skip(False, ("pwd",))


def test_requested_prefix_rule_is_proposed_only_when_safe_and_sufficient() -> None:
    def ask(prefix: tuple[str, ...], argv: list[str]) -> object:
        ctx = ExecContext(UNTRUSTED, prefix_rule=prefix)
        req = create_exec_approval_requirement(argv, ctx, Policy())
        assert isinstance(req, NeedsApproval)
        return req.proposed_execpolicy_amendment

    assert ask(("cargo", "test"), ["cargo", "test", "--all"]) == ("cargo", "test")
    # Would not cover the second command: the first asked-about command is proposed instead.
    script = ["bash", "-lc", "make && cargo test"]
    assert ask(("cargo", "test"), script) == ("make",)
    assert ask(("python3",), ["python3", "x.py"]) == ("python3", "x.py")  # banned
    assert ("python3",) in BANNED_PREFIX_SUGGESTIONS
    assert ("bash", "-lc") in BANNED_PREFIX_SUGGESTIONS


def test_no_amendment_with_an_empty_or_blank_word() -> None:
    # 0.169.0 offers prefix_rule(pattern=[""]) here; a rule no one means is not offered.
    assert create_exec_approval_requirement([""], ExecContext(), Policy()) == Skip(False, None)
    asked = create_exec_approval_requirement(["ls", " "], ExecContext(UNTRUSTED), Policy())
    assert asked == NeedsApproval(None, None)
    ctx = ExecContext(UNTRUSTED, prefix_rule=("make", ""))
    requested = create_exec_approval_requirement(["make", ""], ctx, Policy())
    assert requested == NeedsApproval(None, None)


def test_untrusted_asks_even_for_known_safe_commands() -> None:
    req = create_exec_approval_requirement(["ls"], ExecContext(UNTRUSTED), Policy())
    assert req == NeedsApproval(None, ("ls",))
    read_only = ExecContext(UNTRUSTED, SandboxMode.READ_ONLY)
    assert create_exec_approval_requirement(["ls"], read_only, Policy()) == req
