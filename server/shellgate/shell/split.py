"""The commands a policy sees in `bash -lc "..."`: Codex's plain-command splitting.

Codex parses the script with tree-sitter-bash and accepts it only if every node is one of a
few "plain" kinds (commands of words and quoted strings joined by `&&`, `||`, `;`, `|`);
anything else makes the whole argv the command. That subset is a regular language, so it is
recognised here by one exact scan of the source text instead of a full parse: the scan
rejects whatever tree-sitter would give a node outside the plain kinds (redirections,
substitutions, expansions, assignments, subshells, comments, keywords, escapes) and reads
each word the way Codex does (quotes stripped, no escape processing, concatenations
joined). bashlex, the full parser, is needed only for non-plain scripts (see `literal`);
`tests/shell/test_shell_properties.py` checks against real bash that the words are right.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shellgate.shell.detect import POSIX_SHELLS, detect_shell_type

# B2 hardening: a bare word containing any of these can still be expanded by bash or zsh
# (brace, glob, tilde, history, zsh extended glob, comment, parameter, command).
_UNSAFE_BARE = frozenset("{}*?[]\\~^#$`")
# Characters ending a bare word: blanks, newline, the shell metacharacters and quotes.
_BREAK = frozenset(" \t\n;&|<>()'\"")
# A double-quoted string is rejected if a backslash precedes one of these (escape removal).
_DQ_ESCAPED = frozenset('$`"\\\n')
# Whitespace that bash reads as part of a word but tree-sitter as a separator, and NUL,
# which no argv can hold: never plain.
_NEVER = frozenset("\r\v\f\x00")
# Command names tree-sitter turns into other node kinds (control flow, declarations, ...).
_KEYWORDS = frozenset(
    {
        "!", "if", "then", "elif", "else", "fi", "for", "in", "do", "done", "while",
        "until", "case", "esac", "select", "function", "time", "coproc",
        "declare", "typeset", "export", "readonly", "local", "unset", "unsetenv",
    }
)  # fmt: skip
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_NUMBER = re.compile(r"-?(0x)?[0-9]+")


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
    """Codex's `try_parse_word_only_commands_sequence` over a script's source text."""
    try:
        return _Scanner(script).commands()
    except _NotPlain:
        return None


def read_literal_word(source: str) -> str | None:
    """The runtime value of one shell word if its spelling is literal (B.2 rules), else None.

    Used by `literal` on the source slice of each word bashlex found.
    """
    scanner = _Scanner(source)
    try:
        word = scanner.word(command_position=False)
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

    def commands(self) -> list[list[str]]:
        src, n = self.src, len(self.src)
        commands: list[list[str]] = []
        current: list[str] = []
        need_command = False  # after `&&`, `||`, `|`: a command must follow
        while self.i < n:
            ch = src[self.i]
            if ch in " \t":
                self.i += 1
            elif ch == "\\" and src.startswith("\\\n", self.i) and self._after_break():
                self.i += 2  # a line continuation between words: blank to bash and tree-sitter
            elif ch == "\n":
                if current:
                    commands.append(current)
                    current = []
                self.i += 1
            elif ch == ";":
                if not current or src.startswith((";;", ";&"), self.i):
                    raise _NotPlain
                commands.append(current)
                current = []
                self.i += 1
            elif ch in "&|":
                pair = src[self.i : self.i + 2]
                if not current or (pair not in ("&&", "||") and ch == "&") or pair == "|&":
                    raise _NotPlain
                commands.append(current)
                current = []
                need_command = True
                self.i += 2 if pair in ("&&", "||") else 1
            elif ch in "<>()#" or ch in _NEVER:
                raise _NotPlain
            else:
                current.append(self.word(command_position=not current))
                need_command = False
        if need_command:
            raise _NotPlain
        if current:
            commands.append(current)
        return commands

    def _after_break(self) -> bool:
        # Glued to a word (`ls\<newline>-l`) bash joins the two words; tree-sitter does not.
        return self.i == 0 or self.src[self.i - 1] in " \t\n;&|"

    def word(self, *, command_position: bool) -> str:
        src, n = self.src, len(self.src)
        pieces: list[str] = []
        kinds: list[str] = []
        while self.i < n and src[self.i] not in " \t\n;&|<>()" and src[self.i] not in _NEVER:
            ch = src[self.i]
            if ch == "'":
                end = src.find("'", self.i + 1)
                if end < 0:
                    raise _NotPlain
                pieces.append(src[self.i + 1 : end])
                kinds.append("raw")
                self.i = end + 1
            elif ch == '"':
                pieces.append(self._double_quoted())
                kinds.append("string")
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
                kinds.append("word")
        if not pieces:
            raise _NotPlain
        value = "".join(pieces)
        if len(pieces) > 1 and not value:
            raise _NotPlain  # an empty concatenation such as `''""`
        if command_position:
            first = pieces[0]
            if kinds[0] == "word" and _ASSIGNMENT.match(first):
                raise _NotPlain  # `FOO=bar cmd`: a variable assignment
            if kinds != ["word"] or first in _KEYWORDS or first.startswith("!"):
                raise _NotPlain  # tree-sitter: command_name must be a bare word
            if _NUMBER.fullmatch(first):
                raise _NotPlain  # a number node, not a word
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
