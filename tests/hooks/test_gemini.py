"""The real Gemini CLI (`gemini -p`) with ShellGate's BeforeTool hook and policy installed by
`shellgate hook install gemini`, against the streamGenerateContent stand-in, offline. One turn
holds every case: Gemini costs seconds per turn."""

from __future__ import annotations

import agents
from agents import RULES, Home, bash, failing_hook_blocks, gemini_prepare, gemini_turn

import realtools
from realclients import tool_results


def test_forbidden_allowed_sandboxed_no_editor(home: Home) -> None:
    gemini = realtools.gemini()
    home.rules(RULES)
    (home.ws / "victim").write_text("keep")
    outside = home.home / "outside"
    kept = agents.kept_folder(home)
    gemini_prepare(home)
    summary = home.install("gemini")  # the default: the workspace-write sandbox rewrite
    assert "policy" in summary and "backup" in summary  # merged into the settings we wrote
    assert "sandbox: workspace-write" in summary
    script = [
        bash("rm -f victim"),
        bash("echo hi > made"),
        bash(f"touch {outside}"),
        bash("touch asked"),
        bash(f"find {kept} -delete"),  # risky, no rule: runs, confined
        {"text": "fin"},
    ]
    result = gemini_turn(home, gemini, script)
    assert result["rc"] == 0, result["stderr"][-3000:]
    told = tool_results(result["requests"][-1])
    assert len(told) == 5, told
    assert (home.ws / "victim").read_text() == "keep"
    assert "Tool execution blocked: ShellGate" in told[0] and "keep the victim file" in told[0]
    # a redirection too: the installed policy lets it reach the hook (allowRedirection)
    assert (home.ws / "made").read_text() == "hi\n"
    assert not outside.exists() and "denied by the workspace-write sandbox" in told[2]
    # needs approval, no editor: blocked with the reason (Gemini's own ask would hang -p)
    assert not (home.ws / "asked").exists()
    assert "asked needs a look" in told[3] and "no editor is reachable" in told[3]
    assert (kept / "file").read_text() == "keep" and "Read-only file system" in told[4]


def test_a_failing_hook_blocks(home: Home) -> None:
    gemini = realtools.gemini()
    gemini_prepare(home)
    home.install("gemini")
    assert "Tool execution blocked" in failing_hook_blocks(home, gemini_turn, gemini)


def test_spellings_of_a_forbidden_command_leave_build_in_place(home: Home) -> None:
    gemini_prepare(home)
    told = agents.spellings_leave_build(home, "gemini", gemini_turn, realtools.gemini())
    assert all("Tool execution blocked: ShellGate" in t and "keep the victim file" in t
               for t in told), told  # fmt: skip
