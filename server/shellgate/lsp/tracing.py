"""Explain traces for the editor: a command under the merged layers and the session's context."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from shellgate.approval.context import ApprovalPolicy, ExecContext, SandboxMode
from shellgate.codexconfig.layers import default_codex_home
from shellgate.codexconfig.resolve import managed_context
from shellgate.codexconfig.trust import ConfigError, project_trust
from shellgate.explain import Explanation, explain
from shellgate.explain.markdown import render_markdown
from shellgate.lint.workspace import MergedPolicy
from shellgate.lsp.session import Settings


def context_for(
    settings: Settings, approval_policy: object = None, sandbox: object = None
) -> ExecContext:
    """Raises ValueError with a user-facing message on a bad policy or sandbox name."""
    policy = ApprovalPolicy.parse(approval_policy or settings.approval_policy)
    raw_sandbox = str(sandbox or settings.sandbox)
    try:
        mode = SandboxMode(raw_sandbox)
    except ValueError:
        choices = ", ".join(m.value for m in SandboxMode)
        raise ValueError(f"unknown sandbox {raw_sandbox!r} (one of {choices})") from None

    return managed_context(policy, mode)


def trace(
    command: Sequence[str] | str,
    merged: MergedPolicy,
    context: ExecContext,
    cwd: str | None = None,
) -> Explanation:
    files = tuple((f.path, f.layer) for f in merged.files)
    return explain(command, policy=merged.policy, context=context, cwd=cwd, rules_files=files)


def refusal_note(merged: MergedPolicy) -> str | None:
    """Codex refuses every rule when one file fails: say so above any answer."""
    if not merged.broken:
        return None
    _, err = merged.broken[0]
    more = f" (and {len(merged.broken) - 1} more)" if len(merged.broken) > 1 else ""
    return (
        f"**Codex refuses to load the rules today**: `{err}`{more}. Until that is fixed it runs "
        "with none of them; below is what the rules decide once it loads."
    )


def view_note(merged: MergedPolicy) -> str | None:
    """How these rules differ from the ones that run (the saved layers), if they do."""
    notes = merged.differences()
    if not notes:
        return None
    return "**Not what runs**: this is " + "; ".join(notes) + "."


def markdown_trace(ex: Explanation, merged: MergedPolicy) -> str:
    parts = []
    for note in (refusal_note(merged), view_note(merged)):
        if note:
            parts.append(note)
    parts.append(render_markdown(ex).rstrip("\n"))
    return "\n\n".join(parts)


def codex_trust_notes(settings: Settings, roots: Sequence[Path]) -> list[dict[str, object]]:
    """For each workspace folder: does Codex itself read its `.codex/rules`? (The editor runs
    with them, VS Code's workspace trust being the gate; Codex asks its own config.toml.)"""

    home = settings.codex_home or default_codex_home()
    notes: list[dict[str, object]] = []
    for root in roots:
        try:
            trust = project_trust(root, codex_home=home)
        except ConfigError as exc:
            notes.append({"root": str(root), "status": "error", "codexLoads": False,
                          "message": f"Codex would not start: {exc}"})  # fmt: skip
            continue
        if not trust.folders:
            continue  # no .codex folder: nothing Codex could skip
        notes.append({"root": str(root), "status": trust.status,
                      "codexLoads": trust.loads_project_rules,
                      "message": trust.describe()})  # fmt: skip
    return notes
