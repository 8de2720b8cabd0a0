"""Which rules govern a folder, as the editor's Policy view shows them.

For one workspace folder: the layers Codex loads for a session started there (the admin's
system rules, the user's, each trusted project folder's `.codex/rules`, the admin's
requirements), each with its files; each file with its rule count, whether Codex loads it
(a refused file carries Codex's error and position) and its rules grouped by program; the
project's trust, and the admin's clamp (`deny_read`, allowed policies and modes).

Pure over what the caller read: the layer files and each file's analysis (the language
server passes its cached ones). The shape is JSON, for `shellgate/policy`
(rules-schema/policy-view.schema.json).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from shellgate.lint.analyze import FileAnalysis
from shellgate.lint.workspace import LayerFile

# Layers in Codex's precedence, lowest first; a file's layer name is one of these.
LAYER_ORDER = ("system", "user", "project", "cli", "requirements")
_TITLES = {
    "system": "System (/etc/codex/rules)",
    "user": "User ($CODEX_HOME/rules)",
    "project": "Project (.codex/rules)",
    "cli": "Command line (--rules)",
    "requirements": "Admin requirements (requirements.toml)",
}


def folder_overview(
    root: str,
    files: Sequence[LayerFile],
    analysis: Callable[[str], FileAnalysis],
    *,
    trust: Mapping[str, object] | None,
    requirements: Mapping[str, object] | None,
    deny_read: Sequence[str] = (),
) -> dict[str, Any]:
    """The Policy view's entry for the folder `root` (see the module)."""
    layers: dict[str, list[dict[str, Any]]] = {}
    total = 0
    refused = 0
    for f in files:
        entry = file_entry(f, analysis(f.path))
        total += entry["rules"]
        refused += entry["error"] is not None
        layers.setdefault(f.layer, []).append(entry)
    ordered = sorted(layers, key=lambda k: LAYER_ORDER.index(k) if k in LAYER_ORDER else 99)
    return {
        "root": root,
        "rules": total,
        # Codex refuses every rule when one file fails: say so once, at the folder
        "loads": refused == 0,
        "trust": dict(trust) if trust is not None else None,
        "requirements": dict(requirements) if requirements is not None else None,
        "denyRead": list(deny_read),  # the admin's reads masked in every sandbox
        "layers": [
            {"layer": name, "title": _TITLES.get(name, name), "files": layers[name]}
            for name in ordered
        ],
    }


def file_entry(f: LayerFile, a: FileAnalysis) -> dict[str, Any]:
    """One file: its rules grouped by program (first word), each with its decision and
    position, in the file's order; the error Codex gives for it, if it refuses it."""
    programs: dict[str, list[dict[str, Any]]] = {}
    for rule in a.rules:
        pattern = " ".join([rule.first, *("|".join(alts) for alts in rule.rest)])
        span = rule.span
        programs.setdefault(rule.first, []).append({
            "pattern": pattern,
            "decision": rule.decision.value,
            "justification": rule.justification,
            "line": span.line if span is not None else 0,
            "column": span.column if span is not None else 0,
        })  # fmt: skip
    error = None
    if a.error is not None:
        e = a.error
        error = {"message": e.message, "line": e.line, "column": e.column}
    return {
        "path": f.path,
        "layer": f.layer,
        "rules": len(a.rules),
        "error": error,
        "programs": [{"program": p, "rules": rs} for p, rs in sorted(programs.items())],
    }
