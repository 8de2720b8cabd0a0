"""Rust `shlex` 1.3 as Codex uses it: `split` for example strings, `try_join` for messages.

Python's `shlex` differs (comments mid-word, escapes in double quotes, quoting style), and the
examples' error messages must read exactly like Codex's.
"""

from __future__ import annotations

from collections.abc import Iterable

_BLANK = " \t\n"


def split(text: str) -> list[str] | None:
    """POSIX-like words; None when a quote is unterminated or the text ends in a backslash."""
    words: list[str] = []
    i, n = 0, len(text)
    while True:
        # Skip blanks and whole comments between words.
        while i < n:
            c = text[i]
            if c in _BLANK:
                i += 1
            elif c == "#":
                while i < n and text[i] != "\n":
                    i += 1
            else:
                break
        if i >= n:
            return words
        word: list[str] = []
        while i < n:
            c = text[i]
            i += 1
            if c in _BLANK:
                break
            if c == '"':
                while True:
                    if i >= n:
                        return None
                    c = text[i]
                    i += 1
                    if c == '"':
                        break
                    if c == "\\":
                        if i >= n:
                            return None
                        c2 = text[i]
                        i += 1
                        if c2 in '$`"\\':
                            word.append(c2)
                        elif c2 != "\n":
                            word.append("\\" + c2)
                    else:
                        word.append(c)
            elif c == "'":
                end = text.find("'", i)
                if end < 0:
                    return None
                word.append(text[i:end])
                i = end + 1
            elif c == "\\":
                if i >= n:
                    return None
                if text[i] != "\n":
                    word.append(text[i])
                i += 1
            else:
                word.append(c)
        words.append("".join(word))


_UNQUOTED_OK = frozenset("+-./:@]_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_UNQ, _SQ, _DQ = 1, 2, 4


def _ok_mask(c: str) -> int:
    if ord(c) >= 0x80:
        return _SQ | _DQ
    mask = 0
    if c in _UNQUOTED_OK:
        mask |= _UNQ
    if c not in "'^\\":
        mask |= _SQ
    if c not in "`$!^":
        mask |= _DQ
    return mask


def quote(word: str) -> str:
    if not word:
        return "''"
    # The two outcomes of nearly every word, found by C-level scans: the greedy chunking below
    # makes one unquoted chunk of a word of safe characters, and one single-quoted chunk of a
    # word with no character single quotes cannot hold.
    if _UNQUOTED_OK.issuperset(word):
        return word
    if "'" not in word and "^" not in word and "\\" not in word:
        return "'" + word + "'"
    return _quote_chunks(word)


def _quote_chunks(word: str) -> str:
    """The crate's algorithm: greedy chunks, each quoted the cheapest way it allows."""
    out: list[str] = []
    i, n = 0, len(word)
    while i < n:
        prev = _UNQ | _SQ | _DQ
        j = i
        if word[i] == "^":
            prev = _SQ
            j = i + 1
        while j < n:
            cur = prev & _ok_mask(word[j])
            if not cur:
                break
            prev = cur
            j += 1
        chunk = word[i:j]
        if prev & _UNQ:
            if i == 0 and j == n:
                return word
            out.append(chunk)
        elif prev & _SQ:
            out.append("'" + chunk + "'")
        else:
            out.append('"' + "".join("\\" + c if c in '$`"\\' else c for c in chunk) + '"')
        i = j
    return "".join(out)


def join(words: Iterable[str]) -> str:
    return " ".join(quote(w) for w in words)
