"""`# check: <command>` comments: test commands kept in the rules file itself.

`# check: git push --force` asks "what would Codex decide for this command?"; the editor shows
the answer inline and the full trace on hover. `# check: git push --force => forbidden` also
states the expected decision, and lint reports when the rules disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shellgate.rules.decision import Decision
from shellgate.rules.source import SourceSpan

_CHECK = re.compile(r"^(?P<lead>\s*#\s*check:[ \t]*)(?P<body>.*?)\s*$")
_EXPECT = re.compile(r"\s=>\s*(?P<want>\S+)\s*$")


@dataclass(frozen=True, slots=True)
class CheckComment:
    command: str
    expected: Decision | None
    # The command's own text (what hover and inlay hints anchor to).
    span: SourceSpan
    # The `=> word` text when it names no decision, to report it.
    bad_expectation: str | None = None


def find_check_comments(text: str, path: str) -> list[CheckComment]:
    found: list[CheckComment] = []
    if "check:" not in text:  # cheap exit for the common case
        return found
    for number, line in enumerate(text.splitlines(), 1):
        if "check:" not in line:
            continue
        m = _CHECK.match(line)
        if m is None or not m.group("body"):
            continue
        body = m.group("body")
        expected: Decision | None = None
        bad: str | None = None
        e = _EXPECT.search(body)
        if e is not None:
            want = e.group("want")
            body = body[: e.start()].rstrip()
            try:
                expected = Decision.parse(want)
            except ValueError:
                bad = want
        if not body:
            continue
        start = len(m.group("lead")) + 1
        span = SourceSpan(path, number, start, number, start + len(body))
        found.append(CheckComment(body, expected, span, bad))
    return found
