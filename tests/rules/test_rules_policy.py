"""Policy evaluation: buckets, strictest decision, load order, host executables, fallback."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.rules import compact
from shellgate.rules.decision import Decision
from shellgate.rules.policy import HeuristicsRuleMatch, Policy, PrefixRuleMatch
from shellgate.rules.rule import PrefixRule


def rule(
    first: str, *rest: str | tuple[str, ...], decision: Decision = Decision.ALLOW
) -> PrefixRule:
    return PrefixRule(first, tuple((r,) if isinstance(r, str) else r for r in rest), decision)


def test_strictest_wins_and_matches_keep_load_order() -> None:
    p = Policy([rule("git", "push"), rule("git", decision=Decision.FORBIDDEN), rule("git", "push")])
    ev = p.check(["git", "push", "origin"])
    assert ev.decision is Decision.FORBIDDEN
    prefixes = [m.matched_prefix for m in ev.matched_rules if isinstance(m, PrefixRuleMatch)]
    assert prefixes == [("git", "push"), ("git",), ("git", "push")]
    assert ev.is_match()


def test_alternatives_and_exact_tokens() -> None:
    p = Policy([rule("npm", ("run", "exec"), "test")])
    assert p.check(["npm", "exec", "test", "-x"]).decision is Decision.ALLOW
    assert p.check(["npm", "exec"]).decision is None
    assert p.check(["npm", "Run", "test"]).decision is None
    assert p.check(["npm", "--", "run", "test"]).decision is None


def test_fallback_only_for_unmatched_commands() -> None:
    p = Policy([rule("ls")])
    seen: list[Sequence[str]] = []

    def fallback(cmd: Sequence[str]) -> Decision:
        seen.append(cmd)
        return Decision.PROMPT

    ev = p.check_multiple([["ls"], ["rm", "x"]], fallback)
    assert ev.decision is Decision.PROMPT
    assert isinstance(ev.matched_rules[-1], HeuristicsRuleMatch)
    assert ev.matched_rules[-1].command == ("rm", "x")
    assert seen == [["rm", "x"]]
    assert p.check(["rm"]).decision is None


def test_host_executables_relative_tilde_and_allow_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", "/home/u")
    p = Policy([rule("git", decision=Decision.PROMPT)])
    ev = p.check(["./git", "status"], resolve_host_executables=True)
    (m,) = ev.matched_rules
    assert isinstance(m, PrefixRuleMatch)
    assert m.resolved_program == f"{tmp_path}/git" and m.matched_prefix == ("git",)
    ev = p.check(["~/bin/git"], resolve_host_executables=True)
    assert isinstance(ev.matched_rules[0], PrefixRuleMatch)
    assert ev.matched_rules[0].resolved_program == "/home/u/bin/git"
    assert p.check(["./git"]).decision is None  # resolution is opt-in
    p.set_host_executable("git", ["/usr/bin/git"])
    assert (
        p.check(["//usr/bin/../bin/git"], resolve_host_executables=True).decision is Decision.PROMPT
    )
    assert p.check(["/opt/git"], resolve_host_executables=True).decision is None
    p.set_host_executable("git", [])
    assert p.check(["/usr/bin/git"], resolve_host_executables=True).decision is None


def test_exact_bucket_blocks_resolution() -> None:
    p = Policy([rule("/usr/bin/git", decision=Decision.FORBIDDEN), rule("git")])
    ev = p.check(["/usr/bin/git"], resolve_host_executables=True)
    assert ev.decision is Decision.FORBIDDEN
    assert p.check(["git"], resolve_host_executables=True).decision is Decision.ALLOW


def test_add_prefix_rule_and_merge() -> None:
    a = Policy([rule("ls")], host_executables={"git": ["/a/git"]})
    b = Policy([rule("ls", decision=Decision.PROMPT)], host_executables={"git": ["/b/git"]})
    merged = a.merge(b)
    assert merged.check(["ls"]).decision is Decision.PROMPT
    assert merged.host_executables["git"] == ("/b/git",)
    assert len(a.rules) == 1  # merge does not touch its inputs
    added = merged.add_prefix_rule(["cargo", "test"], Decision.ALLOW)
    assert added.rest == (("test",),)
    assert merged.check(["cargo", "test", "-q"]).decision is Decision.ALLOW
    with pytest.raises(ValueError, match="at least one token"):
        merged.add_prefix_rule([], Decision.ALLOW)


TOKENS = st.sampled_from(["git", "ls", "a", "b", "/usr/bin/git", "./git", "", "git/.."])


@settings(max_examples=200, deadline=None)
@given(
    rules=st.lists(
        st.tuples(
            TOKENS,
            st.lists(st.lists(TOKENS, min_size=1, max_size=2).map(tuple), max_size=2),
            st.sampled_from(list(Decision)),
        ),
        max_size=8,
    ),
    cmd=st.lists(TOKENS, min_size=1, max_size=4),
    hosts=st.dictionaries(st.sampled_from(["git", "ls"]), st.lists(st.just("/usr/bin/git"))),
    resolve=st.booleans(),
)
def test_compact_cache_form_agrees_with_policy(
    rules: list[tuple[str, list[tuple[str, ...]], Decision]],
    cmd: list[str],
    hosts: dict[str, list[str]],
    resolve: bool,
) -> None:
    policy = Policy(
        [PrefixRule(first, tuple(rest), d) for first, rest, d in rules], host_executables=hosts
    )
    ev = policy.check(cmd, resolve_host_executables=resolve)
    buckets, host_map = compact.to_compact(policy)
    found, decision = compact.evaluate(cmd, buckets, host_map, resolve_host_executables=resolve)
    expected = [
        (m.matched_prefix, m.decision.value, m.resolved_program, m.justification)
        for m in ev.matched_rules
        if isinstance(m, PrefixRuleMatch)
    ]
    assert found == expected
    assert decision == (ev.decision.value if ev.decision else None)


def _scanned(policy: Policy, cmd: Sequence[str]) -> list[tuple[tuple[str, ...], str]]:
    """Every rule of the policy tried against cmd in load order: what an index must agree with."""
    out = []
    for r in policy.rules:
        words = (r.first, *r.rest)
        if r.first == cmd[0] and len(words) <= len(cmd) and r.matches_rest(cmd):
            out.append((tuple(cmd[: len(words)]), r.decision.value))
    return out


@settings(max_examples=150, deadline=None)
@given(
    rules=st.lists(
        st.tuples(
            st.lists(
                st.lists(st.sampled_from("abc"), min_size=1, max_size=3).map(tuple), max_size=3
            ),
            st.sampled_from(list(Decision)),
        ),
        min_size=12,
        max_size=60,
    ),
    cmds=st.lists(st.lists(st.sampled_from("abcd"), max_size=4), min_size=1, max_size=5),
    later=st.lists(st.sampled_from("abc"), max_size=2).map(tuple),
)
def test_a_large_bucket_finds_what_a_scan_finds(
    rules: list[tuple[list[tuple[str, ...]], Decision]],
    cmds: list[list[str]],
    later: tuple[str, ...],
) -> None:
    """Buckets of 16 rules and more are looked up by their second token; the matches and their
    order are those of trying every rule, also after a rule is added to an indexed bucket."""
    policy = Policy(PrefixRule("git", tuple(rest), d) for rest, d in rules)
    for step in range(2):
        for tail in cmds:
            cmd = ["git", *tail]
            ev = policy.check(cmd)
            assert [
                (m.matched_prefix, m.decision.value)
                for m in ev.matched_rules
                if isinstance(m, PrefixRuleMatch)
            ] == _scanned(policy, cmd)
            host = policy.matches_for(["/usr/bin/git", *tail], resolve_host_executables=True)
            assert [(m.matched_prefix, m.decision.value) for m in host] == _scanned(policy, cmd)
            assert all(m.resolved_program == "/usr/bin/git" for m in host)
        if step == 0:
            policy.add_prefix_rule(["git", *later], Decision.PROMPT)
