"""A script read through tree-sitter's tree, as bash reads it: each `command` node in source
order (inside every compound, substitution and function body), its words (mended where
tree-sitter misreads bash: `misreadings`) and their values (`words`), each argv then read for
what it runs in turn (`runners`)."""

from __future__ import annotations

import re

from tree_sitter import Node

from shellgate.shell.bashruns.environment import declared, environment, record_writes
from shellgate.shell.bashruns.misreadings import (
    ESCAPED_BLANKS,
    GLUED_BANG,
    REDIRECTS,
    add_words,
    brace_commands,
    crosses_line,
    escaped_gap,
    escaped_lead,
    lead_words,
    pieces,
    redirect_words,
    redirected,
    trailing_escapes,
    unnegated,
)
from shellgate.shell.bashruns.run import MAX_DEPTH, MAX_SCRIPT, Ctx, Run, Stdin, no_input
from shellgate.shell.bashruns.runners import run_argv
from shellgate.shell.bashruns.stdin import stdin_of
from shellgate.shell.bashruns.words import read_word
from shellgate.shell.tsbash import parse
from shellgate.shell.wrappers import BASH_ASSIGNMENT

# Nodes of text, which hold a command only inside a substitution.
_WORDS = frozenset({"heredoc_body", "string", "concatenation", "word", "raw_string",
                    "simple_expansion", "expansion", "variable_assignment"})  # fmt: skip
_SUBSTITUTION = re.compile(rb"\$\(|`|[<>]\(")
_IFS_SET = re.compile(r"(?<![A-Za-z0-9_])IFS\+?=|read\b[^\n;|&]*\bIFS\b")


def read_script(script: str, via: tuple[str, ...], depth: int, ctx: Ctx) -> None:
    """The runs of `script` (reached through `via`, `depth` shells or runners deep) into `ctx`."""
    if depth > MAX_DEPTH:
        ctx.add(Run((), via, unknowable=f"scripts nested more than {MAX_DEPTH} deep"))
        return
    if len(script) > MAX_SCRIPT:
        ctx.add(Run((), via, unknowable=f"a script of {len(script)} characters is not read"))
        return
    if not script.strip():
        return
    parsed = parse(script)
    if parsed is None:
        ctx.add(Run((), via, unknowable="the script holds text no parser reads (NUL)"))
        return
    tree, src = parsed
    saved = ctx.ifs_default
    if "IFS" in script and _IFS_SET.search(script):
        ctx.ifs_default = False  # the script sets IFS: $IFS splits where bash decides
    root, spelled = tree.root_node, src  # the tree, and the text it was read from
    if root.has_error and "{" in script:
        braced = brace_commands(script)  # `{rm,-rf,x}`: brace expansion to bash
        if braced is not None:
            root, spelled = braced
    if root.has_error:
        ctx.add(Run((), via, unknowable="tree-sitter cannot read the script as bash would"))
    elif GLUED_BANG.search(src):
        root = unnegated(root, spelled)
    _walk(root, src, via, depth, ctx)
    ctx.ifs_default = saved


