"""An explanation as Markdown, for hovers and the editor's Explain view: the outcome first, one
table of the commands with their decision and the deciding rule as a link that opens the rules
file at that rule, the warnings, then the whole text trace folded below (`<details>`)."""

from __future__ import annotations

from pathlib import Path

from shellgate.approval.requirement import Forbidden, NeedsApproval
from shellgate.explain.model import Explanation, RuleHit, Segment
from shellgate.explain.render import render_text
from shellgate.shell.quote import try_join

_MAX_CELL = 80


def outcome_line(ex: Explanation) -> str:
    """The verdict in one bold line."""
    req = ex.requirement
    if isinstance(req, Forbidden):
        return f"**Refused**: {_inline(req.reason)}"
    if isinstance(req, NeedsApproval):
        why = f": {_inline(req.reason)}" if req.reason else ""
        return f"**Asks you** before it runs{why}"
    first = ex.first_attempt
    if first is not None and not first.sandboxed:
        return "**Allowed**: runs outside the sandbox without asking"
    return "**Allowed**: runs in the sandbox without asking"


def render_markdown(ex: Explanation, *, trace: bool = True) -> str:
    rows = ["| # | command | decision | decided by |", "|---|---|---|---|"]
    for i, seg in enumerate(ex.segments, 1):
        rows.append(f"| {i} | {_code(try_join(list(seg.command)))} | {seg.decision.value} | "
                    f"{_decided_by(seg)} |")  # fmt: skip
    parts = [outcome_line(ex), "\n".join(rows)]
    if ex.warnings:
        parts.append("\n".join(f"- ⚠ {_inline(w.message)}" for w in ex.warnings))
    if trace:
        text = render_text(ex).rstrip("\n").replace("```", "`\u200b``")
        fold = "<details><summary>Full trace</summary>"
        parts.append(f"{fold}\n\n```text\n{text}\n```\n\n</details>")
    return "\n\n".join(parts) + "\n"


def rule_link(hit: RuleHit) -> str:
    """`[file:line](file:///…#Lline)`: VS Code opens the file at that line on a click."""
    if hit.path is None:
        return "built in"
    name = f"{Path(hit.path).name}:{hit.line or 1}"
    return f"[{_link_text(name)}]({Path(hit.path).absolute().as_uri()}#L{hit.line or 1})"


def _decided_by(seg: Segment) -> str:
    cells = []
    for hit in seg.rules:
        layer = f" [{hit.layer}]" if hit.layer else ""
        just = f": {_inline(hit.justification)}" if hit.justification else ""
        cells.append(f"{rule_link(hit)}{layer} {_code(try_join(list(hit.matched_prefix)))} "
                     f"{hit.decision.value}{just}")  # fmt: skip
    if seg.heuristic is not None:
        cells.append(f"heuristics: {_inline(seg.heuristic.why)}")
    if seg.known_safe:
        cells.append("known safe")
    return "; ".join(cells) or "nothing"


def _cell(text: str) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= _MAX_CELL else text[: _MAX_CELL - 1] + "…"


def _code(text: str) -> str:
    """Inline code that holds any text (a model's words included): a fence longer than any run
    of backticks inside, and `|` escaped for the table."""
    text = _cell(text).replace("|", "\\|")
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _inline(text: str) -> str:
    """Plain text in Markdown: what would be markup is escaped, lines joined."""
    out = text.replace("\n", " ")
    for c in "\\`*_[]<>|#":
        out = out.replace(c, "\\" + c)
    return out


def _link_text(text: str) -> str:
    return text.replace("[", "\\[").replace("]", "\\]")
