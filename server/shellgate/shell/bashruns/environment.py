"""The environment a command gets, for what programs run (shell.programs): its own `VAR=v cmd`,
and what the script exported earlier (`export`, `declare -x`, `NAME=v; export NAME`, `set -a`).
`env VAR=v cmd` and `sudo VAR=v cmd` are the runners' (`runners.Command.inner`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from tree_sitter import Node

from shellgate.shell.bashruns.run import Ctx
from shellgate.shell.bashruns.words import read_word
from shellgate.shell.programs import ENVIRONMENT
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
