"""The literal text a command reads on its input, should it be a shell that reads a script
there: a here-string, a here-document, or what a literal `echo`, `printf` or `cat` writes into
the pipe before it. Anything else on the input is decided at run time."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tree_sitter import Node

from shellgate.shell.bashruns.misreadings import REDIRECTS, heredoc_line_end, redirected
from shellgate.shell.bashruns.run import Ctx, Stdin
from shellgate.shell.bashruns.words import read_word
from shellgate.shell.tsbash import text


def stdin_of(node: Node, src: bytes, ctx: Ctx) -> Stdin | None:
    """The text on a command's input from its here-string, here-document or the command
    piped into it (None: the command reads no such input)."""
    redirects = [c for c in node.named_children if c.type in REDIRECTS]
    parent = node.parent
    statement = redirected(node)
    if statement is not None:
        redirects += [c for c in statement.named_children if c.type in REDIRECTS]
    found: Stdin | None = None
    for r in redirects:
        if r.type == "herestring_redirect":
            word = r.named_children[-1] if r.named_children else None
            if word is None:
                continue
            read = read_word(text(word, src), ifs_default=ctx.ifs_default)
            if any(dyn for _, dyn in read.fields):
                found = (None, "a here-string with an expansion", None)
            else:
                found = (" ".join(v for v, _ in read.fields), "<<<", None)
        elif r.type == "heredoc_redirect":
            found = _heredoc(r, src)
        elif r.type == "file_redirect":
            op = next((c.type for c in r.children if not c.is_named), "")
            target = r.child_by_field_name("destination")
            if op == "<" and target is not None and target.type == "process_substitution":
                found = (None, "input from a process substitution", None)
            elif op == "<":
                found = ("", "<", None)  # a script file: the rules judge the shell, as `sh FILE`
    if found is not None:
        return found
    statement = parent if parent is not None and parent.type == "redirected_statement" else node
    pipeline = statement.parent
    if pipeline is None or pipeline.type != "pipeline":
        return None
    stages = pipeline.named_children
    at = stages.index(statement) if statement in stages else 0
    if at:
        return _piped_text(stages[at - 1], src, ctx)
    holder = pipeline.parent  # `cat <<E | bash`: tree-sitter puts the pipeline in the heredoc
    outer = holder.parent if holder is not None else None
    if holder is None or holder.type != "heredoc_redirect" or outer is None:
        return None
    body = outer.child_by_field_name("body")
    return None if body is None else _piped_text(body, src, ctx)


def _printf(fmt: str, args: Sequence[str]) -> str | None:
    """What `printf FMT ARGS...` writes, for formats of `%s` and `\\n \\t \\\\` only (the
    format is reused while arguments remain, as printf does); None for others."""
    if re.search(r"%[^s]|%$|\\[^nt\\]|\\$", fmt):
        return None
    fmt = fmt.replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")
    parts = fmt.split("%s")
    per = len(parts) - 1
    out, rest = [], list(args)
    while True:
        taken, rest = rest[:per], rest[per:]
        out.append(parts[0])
        out += [(taken[k] if k < len(taken) else "") + part for k, part in enumerate(parts[1:])]
        if not rest or per == 0:
            return "".join(out)


def _heredoc(r: Node, src: bytes) -> Stdin:
    start = next((c for c in r.named_children if c.type == "heredoc_start"), None)
    body = next((c for c in r.named_children if c.type == "heredoc_body"), None)
    end = next((c for c in r.named_children if c.type == "heredoc_end"), None)
    delimiter = text(start, src) if start is not None else ""
    content = text(body, src) if body is not None else ""
    line_end = heredoc_line_end(r, src)
    misread = body is None or line_end is None or body.start_byte > line_end + 1
    if end is not None and line_end is not None and misread:
        # tree-sitter misreads a body that starts with a backslash (as words, or a command
        # piped into): the body is what lies between the delimiter's line and its end
        content = src[line_end + 1 : end.start_byte].decode("utf-8", "surrogateescape")
    quoted = any(q in delimiter for q in "'\"\\")
    if any(c.type == "<<-" for c in r.children):
        content = "\n".join(line.lstrip("\t") for line in content.split("\n"))
    if not quoted and any(c in content for c in "$`\\"):
        return (content, "<<", "a here-document with expansions")
    return (content, "<<", None)


def _piped_text(stage: Node, src: bytes, ctx: Ctx) -> Stdin:
    """What a pipeline stage writes, when it is literal: `echo WORDS`, `printf TEXT`, `cat`
    of a here-document or here-string."""
    unknown: Stdin = (None, "what another command writes into the pipe", None)
    command = stage
    if command.type == "redirected_statement":
        body = command.child_by_field_name("body")
        command = body if body is not None else command
    if command.type != "command":
        return unknown
    words: list[str] = []
    for child in command.named_children:
        if child.type in REDIRECTS or child.type == "variable_assignment":
            continue
        read = read_word(text(child, src), ifs_default=ctx.ifs_default)
        if any(dyn for _, dyn in read.fields):
            return unknown
        words += [v for v, _ in read.fields]
    if not words:
        return unknown
    name = words[0]
    if name == "echo":
        args = words[1:]
        while args and re.fullmatch("-[neE]+", args[0]):
            if "e" in args[0] and any("\\" in a for a in args[1:]):
                return unknown
            args = args[1:]
        return (" ".join(args), "echo |", None)
    if name == "printf" and len(words) >= 2:
        text_ = _printf(words[1], words[2:])
        return unknown if text_ is None else (text_, "printf |", None)
    if name == "cat" and len(words) == 1:
        return stdin_of(command, src, ctx) or unknown
    return unknown


def written_text(node: Node, src: bytes, ctx: Ctx) -> str | None:
    """What a command writes to its output, when it is literal (`echo`, `printf`, `cat <<EOF`):
    the text a `> FILE` after it puts in FILE (None: decided at run time)."""
    return _piped_text(node, src, ctx)[0]
