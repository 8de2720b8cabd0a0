"""Where tree-sitter's tree of a script differs from what bash reads, and how the reading mends
it: a brace expansion where a command starts, a `!` glued to a word, escaped blanks (which
tree-sitter leaves out of words or reads as separators), words tree-sitter files inside a
redirection, a line tree-sitter glues onto the command before, reserved words and assignments it
leaves as words. Each fix names the case (and the differential seed that found it)."""

from __future__ import annotations

import re

from tree_sitter import Node

from shellgate.shell.bashruns.run import Ctx, Run
from shellgate.shell.tsbash import parse
from shellgate.shell.wrappers import BASH_ASSIGNMENT

# tree-sitter's redirection nodes
REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})

_BRACE_COMMAND = re.compile(
    r"(^|[;&|(\n])([ \t]*(?:(?:then|do|else|elif|if|while|until|!)[ \t]+)*)\{(?=[^\s{}]*,\S*\})"
)


def brace_commands(script: str) -> tuple[Node, bytes] | None:
    """`{rm,-rf,x}` where a command starts is brace expansion to bash (a group needs a blank
    after `{`), an error to tree-sitter: the tree of the script with `_` for that brace, if it
    reads without error (same offsets; the words are still read from the script itself)."""
    braced = _BRACE_COMMAND.sub(r"\1\2_", script)
    again = parse(braced) if braced != script else None
    if again is not None and not again[0].root_node.has_error:
        return again[0].root_node, again[1]
    return None


# `!` is bash's reserved word only as a word of its own: `![[ -n a ]]` runs `![[`, where
# tree-sitter reads a negated test (differential seed 2914186182). A metacharacter after it
# does end it (`!(rm x)` negates a subshell).
GLUED_BANG = re.compile(rb"!(?![\s|&;()<>])")
_ESCAPES_ONLY = re.compile(rb"(?:\\[ \t\n])*")


def unnegated(root: Node, src: bytes) -> Node:
    """The tree of `src` (the text `root` was read from) with `_` for each `!` tree-sitter
    reads as a negation but bash reads as the start of a word (same offsets: the words are
    still read from the script)."""
    bangs = []
    cursor, more = root.walk(), True
    while more:
        node = cursor.node
        if node is not None and node.type == "negated_command" and node.child_count > 1:
            bang, after = node.children[0], node.children[1]
            glued = _ESCAPES_ONLY.fullmatch(src, bang.end_byte, after.start_byte)  # `!\<TAB>ls`
            if glued and GLUED_BANG.match(src, bang.start_byte):
                bangs.append(bang.start_byte)
        if cursor.goto_first_child():
            continue
        while more and not cursor.goto_next_sibling():
            more = cursor.goto_parent()
    if not bangs:
        return root
    spelled = bytearray(src)
    for at in bangs:
        spelled[at : at + 1] = b"_"
    again = parse(spelled.decode("utf-8", "surrogateescape"))
    return again[0].root_node if again is not None and not again[0].root_node.has_error else root


_BLANK = re.compile(rb"[ \t\n]")
_UNQUOTED_PIECE = re.compile(rb"(?:\\[\s\S]|[^ \t\n\\])+")


def escaped_lead(src: bytes, start: int) -> int:
    """Where a command's first word starts for bash: tree-sitter leaves escaped blanks before
    it out of the word (`\\ ab` runs ` ab`); a blank is escaped by an odd run of backslashes."""
    while start >= 2 and src[start - 1 : start] in (b" ", b"\t"):
        n = 0
        while start - 2 - n >= 0 and src[start - 2 - n : start - 1 - n] == b"\\":
            n += 1
        if n % 2 == 0:
            break
        start -= 2
    return start


def lead_words(src: bytes, start: int) -> list[list[int]]:
    """The words of escaped blanks bash reads right before `start`, where tree-sitter starts a
    command (after blanks and escaped blanks back to the operator or line before it)."""
    at = start
    while at >= 1 and src[at - 1 : at] in (b" ", b"\t"):
        n = 0
        while at - 2 - n >= 0 and src[at - 2 - n : at - 1 - n] == b"\\":
            n += 1
        at -= 2 if n % 2 else 1
    return [list(m.span()) for m in _UNQUOTED_PIECE.finditer(src, at, start)]


def pieces(child: Node, src: bytes) -> list[tuple[int, int]]:
    """The byte ranges of bash's words in one of tree-sitter's: a `word` holding an unescaped
    blank (`{ {` in `coproc { {a,b}; }`, a line break before `\\rm` at a line's start) is
    several words to bash; so is a command name that is such a word (`! { {chmod,-R,000,x}; }`
    runs chmod: corpus seed 3078395883)."""
    start, end = child.start_byte, child.end_byte
    if child.type == "command_name" and [c.type for c in child.named_children] == ["word"]:
        child = child.named_children[0]
    if child.type != "word" or _BLANK.search(src, start, end) is None:
        return [(start, end)]
    return [m.span() for m in _UNQUOTED_PIECE.finditer(src, start, end)]


# Blanks and escaped blanks between two of tree-sitter's words (`a\ b`, `a \ b`): bash reads
# an escaped blank as part of a word.
ESCAPED_BLANKS = re.compile(rb"(?:[ \t]|\\[ \t])*\\[ \t](?:[ \t]|\\[ \t])*")
# Blanks and escaped blanks after a command's last word, up to the last escaped one.
_TRAILING_ESCAPES = re.compile(rb"(?:[ \t]|\\[ \t])*\\[ \t]")


