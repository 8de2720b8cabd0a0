"""The Rust `shlex` crate's quoting (`shlex::try_join`), as Codex's messages use it, and its
splitting (`shlex::split`), which Codex's Windows checks use.

Unlike Python's `shlex.quote`, a word stays bare only if every byte is an ASCII letter,
digit or one of `+-./:@]_`; otherwise it is cut into runs, each written with the first
strategy that covers the whole run: bare, 'single quotes' (not for `'`, `\\`, `^`), then
"double quotes" (not for `` ` ``, `$`, `!`, `^`; `"` and `\\` get a backslash). Non-ASCII
bytes always need quotes; a leading `^` only fits single quotes. `FOO=1` -> `'FOO=1'`,
`it's` -> `"it's"`.
"""

from __future__ import annotations

from collections.abc import Iterable

_UNQUOTED = frozenset(b"+-./:@]_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_NOT_SINGLE = frozenset(b"'^\\")
_NOT_DOUBLE = frozenset(b"`$!^")
_BARE, _SINGLE, _DOUBLE = 1, 2, 4


def try_quote(word: str) -> str | None:
    """One word quoted, or None if it holds a NUL byte (Rust's `QuoteError::Nul`)."""
    data = word.encode("utf-8", "surrogatepass")
    if not data:
        return "''"
    if 0 in data:
        return None
    out = bytearray()
    while data:
        length, strategy = _strategy(data)
        chunk, data = data[:length], data[length:]
        if strategy == _BARE:
            out += chunk
        elif strategy == _SINGLE:
            out += b"'" + chunk + b"'"
        else:
            out += b'"'
            for c in chunk:
                if c in b'$`"\\':
                    out.append(0x5C)
                out.append(c)
            out += b'"'
    return out.decode("utf-8", "surrogatepass")


def try_join(words: Iterable[str]) -> str:
    """The words quoted and joined by spaces; with a NUL anywhere, Codex's fallback of a
    plain space-join."""
    listed = list(words)
    quoted = [try_quote(w) for w in listed]
    if any(q is None for q in quoted):
        return " ".join(listed)
    return " ".join(q for q in quoted if q is not None)


def _strategy(data: bytes) -> tuple[int, int]:
    allowed = _BARE | _SINGLE | _DOUBLE
    i = 0
    if data[0] == 0x5E:  # `^`
        allowed, i = _SINGLE, 1
    while i < len(data):
        c = data[i]
        current = allowed
        if c >= 0x80 or c not in _UNQUOTED:
            current &= ~_BARE
        if c < 0x80 and c in _NOT_SINGLE:
            current &= ~_SINGLE
        if c < 0x80 and c in _NOT_DOUBLE:
            current &= ~_DOUBLE
        if not current:
            break
        allowed = current
        i += 1
    for strategy in (_BARE, _SINGLE, _DOUBLE):
        if allowed & strategy:
            return i, strategy
    raise AssertionError("unreachable: some strategy always fits one byte")


def split(text: str) -> list[str] | None:
    """`shlex::split`: POSIX-like words; `#` starts a comment only where a word could start;
    in double quotes only `` $ ` " \\ `` and newline are escaped; None on an unclosed quote
    or a trailing backslash. (Python's `shlex.split` differs on all three.)"""
    words: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t\n":
            i += 1
        elif ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
        else:
            word, i = _split_word(text, i)
            if word is None:
                return None
            words.append(word)
    return words


def _split_word(text: str, i: int) -> tuple[str | None, int]:
    out: list[str] = []
    n = len(text)
    while i < n and text[i] not in " \t\n":
        ch = text[i]
        if ch == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return None, n
            out.append(text[i + 1 : end])
            i = end + 1
        elif ch == '"':
            i += 1
            while True:
                if i >= n:
                    return None, n
                c = text[i]
                if c == '"':
                    i += 1
                    break
                if c == "\\":
                    if i + 1 >= n:
                        return None, n
                    nxt = text[i + 1]
                    if nxt in '$`"\\':
                        out.append(nxt)
                    elif nxt != "\n":
                        out.append("\\" + nxt)
                    i += 2
                else:
                    out.append(c)
                    i += 1
        elif ch == "\\":
            if i + 1 >= n:
                return None, n
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out), i
