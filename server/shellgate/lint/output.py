"""Findings as text (one line each, like a compiler), JSON, or SARIF 2.1.0 for code scanning."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from shellgate import __version__
from shellgate.lint.codes import CODES
from shellgate.lint.finding import Finding, Severity

_SARIF_LEVEL = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "note",
    Severity.HINT: "note",
}


def as_text(findings: Sequence[Finding]) -> str:
    out = []
    for f in findings:
        s = f.span
        out.append(f"{s.path}:{s.line}:{s.column}: {f.severity.value}[{f.code}] {f.message}")
    return "\n".join(out) + ("\n" if out else "")


def _finding_json(f: Finding) -> dict[str, Any]:
    s = f.span
    return {
        "path": s.path,
        "line": s.line,
        "column": s.column,
        "end_line": s.end_line,
        "end_column": s.end_column,
        "severity": f.severity.value,
        "code": f.code,
        "message": f.message,
        "fixes": [
            {
                "title": fix.title,
                "edits": [
                    {
                        "line": e.span.line,
                        "column": e.span.column,
                        "end_line": e.span.end_line,
                        "end_column": e.span.end_column,
                        "new_text": e.new_text,
                    }
                    for e in fix.edits
                ],
            }
            for fix in f.fixes
        ],
    }


def as_json(findings: Sequence[Finding]) -> str:
    return json.dumps([_finding_json(f) for f in findings], indent=2, ensure_ascii=False) + "\n"


def as_sarif(findings: Sequence[Finding]) -> str:
    used = sorted({f.code for f in findings} | set(CODES))
    rules = [
        {
            "id": code,
            "shortDescription": {"text": CODES[code][1] if code in CODES else code},
            "defaultConfiguration": {
                "level": _SARIF_LEVEL[CODES[code][0] if code in CODES else Severity.ERROR]
            },
        }
        for code in used
    ]
    results = [
        {
            "ruleId": f.code,
            "level": _SARIF_LEVEL[f.severity],
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.span.path},
                        "region": {
                            "startLine": max(1, f.span.line),
                            "startColumn": max(1, f.span.column),
                            "endLine": max(1, f.span.end_line),
                            "endColumn": max(1, f.span.end_column),
                        },
                    }
                }
            ],
        }
        for f in findings
    ]
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "shellgate",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
