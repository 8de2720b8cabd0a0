"""Masking what looks like a credential in a command, for output only (`--redact`).

Histories hold secrets: tokens pasted into `curl -H`, `export X_TOKEN=…`, passwords in URLs.
The patterns err towards masking; the decision was made on the real command.
"""

from __future__ import annotations

import re

MASK = "***"

_PATTERNS = (
    # key=value and key: value where the key names a secret
    re.compile(r"(?i)\b([\w.-]*(?:pass(?:word|wd)?|secret|token|api[_-]?key|apikey|auth|"
               r"credential|private[_-]?key|access[_-]?key)[\w.-]*)(\s*[=:]\s*|\s+)"
               r"(?!\*\*\*|(?:bearer|basic|token)\s)(\"[^\"]*\"|'[^']*'|[^\s'\"]+)"),
    # Authorization headers
    re.compile(r"(?i)\b(authorization:\s*(?:bearer|basic|token)?\s*)([^\s'\"]+)"),
    # user:password@ in URLs
    re.compile(r"(://[^/\s:@]+:)([^@\s/]+)(@)"),
)
_TOKENS = re.compile(
    r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|"
    r"xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|"
    r"glpat-[A-Za-z0-9_-]{20,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+)"
)


def redact(text: str) -> str:
    keyed, header, url = _PATTERNS
    text = header.sub(lambda m: f"{m.group(1)}{MASK}", text)
    text = keyed.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    text = url.sub(lambda m: f"{m.group(1)}{MASK}{m.group(3)}", text)
    text = _TOKENS.sub(MASK, text)
    return text
