"""The real Claude Code (`claude -p`) with ShellGate's hook installed by `shellgate hook install`,
against the Anthropic stand-in, offline: what ran is checked on disk, what the model was told in
the next request's tool results."""

from __future__ import annotations

import agents
from agents import Home, bash, claude_turn, failing_hook_blocks

import realtools
from realclients import tool_results


def test_forbidden_blocked_allowed_sandboxed_and_no_editor_fallback(home: Home) -> None:
    claude = realtools.claude()
    outside, script = agents.victim_script(home)
    kept = agents.kept_folder(home)
    said = home.install("claude-code")  # the default: the workspace-write sandbox rewrite
    assert "sandbox: workspace-write" in said
    script += [bash(f"find {kept} -delete"), {"text": "fin"}]  # risky, no rule: runs, confined
    result = claude_turn(home, claude, script)
    assert result["rc"] == 0, result["stderr"]
    told = tool_results(result["requests"][-1])
    assert len(told) == 6, told
    # needs approval, no editor: Claude Code's own prompt, which `-p` answers no, with our reason
    agents.told_about_victim(home, outside, told)
    assert "denied by the workspace-write sandbox" in told[2]
    # a risky command no rule matched ran in the sandbox: outside the workspace nothing went
    assert (kept / "file").read_text() == "keep" and "Read-only file system" in told[5]


def test_without_a_sandbox_a_risky_command_is_asked_not_run(home: Home) -> None:
    """Default install, no bubblewrap: Claude Code alone would ask, so it asks (`-p`: no)."""
    claude = realtools.claude()
    kept = agents.kept_folder(home)
    said = home.install("claude-code")
    result = claude_turn(home, claude, [bash(f"find {kept} -delete"), bash("ls"),
                                        {"text": "fin"}],
                         SHELLGATE_BWRAP=str(home.root / "no-bwrap"))  # fmt: skip
    assert "sandbox: workspace-write" in said
    told = tool_results(result["requests"][-1])
    assert len(told) == 2, told
    assert (kept / "file").read_text() == "keep"
    assert "no rule allows it and it is not read-only" in told[0] and "bubblewrap" in told[0]
    assert "no rule allows it" not in told[1]  # read-only: ran


def test_a_failing_hook_blocks(home: Home) -> None:
    claude = realtools.claude()
    home.install("claude-code")
    assert "blocked (ShellGate could not decide" in failing_hook_blocks(home, claude_turn, claude)


def test_rules_that_do_not_load_block(home: Home) -> None:
    agents.broken_rules_block(home, "claude-code", claude_turn, realtools.claude())


def test_spellings_of_a_forbidden_command_leave_build_in_place(home: Home) -> None:
    told = agents.spellings_leave_build(home, "claude-code", claude_turn, realtools.claude())
    assert all("ShellGate" in t and "keep the victim file" in t for t in told), told
