"""Masking what looks like a credential in a command, for output only (`--redact`).

Histories hold secrets: tokens pasted into `curl -H`, `export X_TOKEN=…`, passwords in URLs.
The patterns err towards masking; the decision was made on the real command.
"""

from __future__ import annotations

import re

MASK = "***"

_SECRET_NAME = (r"[\w.-]*(?:pass(?:word|wd)?|secret|token|api[_-]?key|apikey|auth|credential|"
                r"private[_-]?key|access[_-]?key)[\w.-]*")
_VALUE = r"(\"[^\"]*\"|'[^']*'|[^\s'\"]+)"
_NOT_MASKED = r"(?!\*\*\*|(?:bearer|basic|token)\s)"
_SAME_COMMAND = r"[^|;&\n]*?"  # the rest of one simple command, lazily

_PATTERNS = (
    # key=value and key: value where the key names a secret
    re.compile(rf"(?i)\b({_SECRET_NAME})(\s*[=:]\s*){_NOT_MASKED}{_VALUE}"),
    # an option naming a secret, its value the next word (`--password X`, `-token X`); a word
    # that merely holds the name (`sshpass`, `auth`) takes no value
    re.compile(rf"(?i)(?<!\S)(--?{_SECRET_NAME})(\s+)(?!-){_NOT_MASKED}{_VALUE}"),
    # Authorization headers
    re.compile(r"(?i)\b(authorization:\s*(?:bearer|basic|token)?\s*)([^\s'\"]+)"),
    # user:password@ in URLs
    re.compile(r"(://[^/\s:@]+:)([^@\s/]+)(@)"),
)
# Programs that take a password by a short option (-p alone prompts, so only a glued or given
# value is one); the prefix is kept, the value masked.
_PROGRAM_SECRETS = (
    re.compile(rf"(\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mariadb[\w-]*){_SAME_COMMAND}"
               rf"(?<!\S)-p){_VALUE}"),  # -pSECRET (glued: `-p SECRET` prompts, SECRET is a db)
    re.compile(rf"(\bsshpass{_SAME_COMMAND}(?<!\S)-p\s*){_VALUE}"),
    re.compile(rf"(\b(?:docker|podman|buildah|nerdctl)\s+login{_SAME_COMMAND}(?<!\S)-p(?:\s+|=)?)"
               rf"{_VALUE}"),
    re.compile(rf"(\bcurl{_SAME_COMMAND}(?<!\S)(?:-[A-Za-z]*u\s*|--user(?:\s+|=))['\"]?[^\s:'\"]*:)"
               r"([^\s'\"]+)"),  # -u user:SECRET (-u user alone prompts)
)
_TOKENS = re.compile(
    r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|"
    r"xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|"
    r"glpat-[A-Za-z0-9_-]{20,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+)"
)


def redact(text: str) -> str:
    keyed, option, header, url = _PATTERNS
    for pattern in _PROGRAM_SECRETS:
        text = pattern.sub(lambda m: f"{m.group(1)}{MASK}", text)
    text = header.sub(lambda m: f"{m.group(1)}{MASK}", text)
    text = keyed.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    text = option.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    text = url.sub(lambda m: f"{m.group(1)}{MASK}{m.group(3)}", text)
    text = _TOKENS.sub(MASK, text)
    return text
