"""Codex's two readings of a shell script, on the grammar Codex itself uses (tree-sitter-bash).

Codex decides what a `bash -lc` script is by walking tree-sitter-bash's syntax tree; parsing
with the same grammar makes ShellGate agree with it on every script, including the ones where
tree-sitter's error recovery and real bash disagree (`\\ rm -rf x` is `rm` to Codex).

- `word_only_commands(script)`: B2 `try_parse_word_only_commands_sequence`: the commands, if
  the tree has no error and holds only plain words and quoted strings joined by
  `&& || ; |`, and bash would run those argvs; else None. `read_split(script)` says how Codex
  splits it and, where bash would not run that, why and what bash runs (beyond Codex: the
  keywords `time`/`coproc`, a command glued across a newline, two words bash reads as one,
  blanks that are not blanks to bash; and bash's own grammar when `bash_reading` is enabled).
- `literal_commands(script)`: B2 `parse_shell_lc_literal_commands`: every `command` node of an
  error-free tree (in `if`, loops, `$(...)`, ...), with its literal words; for danger checks
  (beyond Codex, cut where bash ends a glued command and past `time`/`coproc`).

The grammar's external scanner (tree-sitter-bash 0.25.1, the newest on PyPI) reads a brace
range `{1..9}` with C `isdigit()` on the Unicode code point after `{` or `..`: glibc indexes its
384-entry ctype table with it, so a code point above U+00FF reads up to 2 MB past the table and
kills the process about one run in two (ASLR decides). `parse` defuses such characters first.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib.machinery import ExtensionFileLoader, PathFinder
from itertools import pairwise

from tree_sitter import Language, Node, Parser, Tree

from shellgate.shell import bash_reading  # cheap: bashlex itself loads only when enabled

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


def _bash_grammar() -> object:
    """tree_sitter_bash's compiled grammar. Its package `__init__` imports importlib.resources
    (with tempfile, shutil and the compression modules) for a query file ShellGate never reads:
    a few milliseconds of every start-up. So the extension module is loaded on its own; the
    usual import is the fallback wherever the package is not laid out as installed."""
    package = PathFinder.find_spec("tree_sitter_bash")
    where = package.submodule_search_locations if package is not None else None
    spec = PathFinder.find_spec("tree_sitter_bash._binding", where) if where else None
    if spec is None or not isinstance(spec.loader, ExtensionFileLoader):
        # fallback: the package's own import (importlib.resources and more) only where
        # the compiled module is not found
        import tree_sitter_bash

        return tree_sitter_bash.language()
    binding = spec.loader.create_module(spec)
    spec.loader.exec_module(binding)
    return binding.language()


_LANGUAGE = Language(_bash_grammar())
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


@dataclass(frozen=True)
class SplitReading:
    """Codex's split of a script next to ShellGate's, and why they differ.

    `codex` is what Codex's B2 walk gives (None: not plain to Codex either). `commands` is
    ShellGate's split: Codex's, unless `objection` says why bash would not run those argvs
    (then None, and the whole argv is judged). `bash` is what bash runs instead, when the
    objection shows it without bash's own grammar (`bash_reading` reads the rest).
    """

    codex: tuple[tuple[str, ...], ...] | None
    objection: str | None = None
    bash: tuple[tuple[str, ...], ...] | None = None

    @property
    def commands(self) -> tuple[tuple[str, ...], ...] | None:
        return None if self.objection is not None else self.codex


_NOT_PLAIN = SplitReading(None)


def word_only_commands(script: str) -> list[list[str]] | None:
    commands = read_split(script).commands
    return None if commands is None else [list(c) for c in commands]


def read_split(script: str) -> SplitReading:
    """Codex's split of `script`, ShellGate's, and why they differ (see `SplitReading`)."""
    return _read_split(script, bash_reading.enabled())


@lru_cache(maxsize=64)
def _read_split(script: str, cross_check: bool) -> SplitReading:
    if defused(script) != script:
        return _NOT_PLAIN  # the tree is of filler text: not proof of the argv (security first)
    parsed = parse(script)
    if parsed is None:
        return _NOT_PLAIN
    tree, src = parsed
    root = tree.root_node
    if root.has_error:
        return _NOT_PLAIN
    nodes: list[Node] = []
    leaves: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if not node.child_count:
            leaves.append(node)
        if node.is_named:
            if kind not in _ALLOWED_KINDS:
                return _NOT_PLAIN
            if kind in ("word", "number") and not _isliteral_word(node, src):
                return _NOT_PLAIN
            if kind == "command":
                nodes.append(node)
        elif kind not in _ALLOWED_PUNCT and kind.strip():
            return _NOT_PLAIN
        stack.extend(node.children)
    nodes.sort(key=lambda node: node.start_byte)
    codex: list[tuple[str, ...]] = []
    for command in nodes:
        words = _plain_command(command, src)
        if words is None:
            return _NOT_PLAIN
        codex.append(tuple(words))
    split = SplitReading(tuple(codex))
    objection = _gap_objection(leaves, src)
    if objection is not None:
        return replace(split, objection=objection)
    for command in nodes:
        objection = _command_objection(command, src)
        if objection is not None:
            bash = tuple(c for node in nodes for c in _bash_commands(node, src))
            return replace(split, objection=objection, bash=bash)
    if cross_check:
        spans = [_word_spans(c, src) for c in nodes]
        objection = bash_reading.disagreement(script, spans, _piped_time(nodes, src))
        if objection is not None:
            return replace(split, objection=objection)
    return split


def cross_check(script: str) -> str | None:
    """bash's own grammar against tree-sitter's reading of a script Codex splits, whatever
    ShellGate's guards say (None: they agree, or Codex does not split it). Loads bashlex."""
    parsed = parse(script)
    if parsed is None or read_split(script).codex is None:
        return None
    tree, src = parsed
    nodes: list[Node] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "command":
            nodes.append(node)
        stack.extend(node.named_children)
    spans = [_word_spans(c, src) for c in nodes]
    return bash_reading.disagreement(script, spans, _piped_time(nodes, src))


