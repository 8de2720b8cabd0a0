"""Bash's word expansion of one word, as far as it is literal: quote removal, backslash escapes,
`$'...'` (ANSI-C) and `$"..."`, brace expansion, and splitting on the default `$IFS`. A part
bash decides at run time (an expansion, a substitution, a glob) marks its field as run-time.
Pure string work: no tree-sitter here."""

from __future__ import annotations

import itertools
import re

MAX_BRACE = 64  # words one brace expansion may give before it counts as run-time
MAX_WORD = 1 << 16  # characters; a longer word is read as run-time, not scanned


# Sentinels for unquoted brace-expansion characters, $IFS split points, run-time parts and
# glob characters while a word is read (private-use code points; input holding them is read
# as run-time).
_OB, _CM, _CB, _SP, _DY, _GL = "\ue000", "\ue001", "\ue002", "\ue003", "\ue004", "\ue005"
_SENTINELS = re.compile("[\ue000-\ue005]")
_PLAIN_WORD = re.compile(r"[A-Za-z0-9_./:@%+=,^-]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_IFS_REF = re.compile(r"IFS(?![A-Za-z0-9_])|\{IFS\}")
_ANSI = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
         "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}  # fmt: skip


class Word:
    """One source word read as bash reads it: its fields (brace expansion and $IFS splitting
    can make several) and which are decided at run time."""

    __slots__ = ("fields", "raw")

    def __init__(self, raw: str, fields: list[tuple[str, bool]]) -> None:
        self.raw = raw
        self.fields = fields  # (value, decided at run time)


def read_word(raw: str, *, ifs_default: bool = True) -> Word:
    """`raw` (a word's source text) after brace expansion, expansions, splitting on the
    default $IFS, and quote removal: `'r'm` -> rm, `{a,b}` -> a b, `$X` -> run-time."""
    if _PLAIN_WORD.fullmatch(raw):
        return Word(raw, [(raw, False)])
    if len(raw) > MAX_WORD or _SENTINELS.search(raw):
        return Word(raw, [(raw, True)])
    marked = _scan(raw, ifs_default)
    words = _brace(marked) if _OB in marked else [marked]
    if words is None:
        return Word(raw, [(raw, True)])
    fields: list[tuple[str, bool]] = []
    for word in words:
        parts = word.split(_SP) if _SP in word else [word]
        for i, part in enumerate(parts):
            if not part and (len(parts) > 1 or i):
                continue  # a field $IFS splitting left empty
            dynamic = _DY in part or _GL in part
            value = raw if dynamic else part.translate(_UNMARK)
            fields.append((value, dynamic))
    return Word(raw, fields)


_UNMARK = str.maketrans({_OB: "{", _CM: ",", _CB: "}", _GL: None, _DY: None, _SP: " "})


def _scan(raw: str, ifs_default: bool) -> str:
    out: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        nxt = raw[i + 1] if i + 1 < n else ""
        if c == "\\":
            if nxt != "\n":
                out.append(nxt or "\\")
            i += 2
        elif c == "'":
            end = raw.find("'", i + 1)
            end = n if end < 0 else end
            out.append(raw[i + 1 : end])
            i = end + 1
        elif c == "$" and nxt == "'":
            value, i = _ansi_c(raw, i + 2)
            out.append(value)
        elif c == '"' or (c == "$" and nxt == '"'):
            start = i + 1 if c == '"' else i + 2
            value, i, whole = _double_quoted(raw, start)
            out.append(value)
            if not whole:
                return "".join(out) + _DY
        elif c == "$":
            rest = raw[i + 1 :]
            ifs = _IFS_REF.match(rest)
            if ifs is not None:
                out.append(_SP if ifs_default else _DY)
                i += 1 + ifs.end()
                continue
            name = _NAME.match(rest)
            if name is not None:
                out.append(_DY)
                i += 1 + name.end()
            elif nxt == "{":
                end = raw.find("}", i + 2)
                if end < 0 or "$" in raw[i + 2 : end] or "`" in raw[i + 2 : end]:
                    return "".join(out) + _DY
                out.append(_DY)
                i = end + 1
            elif nxt and (nxt.isdigit() or nxt in "@*#?$!-"):
                out.append(_DY)
                i += 2
            elif nxt in ("(", "["):
                return "".join(out) + _DY
            else:
                out.append("$")
                i += 1
        elif c == "`" or (c in "<>" and nxt == "("):
            return "".join(out) + _DY
        elif c == "{":
            out.append(_OB)
            i += 1
        elif c == ",":
            out.append(_CM)
            i += 1
        elif c == "}":
            out.append(_CB)
            i += 1
        elif c in "*?" or (c == "[" and "]" in raw[i + 1 :]) or (c in "!@+" and nxt == "("):
            out.append(_GL + c)
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _double_quoted(raw: str, i: int) -> tuple[str, int, bool]:
    """The value of "..." from just after the quote, the index after it, and whether it was
    read whole (False: a substitution whose end is not sought; the rest is run-time)."""
    out: list[str] = []
    n = len(raw)
    while i < n:
        c = raw[i]
        if c == '"':
            return "".join(out), i + 1, True
        if c == "\\" and i + 1 < n and raw[i + 1] in '$`"\\\n':
            if raw[i + 1] != "\n":
                out.append(raw[i + 1])
            i += 2
        elif c == "`" or (c == "$" and raw[i + 1 : i + 2] in ("(", "[")):
            return "".join(out), n, False
        elif c == "$" and raw[i + 1 : i + 2] == "{":
            end = raw.find("}", i + 2)
            if end < 0 or "$" in raw[i + 2 : end] or "`" in raw[i + 2 : end]:
                return "".join(out), n, False
            out.append(_DY)
            i = end + 1
        elif c == "$" and (
            _NAME.match(raw, i + 1) or raw[i + 1 : i + 2] in tuple("@*#?$!-0123456789")
        ):
            name = _NAME.match(raw, i + 1)
            out.append(_DY)
            i = name.end() if name is not None else i + 2
        else:
            out.append(c)
            i += 1
    return "".join(out), n, True


def _ansi_c(raw: str, i: int) -> tuple[str, int]:
    """The value of $'...' from just after the quote, and the index after it."""
    out: list[str] = []
    n = len(raw)
    while i < n:
        c = raw[i]
        if c == "'":
            return "".join(out), i + 1
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = raw[i + 1]
        i += 2
        if e in _ANSI:
            out.append(_ANSI[e])
        elif e in "xuU":
            size = {"x": 2, "u": 4, "U": 8}[e]
            digits = re.match(f"[0-9A-Fa-f]{{1,{size}}}", raw[i : i + size])
            if digits is None:
                out.append("\\" + e)
            else:
                out.append(_chr(int(digits.group(), 16)))
                i += digits.end()
        elif e in "01234567":
            digits = re.match("[0-7]{1,3}", raw[i - 1 : i + 2])
            assert digits is not None
            out.append(_chr(int(digits.group(), 8) & 0xFF))
            i += digits.end() - 1
        elif e == "c" and i < n:
            out.append(_chr(ord(raw[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + e)
    return "".join(out), n


def _chr(code: int) -> str:
    return chr(code) if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000 else _DY


_RANGE = re.compile(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([A-Za-z])\.\.([A-Za-z])")


def _brace(word: str) -> list[str] | None:
    """Bash's brace expansion of a marked word (unquoted braces and commas are sentinels);
    None past MAX_BRACE words."""
    results = [word]
    done: list[str] = []
    while results:
        w = results.pop()
        expanded = _brace_once(w)
        if expanded is None:
            done.append(w)
        else:
            results.extend(reversed(expanded))
        if len(results) + len(done) > MAX_BRACE:
            return None
    return done


def _brace_once(w: str) -> list[str] | None:
    start = 0
    while True:
        ob = w.find(_OB, start)
        if ob < 0:
            return None
        depth, commas, cb = 0, [], -1
        for j in range(ob + 1, len(w)):
            ch = w[j]
            if ch == _OB:
                depth += 1
            elif ch == _CB:
                if depth == 0:
                    cb = j
                    break
                depth -= 1
            elif ch == _CM and depth == 0:
                commas.append(j)
        if cb < 0:
            return None
        head, tail = w[:ob], w[cb + 1 :]
        if commas:
            cuts = [ob, *commas, cb]
            return [head + w[a + 1 : b] + tail for a, b in itertools.pairwise(cuts)]
        seq = _sequence(w[ob + 1 : cb])
        if seq is not None:
            return [head + item + tail for item in seq]
        start = ob + 1  # not an expansion: the brace stays literal


def _sequence(inner: str) -> list[str] | None:
    m = _RANGE.fullmatch(inner)
    if m is None:
        return None
    if m.group(4):
        a, b = ord(m.group(4)), ord(m.group(5))
        step = 1 if b >= a else -1
        return [chr(c) for c in range(a, b + step, step)][: MAX_BRACE + 1]
    a, b = int(m.group(1)), int(m.group(2))
    step = abs(int(m.group(3) or 1)) or 1
    step = step if b >= a else -step
    count = abs(b - a) // abs(step) + 1
    if count > MAX_BRACE:
        return [str(a)] * (MAX_BRACE + 1)
    return [str(a + k * step) for k in range(count)]
