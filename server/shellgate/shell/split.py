"""The commands a policy sees in `bash -lc "..."`: Codex's plain-command splitting.

Codex parses the script with tree-sitter-bash and accepts it only if every node is one of a
few "plain" kinds (commands of words and quoted strings joined by `&&`, `||`, `;`, `|`);
anything else makes the whole argv the command. ShellGate walks the same grammar's tree the
same way (`tsbash`), and reads each word as Codex does (quotes stripped, no escape
processing, concatenations joined). `tests/shell/test_shell_properties.py` checks against
real bash that the words are right. `read_literal_word` applies the same rules to one word's
spelling, for `wrappers`.
"""

from __future__ import annotations

from collections.abc import Sequence

from shellgate.shell.detect import POSIX_SHELLS, detect_shell_type
from shellgate.shell.tsbash import word_only_commands

# B2 hardening: a bare word containing any of these can still be expanded by bash or zsh
# (brace, glob, tilde, history, zsh extended glob, comment, parameter, command).
_UNSAFE_BARE = frozenset("{}*?[]\\~^#$`")
# Characters ending a bare word: blanks, newline, the shell metacharacters and quotes.
_BREAK = frozenset(" \t\n;&|<>()'\"")
# A double-quoted string is rejected if a backslash precedes one of these (escape removal).
_DQ_ESCAPED = frozenset('$`"\\\n')
# Whitespace that bash reads as part of a word but tree-sitter as a separator, and NUL,
# which no argv can hold: never literal.
_NEVER = frozenset("\r\v\f\x00")


class _NotPlain(Exception):
    """Raised inside the scan; never escapes this module."""


def extract_shell_script(argv: Sequence[str]) -> tuple[str, str] | None:
    """`(shell, script)` for exactly `[shell, -c|-lc, script]` with shell bash/zsh/sh."""
    if len(argv) != 3:
        return None
    shell, flag, script = argv
    if flag not in ("-lc", "-c") or detect_shell_type(shell) not in POSIX_SHELLS:
        return None
    return shell, script


def parse_shell_lc_plain_commands(argv: Sequence[str]) -> list[list[str]] | None:
    """The plain commands of a shell invocation, or None (use the whole argv).

    An empty or blank script gives `[]`, which callers also treat as "not parsed".
    """
    extracted = extract_shell_script(argv)
    if extracted is None:
        return None
    return try_parse_word_only_commands_sequence(extracted[1])


def try_parse_word_only_commands_sequence(script: str) -> list[list[str]] | None:
    """Codex's `try_parse_word_only_commands_sequence`, on tree-sitter-bash as in Codex."""
    return word_only_commands(script)


def read_literal_word(source: str) -> str | None:
    """The runtime value of one shell word if its spelling is literal (B.2 rules), else None.

    Used by `wrappers` on the source slice of each word bashlex found.
    """
    scanner = _Scanner(source)
    try:
        word = scanner.word()
    except _NotPlain:
        return None
    return word if scanner.at_end() else None


class _Scanner:
    __slots__ = ("i", "src")

    def __init__(self, src: str) -> None:
        self.src = src
        self.i = 0

    def at_end(self) -> bool:
        return self.i >= len(self.src)

    def word(self) -> str:
        src, n = self.src, len(self.src)
        pieces: list[str] = []
        while self.i < n and src[self.i] not in " \t\n;&|<>()" and src[self.i] not in _NEVER:
            ch = src[self.i]
            if ch == "'":
                end = src.find("'", self.i + 1)
                if end < 0:
                    raise _NotPlain
                pieces.append(src[self.i + 1 : end])
                self.i = end + 1
            elif ch == '"':
                pieces.append(self._double_quoted())
            else:
                start = self.i
                while self.i < n and src[self.i] not in _BREAK and src[self.i] not in _NEVER:
                    self.i += 1
                bare = src[start : self.i]
                if bare.startswith("=") or not _UNSAFE_BARE.isdisjoint(bare):
                    raise _NotPlain
                if not bare.isascii() and any(c.isspace() for c in bare):
                    raise _NotPlain  # Unicode blanks: a word to bash, maybe a gap to tree-sitter
                pieces.append(bare)
        if not pieces:
            raise _NotPlain
        value = "".join(pieces)
        if len(pieces) > 1 and not value:
            raise _NotPlain  # an empty concatenation such as `''""`
        return value

    def _double_quoted(self) -> str:
        src, n = self.src, len(self.src)
        start = self.i + 1
        j = start
        while j < n:
            ch = src[j]
            if ch == '"':
                self.i = j + 1
                return src[start:j]
            if ch in "$`\x00":
                raise _NotPlain  # expansions (and a lone `$`) are nodes of their own
            if ch == "\\" and j + 1 < n and src[j + 1] in _DQ_ESCAPED:
                raise _NotPlain
            j += 1
        raise _NotPlain  # unterminated string: a parse error
