"""`decide`: the chain on the rules from disk for the request's cwd, nobody asked."""

from __future__ import annotations

import pytest

from shellgate.broker.decide import decide
from shellgate.broker.protocol import AgentRequest, ProtocolError

from .conftest import RULES, World


def test_allowed_prompted_forbidden_with_codex_words(world: World) -> None:
    allowed = decide(world.request("git status"))
    assert (allowed.decision, allowed.requirement, allowed.reason) == ("allow", "skip",
                                                                       "read-only git")  # fmt: skip
    asked = decide(world.request("git push origin main"))
    assert (asked.decision, asked.requirement) == ("prompt", "needs_approval")
    assert asked.reason == "`bash -lc 'git push origin main'` requires approval: " \
        "publishing needs a human"  # fmt: skip
    refused = decide(world.request(("rm", "-rf", "build")))
    assert (refused.decision, refused.reason) == (
        "forbidden", "`rm -rf build` rejected: recursive deletion is never automatic")
    assert refused.explain is not None and refused.explain["segments"][0]["matched_rules"]
    # Heuristics under untrusted: Codex's amendment is proposed.
    unknown = decide(world.request("make deploy", approval_policy="untrusted"))
    assert (unknown.decision, unknown.amendment) == ("prompt", ("make", "deploy"))
    never = decide(world.request("git push", approval_policy="never"))
    assert never.decision == "forbidden"  # never cannot ask: Codex refuses


def test_hidden_is_a_command_the_rules_never_judged(world: World) -> None:
    # ShellGate judges what bash runs: `rm -rf` behind a wrapper meets its forbidden rule
    hidden = decide(world.request("timeout 5 rm -rf build"))
    assert hidden.hidden and hidden.decision == "forbidden"
    assert hidden.reason == (
        "bash runs `rm -rf build` (through `timeout`): rejected: recursive deletion is never "
        "automatic"
    )
    assert hidden.explain is not None and hidden.explain["requirement"]["type"] == "skip"
    assert decide(world.request("echo $(rm -rf build)")).hidden
    assert decide(world.request("bash <<EOF\nrm -rf x\nEOF")).decision == "forbidden"
    # Codex's split shows `time -p rm -rf x` as one command; bash runs `rm -rf x`.
    timed = decide(world.request("time -p rm -rf build"))
    assert timed.hidden and timed.explain is not None
    assert timed.explain["split_difference"]["bash_runs"] == ["rm -rf build"]
    assert not decide(world.request("ls > listing.txt")).hidden  # a redirection hides nothing
    assert not decide(world.request("git status && git push")).hidden
    assert not decide(world.request("timeout 5 ls")).hidden  # nothing stricter inside
    assert decide(world.request("git status | cat | head\nrm -rf x && true")).hidden


def test_the_rules_come_from_disk_and_changes_are_seen_at_once(world: World) -> None:
    assert decide(world.request("make deploy", approval_policy="untrusted")).decision == "prompt"
    rules = world.home / "rules" / "default.rules"
    with rules.open("a") as fh:
        fh.write('prefix_rule(pattern=["make"], decision="allow")\n')
    assert decide(world.request("make deploy", approval_policy="untrusted")).decision == "allow"
    # The project's own layer loads only when Codex trusts the project (its config.toml).
    project_rules = world.project / ".codex" / "rules"
    project_rules.mkdir(parents=True)
    (project_rules / "p.rules").write_text('prefix_rule(pattern=["make"], decision="forbidden")\n')
    assert decide(world.request("make deploy")).decision == "allow"  # unknown: ignored
    (world.home / "config.toml").write_text(
        f'[projects."{world.project}"]\ntrust_level = "trusted"\n'
    )
    trusted = decide(world.request("make deploy"))
    assert trusted.decision == "forbidden"
    assert trusted.explain is not None and trusted.explain["project"]["status"] == "trusted"


def test_rules_that_do_not_load_forbid_everything(world: World) -> None:
    (world.home / "rules" / "default.rules").write_text(RULES + "prefix_rule(pattern=[]\n")
    broken = decide(world.request("git status"))
    assert broken.decision == "forbidden" and broken.explain is None
    assert broken.reason is not None and "the rules do not load" in broken.reason
    assert "default.rules" in broken.reason


def test_a_broken_config_toml_is_named_with_its_line_and_column(world: World) -> None:
    config = world.home / "config.toml"
    config.write_text('approval_policy = "never"\n[foo\nx = 1\n')
    broken = decide(world.request("git status"))
    assert broken.decision == "forbidden" and broken.reason is not None
    assert broken.reason.startswith("Codex's config.toml does not load, so Codex would not "
                                    f"start: {config}:2:5: ")  # fmt: skip
    assert "the rules do not load" not in broken.reason


def test_a_request_that_cannot_be_decided_is_a_protocol_error(world: World) -> None:
    with pytest.raises(ProtocolError, match="not a directory"):
        decide(AgentRequest("x", None, "/nonexistent/dir", "ls"))
    with pytest.raises(ProtocolError, match="absolute"):
        decide(AgentRequest("x", None, ".", "ls"))
    with pytest.raises(ProtocolError, match="sandbox"):
        decide(world.request("ls", sandbox="outer-space"))