def _walk(root: Node, src: bytes, via: tuple[str, ...], depth: int, ctx: Ctx) -> None:
    """Every `command` of the tree, in source order. A cursor, not lists of children: the
    walk stops at the bound without building a node for each of a huge script's commands."""
    cursor = root.walk()
    while True:
        node = cursor.node
        descend = True
        if node is not None and node.is_named:
            kind = node.type
            # a statement of redirections only (`\\ <<< w`) runs the escaped blanks before it
            bare = kind == "redirected_statement" and node.child_by_field_name("body") is None
            if (kind == "command" or bare) and not _command(node, src, via, depth, ctx):
                return
            if kind == "comment" and not _comment(node, src, via, depth, ctx):
                return
            if kind == "test_command" and not _opens_a_test(src, node.start_byte):
                # `[ab]`: one word to bash (a glob), a command it runs; tree-sitter reads a test
                why = "bash runs a command named by a glob (`[ab]`), not a test"
                if not ctx.add(Run((), via, unknowable=why)):
                    return
            if kind in ("declaration_command", "variable_assignment"):
                declared(node, src, ctx)  # `export EDITOR=…` earlier in the script
            # text holds a command only inside a substitution (a long heredoc is not walked)
            descend = kind not in _WORDS or bool(
                _SUBSTITUTION.search(src, node.start_byte, node.end_byte)
            )
        if descend and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def _command(node: Node, src: bytes, via: tuple[str, ...], depth: int, ctx: Ctx) -> bool:
    """The runs of one tree-sitter `command` (several when tree-sitter glued lines bash
    ends). False once the bound is reached."""
    lead = lead_words(src, node.start_byte)  # `\\ <<< w x` runs ` x`: left out of the tree
    groups: list[list[list[int]]] = [lead]  # commands -> words -> [start, end] byte offsets
    previous: int | None = lead[-1][1] if lead else None  # where the word before ends
    assigned: int | None = None  # where an assignment just before ends
    for child in node.children:
        if child.type in REDIRECTS:  # `git 2>/dev/null push`: words tree-sitter files there
            if previous is not None:
                trailing_escapes(groups[-1], src, previous, via, ctx)
            add_words(groups[-1], redirect_words(child, src), src)
            previous = None
            continue
        if child.type == "variable_assignment":
            previous = None
            assigned = child.end_byte
            continue
        if child.type == "comment":  # on a line tree-sitter glued on (seed 1279104430)
            continue
        if not child.is_named and child.type != "$":
            continue
        if assigned is not None and child.start_byte > assigned and not src[
                assigned : child.start_byte].replace(b"\\\n", b""):  # fmt: skip
            # `A=1\\<newline>wc -l`: the word joins the assignment; bash runs `-l`
            why = "a line continuation joins a word to the assignment before it"
            if not ctx.add(Run((), via, unknowable=why)):
                return False
        assigned = None
        for start, end in pieces(child, src):
            if previous is None and not groups[-1]:
                start = escaped_lead(src, start)  # `\ ab`: tree-sitter drops the `\ `
            gap = src[previous:start] if previous is not None else None
            if gap is not None and not gap.replace(b"\\\n", b""):
                groups[-1][-1][1] = end  # nothing between (a line continuation): one word
            elif gap is not None and crosses_line(gap):
                # bash ends the command here; the next line's escaped blanks are its words, or
                # start its first (seeds 637236584, 319730861)
                lead = lead_words(src, start)
                if lead and lead[-1][1] == start:
                    lead[-1][1] = end
                else:
                    lead.append([start, end])
                groups.append(lead)
            elif gap is not None and ESCAPED_BLANKS.fullmatch(gap):
                escaped_gap(groups[-1], gap, start, end)  # `a\ b`: one word
            else:
                if gap is not None and gap.strip(b" \t"):
                    shown = gap.decode("utf-8", "surrogateescape")
                    shown = shown.encode("unicode_escape").decode()
                    ctx.add(Run((), via, unknowable=f"bash reads `{shown[:12]}` between words"))
                groups[-1].append([start, end])
            previous = end
    if previous is not None:
        trailing_escapes(groups[-1], src, previous, via, ctx)
    statement = redirected(node)
    if statement is not None:
        if not _nothing_before_redirections(statement, src, previous or node.end_byte):
            why = "bash reads a word before a redirection that tree-sitter drops"
            if not ctx.add(Run((), via, unknowable=why)):
                return False
        for r in statement.named_children:
            if r.type in REDIRECTS:
                add_words(groups[-1], redirect_words(r, src), src)

    def input_text() -> Stdin | None:  # read only for a shell: most commands are not one
        return stdin_of(node, src, ctx)

    env = environment(node, src, ctx)  # `EDITOR=… git commit`: what programs run
    record_writes(node, src, ctx)  # `echo 'rm x' > s.sh; bash s.sh`: what programs run

    for n, words in enumerate(groups):
        if not words:
            continue
        raws = [src[a:b].decode("utf-8", "surrogateescape") for a, b in words]
        while n and raws and BASH_ASSIGNMENT.match(raws[0]):
            del raws[0]  # a line tree-sitter glued on: `A=1 pwd` runs pwd (seed 2590780359)
        argv: list[str] = []
        dynamic: set[int] = set()
        for raw in raws:
            for value, dyn in read_word(raw, ifs_default=ctx.ifs_default).fields:
                if dyn:
                    dynamic.add(len(argv))
                argv.append(value)
        if not argv:
            continue
        if 0 in dynamic:
            why = f"its name is `{raws[0]}`"
            if not ctx.add(Run(tuple(argv), via, frozenset(dynamic), unknowable=why)):
                return False
            continue
        stdin = input_text if n == len(groups) - 1 else no_input
        if not run_argv(tuple(argv), frozenset(dynamic), via, depth, ctx, stdin, env=env):
            return False
    return True


def _opens_a_test(src: bytes, start: int) -> bool:
    """Whether `[` (`[[`) at `start` is a word of its own to bash, so a test follows."""
    opener = 2 if src[start : start + 2] == b"[[" else 1
    return src[start + opener : start + opener + 1] in (b" ", b"\t", b"\n")


def _nothing_before_redirections(statement: Node, src: bytes, end: int) -> bool:
    """Whether only blanks lie between a command's last word (`end`) and the redirections
    tree-sitter hangs on it: `wc -l\\<newline>2>&1` is read by tree-sitter as `wc 2>&1` with
    `-l\\<newline>` skipped, where bash runs `wc -l2 >&1` (differential seed 473671624);
    a line continuation glued to the redirection joins it to the word before."""
    first = next((r for r in statement.named_children if r.type in REDIRECTS), None)
    if first is None or first.start_byte <= end:
        return True
    gap = src[end : first.start_byte]
    joined = gap.replace(b"\\\n", b"")
    return not joined.strip(b" \t") and (not gap or bool(joined))


def _comment(node: Node, src: bytes, via: tuple[str, ...], depth: int, ctx: Ctx) -> bool:
    """A comment of tree-sitter's after escaped blanks: glued to them, bash reads the `#` in a
    word (asked; differential seed 1720472783: `&& \\ #`); after a blank, the escaped blanks
    are a command of their own where a command starts. False once the bound is reached."""
    lead = lead_words(src, node.start_byte)
    if not lead:
        return True
    if lead[-1][1] == node.start_byte:
        return ctx.add(Run((), via, unknowable="bash reads `#` after an escaped blank as a word"))
    if src[: lead[0][0]].rstrip(b" \t")[-1:] not in (b"", b"\n", b";", b"&", b"|", b"(", b")"):
        return True  # arguments of the command before them, read with it
    words = tuple(read_word(src[a:b].decode()).fields[0][0] for a, b in lead)
    return run_argv(words, frozenset(), via, depth, ctx, no_input)
