"""What a command gets from the script before it, for what programs run (shell.programs): its
environment (its own `VAR=v cmd`, what the script exported earlier: `export`, `declare -x`,
`NAME=v; export NAME`, `set -a`; `env VAR=v cmd` and `sudo VAR=v cmd` are the runners') and the
files the script wrote earlier (`echo TEXT > FILE`, `cat > FILE <<EOF`, `tee`, `cp`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from tree_sitter import Node

from shellgate.shell.bashruns.misreadings import REDIRECTS, redirected
from shellgate.shell.bashruns.run import Ctx
from shellgate.shell.bashruns.stdin import written_text
from shellgate.shell.bashruns.words import read_word
from shellgate.shell.programs import ENVIRONMENT
from shellgate.shell.programs.files import norm
from shellgate.shell.tsbash import text

Env = Mapping[str, str | None]  # name -> value; None: bash decides it at run time
NO_ENV: Env = MappingProxyType({})
_ENV_WORD = re.compile(r"([^=\s-][^=\s]*)=(.*)", re.DOTALL)


def hands_env(env: Env) -> bool:
    """Whether a variable in `env` may make a program run or load code."""
    return any(v in ENVIRONMENT or v.startswith("BASH_FUNC_") for v in env)


def assignments(
    words: tuple[str, ...], start: int, end: int, dynamic: frozenset[int], env: Env
) -> Env:
    """`env` with the `NAME=VALUE` words of `words[start:end]` (env's, sudo's) added."""
    added: dict[str, str | None] = {}
    for k in range(start, end):
        m = _ENV_WORD.fullmatch(words[k])
        if m is not None:
            added[m.group(1)] = None if k in dynamic else m.group(2)
    return {**env, **added} if added else env


def _assigned(node: Node, src: bytes, ctx: Ctx) -> tuple[str, str | None] | None:
    """A `variable_assignment`'s name and value (None: decided at run time)."""
    name = node.child_by_field_name("name")
    if name is None:
        return None
    value = node.child_by_field_name("value")
    if value is None:
        return text(name, src), ""
    fields = read_word(text(value, src), ifs_default=ctx.ifs_default).fields
    literal = not any(dyn for _, dyn in fields)
    return text(name, src), " ".join(v for v, _ in fields) if literal else None


def environment(node: Node, src: bytes, ctx: Ctx) -> Env:
    """The variables a command gets: those exported earlier, and its own assignments."""
    own: dict[str, str | None] = {}
    for child in node.children:
        if child.type == "variable_assignment":
            pair = _assigned(child, src, ctx)
            if pair is not None:
                own[pair[0]] = pair[1]
    if not own:
        return ctx.exported or NO_ENV
    return {**ctx.exported, **own}


def declared(node: Node, src: bytes, ctx: Ctx) -> None:
    """Track `export NAME=VALUE`, `declare -x`, `NAME=VALUE; export NAME` (and `set -a`,
    which `runners` notes)."""
    if node.type == "variable_assignment":
        parent = node.parent
        if parent is not None and parent.type in ("command", "declaration_command"):
            return  # a command's own (see `environment`), or a declaration's (below)
        pair = _assigned(node, src, ctx)
        if pair is not None:
            ctx.assigned[pair[0]] = pair[1]
            if ctx.allexport or pair[0] in ctx.exported:
                ctx.exported[pair[0]] = pair[1]
        return
    head = text(node.children[0], src) if node.children else ""
    flags = [text(c, src) for c in node.children[1:] if c.type == "word"]
    if head != "export" and not any(f.startswith("-") and "x" in f for f in flags):
        return
    for child in node.children[1:]:
        if child.type == "variable_assignment":
            pair = _assigned(child, src, ctx)
            if pair is not None:
                ctx.exported[pair[0]] = pair[1]
        elif child.type in ("variable_name", "word") and not text(child, src).startswith("-"):
            name = text(child, src)
            if name in ctx.assigned:
                ctx.exported[name] = ctx.assigned[name]


_WRITES = frozenset({">", ">>", ">|", "&>", "&>>"})
MAX_WRITTEN = 64  # files remembered a script (past that: the first ones)


def record_writes(node: Node, src: bytes, ctx: Ctx) -> None:
    """The files a command's redirections write, with the text when it is literal."""
    redirects = [c for c in node.named_children if c.type in REDIRECTS]
    statement = redirected(node)
    if statement is not None:
        redirects += [c for c in statement.named_children if c.type in REDIRECTS]
    for r in redirects:
        if r.type != "file_redirect":
            continue
        op = next((c.type for c in r.children if not c.is_named), "")
        target = r.child_by_field_name("destination")
        if op not in _WRITES or target is None:
            continue
        fields = read_word(text(target, src), ifs_default=ctx.ifs_default).fields
        if len(fields) != 1 or fields[0][1] or fields[0][0].startswith("/dev/"):
            continue
        path = norm(fields[0][0])
        written = written_text(statement or node, src, ctx)
        if op.endswith(">>") and path in ctx.written:
            before = ctx.written[path]
            written = None if before is None or written is None else before + "\n" + written
        if len(ctx.written) < MAX_WRITTEN or path in ctx.written:
            ctx.written[path] = written