def _piped_time(nodes: list[Node], src: bytes) -> list[tuple[int, int]]:
    """Where `time` is a command name after `|` (bash runs /usr/bin/time there; bashlex reads
    a keyword and raises): these words are masked before bashlex reads the script."""
    out: list[tuple[int, int]] = []
    for command in nodes:
        name = command.child_by_field_name("name")
        if name is not None and text(name, src) == "time" and not _reads_keyword(command, src):
            out.append((name.start_byte, name.end_byte))
    return out


def _gap_objection(leaves: list[Node], src: bytes) -> str | None:
    """Why bash does not read as blanks what tree-sitter skipped between tokens, if so.

    A deliberate difference from Codex (security first): a carriage return,
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
        odd = blanks.strip(b" \t\n")
        if odd:
            shown = odd.decode("utf-8", "surrogateescape")[:8].encode("unicode_escape").decode()
            return (
                f"tree-sitter skips `{shown}` between words as a blank; to bash it is part of "
                "a word (or an escaped character), so bash runs other words"
            )
        glued = (
            gap
            and not blanks
            and previous is not None
            and leaf is not None
            and previous.type not in _SEPARATORS
            and leaf.type not in _SEPARATORS
        )
        if glued:
            return (
                "a line continuation glued between two words: tree-sitter reads two words, "
                "bash joins them into one"
            )
        previous = leaf
    return None


def _word_spans(command: Node, src: bytes) -> tuple[tuple[int, int], ...]:
    """The byte spans of a command's words (its name and each argument), for comparing with
    bash's own reading of where the words are."""
    return tuple((c.start_byte, c.end_byte) for c in command.named_children)


# Bash keywords that tree-sitter-bash reads as a command name: bash runs the command after them
# (`time` times it, `coproc` runs it in the background), so the rules must not see `time ...`.
_KEYWORDS = frozenset({"time", "coproc"})
_KEYWORD_OPTIONS = frozenset({"-p", "--"})  # `time -p cmd`, `time -- cmd`


def _strip_keywords(words: tuple[str, ...]) -> tuple[str, ...]:
    i = 0
    while i < len(words) and (words[i] in _KEYWORDS or (i and words[i] in _KEYWORD_OPTIONS)):
        i += 1
    return words[i:]


def _reads_keyword(command: Node, src: bytes) -> bool:
    """Whether bash reads this command's first word as the keyword `time` or `coproc`:
    `coproc` wherever a command starts, `time` only where a pipeline starts (after `|` it is
    an ordinary command name, /usr/bin/time)."""
    name = command.child_by_field_name("name")
    word = text(name, src) if name is not None else None
    if word not in _KEYWORDS:
        return False
    parent = command.parent
    piped = parent is not None and parent.type == "pipeline" and parent.named_children[0] != command
    return word == "coproc" or not piped


