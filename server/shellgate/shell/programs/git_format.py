"""git's configuration file format, read as git's parser reads it (config.c): pure.

`[section]`, `[section "sub"]` (a subsection as written, with its two escapes), the legacy
`[section.sub]` (lowercased); `key = value` with double quotes, the five escapes git knows,
comments (`#`, `;`) outside quotes, continuation lines, trailing blanks trimmed; a bare `key`
is true; a byte-order mark at the start is skipped. A line git rejects ends the reading with
a `?` entry naming it (git itself stops there with a fatal error).
"""

from __future__ import annotations

import re

Entries = tuple[tuple[str, str, str], ...]  # (key, value, origin "path:line")

_SECTION = re.compile(r'\[\s*([A-Za-z0-9.-]+)\s*(?:"((?:[^"\\\n]|\\.)*)")?\s*\]')
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
_UNESCAPE = re.compile(r"\\(.)")


def parse_config(text: str, path: str) -> Entries:
    """The (key, value, origin) entries of a configuration file's text, as git's parser reads
    it: `[section]`, `[section "sub"]`, `[section.sub]`; `key = value` with quotes, escapes,
    comments and continuation lines; a bare `key` is true. On a line git would reject: the
    entries before it and a `?` entry naming it."""
    out: list[tuple[str, str, str]] = []
    section: str | None = None
    text = text.removeprefix("\ufeff")
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in " \t\r":
            i += 1
        elif c in "#;":
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif c == "[":
            m = _SECTION.match(text, i)
            if m is None:
                return (*out, ("?", "", f"{path}:{line}"))
            name, sub = m.group(1), m.group(2)
            if sub is not None:
                section = name.lower() + "." + _UNESCAPE.sub(r"\1", sub)
            else:
                head, dot, rest = name.partition(".")
                section = f"{head.lower()}.{rest.lower()}" if dot else name.lower()
            i = m.end()
        else:
            m = _KEY.match(text, i)
            if m is None or section is None:
                return (*out, ("?", "", f"{path}:{line}"))
            key = f"{section}.{m.group().lower()}"
            at = line
            i = m.end()
            while i < n and text[i] in " \t":
                i += 1
            if i >= n or text[i] in "\n\r#;":
                out.append((key, "true", f"{path}:{at}"))
                continue
            if text[i] != "=":
                return (*out, ("?", "", f"{path}:{line}"))
            value, i, line = _value(text, i + 1, line)
            if value is None:
                return (*out, ("?", "", f"{path}:{line}"))
            out.append((key, value, f"{path}:{at}"))
    return tuple(out)


_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", "\\": "\\", '"': '"'}


def _value(text: str, i: int, line: int) -> tuple[str | None, int, int]:
    """A value from just after `=`: its text (None where git rejects it), where the line ends,
    and the line number there (continuations count)."""
    out: list[str] = []
    quoted = False
    pending = ""  # blanks kept only when more of the value follows (git trims the end)
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\n" and not quoted:
            break
        if c == "\n":
            return None, i, line  # a newline inside quotes
        if not quoted and c in "#;":
            while i < n and text[i] != "\n":
                i += 1
            break
        if not quoted and c in " \t\r":
            if out:
                pending += c
            i += 1
            continue
        out.append(pending)
        pending = ""
        if c == "\\":
            nxt = text[i + 1] if i + 1 < n else ""
            if nxt == "\n":
                line += 1
                i += 2
                continue
            if nxt == "\r" and text[i + 2 : i + 3] == "\n":
                line += 1
                i += 3
                continue
            if nxt not in _ESCAPES:
                return None, i, line
            out.append(_ESCAPES[nxt])
            i += 2
        elif c == '"':
            quoted = not quoted
            i += 1
        else:
            out.append(c)
            i += 1
    if quoted:
        return None, i, line
    return "".join(out), i, line
