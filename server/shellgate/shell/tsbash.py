"""Codex's two readings of a shell script, on the grammar Codex itself uses (tree-sitter-bash).

Codex decides what a `bash -lc` script is by walking tree-sitter-bash's syntax tree; parsing
with the same grammar makes ShellGate agree with it on every script, including the ones where
tree-sitter's error recovery and real bash disagree (`\\ rm -rf x` is `rm` to Codex).

- `word_only_commands(script)`: B2 `try_parse_word_only_commands_sequence`: the commands, if
  the tree has no error and holds only plain words and quoted strings joined by
  `&& || ; |`; else None.
- `literal_commands(script)`: B2 `parse_shell_lc_literal_commands`: every `command` node of an
  error-free tree (in `if`, loops, `$(...)`, ...), with its literal words; for danger checks.

The grammar's external scanner (tree-sitter-bash 0.25.1, the newest on PyPI) reads a brace
range `{1..9}` with C `isdigit()` on the Unicode code point after `{` or `..`: glibc indexes its
384-entry ctype table with it, so a code point above U+00FF reads up to 2 MB past the table and
kills the process about one run in two (ASLR decides). `parse` defuses such characters first.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from itertools import pairwise

import tree_sitter_bash
from tree_sitter import Language, Node, Parser, Tree

_ALLOWED_KINDS = frozenset(
    {
        "program", "list", "pipeline", "command", "command_name", "word", "string",
        "string_content", "raw_string", "number", "concatenation",
    }
)  # fmt: skip
_ALLOWED_PUNCT = frozenset({"&&", "||", ";", "|", '"', "'"})
_SEPARATORS = frozenset({"&&", "||", ";", "|", "\n"})
# B2: a bare word can still be expanded by bash or zsh (brace, glob, tilde, history, zsh
# extended glob, parameter, command) or lose a backslash: not proof of the runtime argv.
_EXPANDING = frozenset("{}*?[]\\~^#$`")
# Inside double quotes a backslash before these is removed by the shell.
_DQ_ESCAPED = frozenset('$`"\\\n')


_LANGUAGE = Language(tree_sitter_bash.language())
_local = threading.local()  # a Parser is not safe to share between threads


def _parser() -> Parser:
    parser: Parser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = Parser(_LANGUAGE)
    return parser


# Where the scanner calls isdigit(): the character after `{` and its digits, or after `{1..` and
# its digits. Past U+00FF isdigit() reads out of bounds; surrogate escapes are single invalid
# bytes, which tree-sitter decodes as -1, a valid index.
_UNSAFE_ISDIGIT = re.compile(r"\{[0-9]*(?:\.\.[0-9]*)?([^\x00-\xff\udc80-\udcff])")


def _filler(char: str) -> str:
    """Latin-1 text of `char`'s UTF-8 length, lexed as `char` is: both are word characters to
    the grammar (which treats every code point from `~` up alike) and letters or not alike
    to the scanner's iswalpha()."""
    letter = char.isalpha()
    latin, ascii_ = ("é", "a") if letter else ("×", "_")
    size = len(char.encode("utf-8"))
    return latin * (size // 2) + ascii_ * (size % 2)


def defused(script: str) -> str | None:
    """`script` with every character the scanner would pass to isdigit() out of bounds
    replaced by same-length filler (byte offsets are kept, so nodes slice the real source);
    None if one is a blank, which no filler can stand for. Unchanged if there is none."""
    unsafe = [m.group(1) for m in _UNSAFE_ISDIGIT.finditer(script)]
    if not unsafe:
        return script
    if any(char.isspace() for char in unsafe):
        return None
    return _UNSAFE_ISDIGIT.sub(lambda m: m.group(0)[:-1] + _filler(m.group(1)), script)


@lru_cache(maxsize=64)  # the chain splits a script, then checks it for danger: one parse
def parse(script: str) -> tuple[Tree, bytes] | None:
    """The tree and the UTF-8 source, or None for text no argv can hold (NUL, lone
    surrogates) or that the grammar cannot safely parse (see `defused`). Bytes that are not
    UTF-8 (which Python's argv keeps as surrogate escapes) are parsed as the bytes they are.
    A defused script's tree is that of its filler text; its words are sliced from `src`."""
    if "\x00" in script:
        return None
    try:
        src = script.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return None
    safe = defused(script)
    if safe is None:
        return None
    return _parser().parse(safe.encode("utf-8", "surrogateescape")), src


def word_only_commands(script: str) -> list[list[str]] | None:
    if defused(script) != script:
        return None  # the tree is of filler text: not proof of the argv (security first)
    parsed = parse(script)
    if parsed is None:
        return None
    tree, src = parsed
    root = tree.root_node
    if root.has_error:
        return None
    commands: list[Node] = []
    leaves: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if not node.child_count:
            leaves.append(node)
        if node.is_named:
            if kind not in _ALLOWED_KINDS:
                return None
            if kind in ("word", "number") and not _isliteral_word(node, src):
                return None
            if kind == "command":
                commands.append(node)
        elif kind not in _ALLOWED_PUNCT and kind.strip():
            return None
        stack.extend(node.children)
    if not _gaps_are_blanks_to_bash(leaves, src):
        return None
    commands.sort(key=lambda node: node.start_byte)
    out: list[list[str]] = []
    for command in commands:
        words = _plain_command(command, src)
        if words is None:
            return None
        out.append(words)
    return out


def _gaps_are_blanks_to_bash(leaves: list[Node], src: bytes) -> bool:
    """Whether bash also reads as blanks what tree-sitter skipped between tokens.

    ShellGate's one deliberate difference from Codex (security first): a carriage return,
    vertical tab, form feed or non-ASCII character there is part of a word to bash, and a line
    continuation glued between two words joins them (`ls\\<newline>-l` runs `ls-l`); the argv a
    policy would see is then not the one bash runs, so such a script is not plain.
    """
    leaves.sort(key=lambda node: node.start_byte)
    previous: Node | None = None
    for leaf in [*leaves, None]:
        start = previous.end_byte if previous is not None else 0
        gap = src[start : leaf.start_byte if leaf is not None else len(src)]
        blanks = gap.replace(b"\\\n", b"")
        if blanks.strip(b" \t\n"):
            return False
        glued = (
            gap
            and not blanks
            and previous is not None
            and leaf is not None
            and previous.type not in _SEPARATORS
            and leaf.type not in _SEPARATORS
        )
        if glued:
            return False
        previous = leaf
    return True


def literal_commands(script: str) -> list[list[str]] | None:
    parsed = parse(script)
    if parsed is None:
        return None
    tree, src = parsed
    root = tree.root_node
    if root.has_error:
        return None
    out: list[list[str]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "command":
            words = _literal_command(node, src)
            if words is not None:
                out.append(words)
        stack.extend(node.named_children)
    return out


def text(node: Node, src: bytes) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")


def _isliteral_word(node: Node, src: bytes) -> bool:
    if node.type not in ("word", "number") or node.named_child_count:
        return False
    word = text(node, src)
    return not word.startswith("=") and _EXPANDING.isdisjoint(word)


def _double_quoted(node: Node, src: bytes) -> str | None:
    if node.type != "string" or any(p.type != "string_content" for p in node.named_children):
        return None
    raw = text(node, src)
    if len(raw) < 2 or raw[0] != '"' or raw[-1] != '"':
        return None
    inner = raw[1:-1]
    if any(a == "\\" and b in _DQ_ESCAPED for a, b in pairwise(inner)):
        return None
    return inner


def _raw_string(node: Node, src: bytes) -> str | None:
    raw = text(node, src)
    return raw[1:-1] if len(raw) >= 2 and raw[0] == "'" and raw[-1] == "'" else None


def _plain_part(node: Node, src: bytes) -> str | None:
    # Words were checked literal by the tree walk; quoted strings are checked here.
    if node.type in ("word", "number"):
        return text(node, src)
    if node.type == "string":
        return _double_quoted(node, src)
    if node.type == "raw_string":
        return _raw_string(node, src)
    return None


def _plain_command(command: Node, src: bytes) -> list[str] | None:
    words: list[str] = []
    children = command.named_children
    for before, after in pairwise(children):
        # tree-sitter-bash's recovery can glue the first command of a line to the last command
        # of a piped line (`ls | cat | head\nrm -rf x` gives `head rm -rf x`, with no error):
        # bash ends a command at an unescaped newline, so such a "command" is not the argv bash
        # runs, and a rule for `head` must not cover it.
        if b"\n" in src[before.end_byte : after.start_byte].replace(b"\\\n", b""):
            return None
    for child in children:
        if child.type == "command_name":
            name = child.named_children[0] if child.named_child_count else None
            if name is None or name.type != "word":
                return None
            words.append(text(name, src))
        elif child.type == "concatenation":
            parts = [_plain_part(part, src) for part in child.named_children]
            joined = "".join(p for p in parts if p is not None)
            if None in parts or not joined:
                return None
            words.append(joined)
        else:
            word = _plain_part(child, src)
            if word is None:
                return None
            words.append(word)
    return words


def literal_word(node: Node, src: bytes) -> str | None:
    """A word node's runtime value if its spelling is literal (B2 rules), else None."""
    if node.type in ("word", "number"):
        return text(node, src) if _isliteral_word(node, src) else None
    if node.type == "concatenation":
        parts = [literal_word(part, src) for part in node.named_children]
        joined = "".join(p for p in parts if p is not None)
        return None if None in parts or not joined else joined
    return _plain_part(node, src) if node.type in ("string", "raw_string") else None


def _literal_command(command: Node, src: bytes) -> list[str] | None:
    words: list[str] = []
    for child in command.named_children:
        if child.type == "command_name":
            name = literal_word(child.named_children[0], src) if child.named_child_count else None
            if name is None:
                return None
            words.append(name)
        elif words:
            word = literal_word(child, src)
            if word is not None:
                words.append(word)
    return words or None