def trailing_escapes(
    words: list[list[int]], src: bytes, end: int, via: tuple[str, ...], ctx: Ctx
) -> None:
    """Escaped blanks right after a command's last word (`pwd\\<TAB>` at a line's end or
    before a redirection): bash reads them as words, tree-sitter leaves them out."""
    trailing = _TRAILING_ESCAPES.match(src, end)
    if trailing is None:
        return
    if src[trailing.end() : trailing.end() + 1] == b"#":  # a word, not a comment, to bash
        ctx.add(Run((), via, unknowable="bash reads `#` after an escaped blank as a word"))
    escaped_gap(words, trailing.group(), trailing.end(), trailing.end())


def escaped_gap(words: list[list[int]], gap: bytes, start: int, end: int) -> None:
    """Bash's words over `gap` (blanks and escaped blanks, from `words[-1]`'s end) and the
    next word (`start`..`end`): a piece with no unescaped blank before it extends the word
    before; one with none after it starts the next word; others are words of their own."""
    base = start - len(gap)
    piece: int | None = 0  # where the current piece starts in the gap; 0: glued to the word
    i = 0
    while i < len(gap):
        if gap[i : i + 1] == b"\\":
            if piece is None:
                piece = i
            i += 2
            continue
        if piece == 0:
            words[-1][1] = base + i
        elif piece is not None:
            words.append([base + piece, base + i])
        piece = None
        i += 1
    if piece == 0:
        words[-1][1] = end
    elif piece is not None:
        words.append([base + piece, end])
    else:
        words.append([start, end])


_NOT_WORDS = frozenset({"file_descriptor", "heredoc_start", "heredoc_body", "heredoc_end",
                        "pipeline", *REDIRECTS})  # fmt: skip


def add_words(words: list[list[int]], nodes: list[Node], src: bytes) -> None:
    """Append the spans of `nodes`; one with no blank before it (nothing, a line continuation,
    a Unicode space) extends the word before: `<<EOF -x<EM SPACE>-f` passes `-x<EM SPACE>-f`
    (differential seed 2784280773)."""
    for i, w in enumerate(nodes):  # (the first follows the redirection's target: a new word)
        if i and not _BLANK.search(src[words[-1][1] : w.start_byte].replace(b"\\\n", b"")):
            words[-1][1] = w.end_byte
        else:
            words.append([w.start_byte, w.end_byte])


def redirect_words(r: Node, src: bytes) -> list[Node]:
    """The words tree-sitter puts in a redirection that are the command's arguments to bash:
    those after a file redirection's target or a here-string, and after a here-document's
    delimiter (`ls > out a`, `cat <<EOF a`)."""
    words = [c for c in r.named_children if c.type not in _NOT_WORDS]
    if r.type != "heredoc_redirect":
        return words[1:]
    body = heredoc_line_end(r, src)  # words past the delimiter's line are the body, misread
    return words if body is None else [w for w in words if w.start_byte < body]


def heredoc_line_end(r: Node, src: bytes) -> int | None:
    """Where the line of a here-document's delimiter ends (its body starts after it)."""
    start = next((c for c in r.named_children if c.type == "heredoc_start"), None)
    found = -1 if start is None else src.find(b"\n", start.end_byte, r.end_byte)
    return None if found < 0 else found


def redirected(node: Node) -> Node | None:
    """The `redirected_statement` whose redirections are a command's own: its parent's, or a
    pipeline's or list's when the command is its last (`echo x | bash <<E`: bash reads the
    here-document, the redirection wins over the pipe)."""
    parent = node.parent
    # `a || b 2>&1 x`: tree-sitter hangs b's redirections on the whole list (or pipeline)
    while (
        parent is not None
        and parent.type in ("pipeline", "list")
        and parent.named_children[-1] == node
    ):
        node, parent = parent, parent.parent
    return parent if parent is not None and parent.type == "redirected_statement" else None


def crosses_line(between: bytes) -> bool:
    return b"\n" in between.replace(b"\\\n", b"")


# Bash's reserved words, which tree-sitter can leave at the head of a command (`time -p {`):
# bash runs what follows.
RESERVED = frozenset({"{", "}", "!", "(", ")", "then", "do", "else", "elif", "if", "while",
                       "until", "fi", "done", "esac", "in", "[[", "]]"})  # fmt: skip


def keyword_body(words: tuple[str, ...]) -> int:
    """Where the command after bash's `time` or `coproc` keyword starts: past `time`'s `-p`
    and `--` (its only options) and any assignments (differential seed 1913291303)."""
    at = 1
    if words[0] == "time":
        at += words[at : at + 1] == ("-p",)
        at += words[at : at + 1] == ("--",)
    while at < len(words) and BASH_ASSIGNMENT.match(words[at]):
        at += 1
    return at


def skipped(words: tuple[str, ...]) -> int:
    """How many words at the head of a command are bash's syntax, not a command (a reserved
    word, or a function's head `function NAME [()]` that tree-sitter left as a command), or
    assignments tree-sitter left as words (`coproc { A=1 rm x; }`; a quoted `"A=1" rm` runs
    `A=1` to bash, so this is stricter there): bash runs what follows them."""
    if words[0] in RESERVED:
        return 1 if len(words) > 1 else 0
    if BASH_ASSIGNMENT.match(words[0]):
        return next((i for i, w in enumerate(words) if not BASH_ASSIGNMENT.match(w)), 0)
    if words[0] != "function" or len(words) < 3:
        return 0
    at = 2
    if words[at] == "()":
        at += 1
    elif words[at : at + 2] == ("(", ")"):
        at += 2
    return at if at < len(words) else 0