def _command_objection(command: Node, src: bytes) -> str | None:
    """Why bash would not run this command as tree-sitter reads it."""
    children = command.named_children
    for before, after in pairwise(children):
        between = src[before.end_byte : after.start_byte]
        if not between:
            # `-a\u3000b`: tree-sitter starts a word at a Unicode space, bash reads one word
            return (
                f"tree-sitter reads `{_shown(text(before, src))}` and "
                f"`{_shown(text(after, src))}` as two words with nothing between them; bash "
                "reads one word"
            )
        # tree-sitter-bash's recovery can glue the first command of a line to the last command
        # of a piped line (`ls | cat | head\nrm -rf x && true` gives `head rm -rf x`, with no
        # error): bash ends a command at an unescaped newline, so such a "command" is not the
        # argv bash runs, and a rule for `head` must not cover it.
        if _crosses_line(between):
            return (
                f"tree-sitter glues the next line onto `{text(children[0], src)}`; bash ends "
                "a command at a newline and runs that line as a command of its own"
            )
    if _reads_keyword(command, src):
        return (
            f"`{text(children[0], src)}` is a bash keyword, not a command: bash runs the "
            "command after it, which the rules would not see"
        )
    return None


def _shown(word: str) -> str:
    """`word` with blanks other than a space escaped, so that a message shows them."""
    return "".join(
        c if c == " " or (c.isprintable() and not c.isspace()) else f"\\u{ord(c):04x}" for c in word
    )


def _crosses_line(between: bytes) -> bool:
    return b"\n" in between.replace(b"\\\n", b"")


def _bash_commands(command: Node, src: bytes) -> list[tuple[str, ...]]:
    """What bash runs for a plain tree-sitter `command`: cut at an unescaped newline, words
    with nothing between them joined, a leading `time`/`coproc` keyword dropped."""
    groups: list[list[str]] = [[]]
    previous: Node | None = None
    for child in command.named_children:
        value = _plain_command_word(child, src) or ""
        between = src[previous.end_byte : child.start_byte] if previous is not None else b" "
        if previous is not None and _crosses_line(between):
            groups.append([value])
        elif not between and groups[-1]:
            groups[-1][-1] += value
        else:
            groups[-1].append(value)
        previous = child
    if _reads_keyword(command, src):
        groups[0] = list(_strip_keywords(tuple(groups[0])))
    return [tuple(g) for g in groups if g]


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
            out.extend(_literal_commands_of(node, src))
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
    for child in command.named_children:
        word = _plain_command_word(child, src)
        if word is None:
            return None
        words.append(word)
    return words


def _plain_command_word(child: Node, src: bytes) -> str | None:
    if child.type == "command_name":
        name = child.named_children[0] if child.named_child_count else None
        return text(name, src) if name is not None and name.type == "word" else None
    if child.type == "concatenation":
        parts = [_plain_part(part, src) for part in child.named_children]
        joined = "".join(p for p in parts if p is not None)
        return None if None in parts or not joined else joined
    return _plain_part(child, src)


def literal_word(node: Node, src: bytes) -> str | None:
    """A word node's runtime value if its spelling is literal (B2 rules), else None."""
    if node.type in ("word", "number"):
        return text(node, src) if _isliteral_word(node, src) else None
    if node.type == "concatenation":
        parts = [literal_word(part, src) for part in node.named_children]
        joined = "".join(p for p in parts if p is not None)
        return None if None in parts or not joined else joined
    return _plain_part(node, src) if node.type in ("string", "raw_string") else None


def _literal_commands_of(command: Node, src: bytes) -> list[list[str]]:
    """The literal commands bash runs for one tree-sitter `command`: beyond Codex (whose
    danger check reads the node as it is), a command glued across a newline is cut where bash
    ends it (`... | head\nrm -rf x && true` runs `rm -rf x`), and a leading `time`/`coproc`
    keyword is dropped (bash runs what follows). Both can only add a command to check."""
    lines: list[list[Node]] = [[]]
    children = command.named_children
    names = [i for i, child in enumerate(children) if child.type == "command_name"]
    if not names:
        return []
    children = children[names[0] :]  # assignments and redirections before the name
    for i, child in enumerate(children):
        if i and b"\n" in src[children[i - 1].end_byte : child.start_byte].replace(b"\\\n", b""):
            lines.append([])
        lines[-1].append(child)
    out: list[list[str]] = []
    for n, line in enumerate(lines):
        words = _literal_words(line, src)
        if words and n == 0 and _reads_keyword(command, src):
            words = list(_strip_keywords(tuple(words)))
        if words:
            out.append(words)
    return out


def _literal_words(children: list[Node], src: bytes) -> list[str] | None:
    words: list[str] = []
    for i, child in enumerate(children):
        if i == 0:
            named = child.named_children if child.type == "command_name" else [child]
            name = literal_word(named[0], src) if named else None
            if name is None:
                return None
            words.append(name)
        else:
            word = literal_word(child, src)
            if word is not None:
                words.append(word)
    return words or None
