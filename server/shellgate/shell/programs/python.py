"""Inline Python (`python3 -c CODE`), read with Python's own `ast`.

The calls that run a command: `os.system`, `os.popen`, `subprocess.*`, `os.exec*`, `os.spawn*`,
`os.posix_spawn*`, `pty.spawn`, `asyncio.create_subprocess_*`, whether reached as
`os.system`, `import os as o; o.system`, `from os import system` or `__import__("os").system`;
and `exec`/`eval` of a literal string, read in turn. A literal string command is judged as
shell source (an argv's single string too: stricter), a list or tuple of literals as an argv;
anything else is decided at run time. Code that calls none of them hands nothing over.
"""

from __future__ import annotations

import ast

from shellgate.shell.programs.handed import Handed

_SHELL = {"os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput",
          "asyncio.create_subprocess_shell", "commands.getoutput", "platform.popen",
          "os.popen2", "os.popen3", "os.popen4"}  # fmt: skip
_SUBPROCESS = {"subprocess.run", "subprocess.call", "subprocess.check_call",
               "subprocess.check_output", "subprocess.Popen"}  # fmt: skip
_MODULES = ("os", "subprocess", "pty", "asyncio", "commands", "platform", "posix")
MAX_DEPTH = 4  # exec("exec('...')") nesting read


def read(code: str, program: str, how: str, depth: int = 0) -> list[Handed]:
    """The commands inline Python `code` runs."""
    if not any(m in code for m in (*_MODULES, "exec", "eval", "__import__")):
        return []  # the common case: no module that runs commands is named
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []  # Python itself refuses it: it runs nothing
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                top = a.name.split(".")[0]
                aliases[a.asname or top] = a.name if a.asname else top
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    out: list[Handed] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func, aliases)
        if name is None:
            continue
        said = f"{how}, `{name}`"
        if name in ("exec", "eval", "builtins.exec", "builtins.eval"):
            text = _const(node.args[0]) if node.args else None
            if text is not None and depth < MAX_DEPTH:
                out += read(text, program, how, depth + 1)
            elif node.args:
                out.append(Handed(program, said, runtime="python runs code built at run time"))
            continue
        hand = _hand(name, node)
        if hand is None:
            continue
        shell, argv = hand
        if shell is not None:
            out.append(Handed(program, said, shell=shell))
        elif argv is not None:
            out.append(Handed(program, said, argv=argv))
        else:
            why = f"python's `{name}` runs a command built at run time"
            out.append(Handed(program, said, runtime=why))
    return out


def _dotted(func: ast.expr, aliases: dict[str, str]) -> str | None:
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(aliases.get(func.id, func.id))
    elif (
        isinstance(func, ast.Call)
        and isinstance(func.func, ast.Name)
        and func.func.id in ("__import__", "import_module")
        and func.args
    ):
        module = _const(func.args[0])
        if module is None:
            return None
        parts.append(module)
    else:
        return None
    return ".".join(reversed(parts))


def _const(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _seq(node: ast.expr) -> tuple[str, ...] | None:
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_const(e) for e in node.elts]
        if all(i is not None for i in items):
            return tuple(i for i in items if i is not None)
    return None


_Hand = tuple[str | None, tuple[str, ...] | None]


def _hand(name: str, call: ast.Call) -> _Hand | None:
    """(shell, argv) for a call that runs a command, (None, None) when it is built at run
    time; None for any other call."""
    args = call.args
    if name in _SHELL:
        return (_const(args[0]) if args else None), None
    if name in _SUBPROCESS or name.startswith("asyncio.create_subprocess_exec"):
        first = args[0] if args else next((k.value for k in call.keywords if k.arg == "args"), None)
        if first is None:
            return None, None
        if name.startswith("asyncio"):
            items = [_const(a) for a in args]
            return (None, tuple(i for i in items if i is not None)) if all(items) else (None, None)
        text = _const(first)
        return (text, None) if text is not None else (None, _seq(first))
    short = name.rsplit(".", 1)[-1]
    module = name.rsplit(".", 1)[0] if "." in name else ""
    if module in ("os", "posix") and short.startswith(("exec", "spawn", "posix_spawn")):
        skip = 1 if short.startswith("spawn") else 0  # spawn*(mode, path, ...)
        rest = args[skip:]
        if not rest:
            return None, None
        path = _const(rest[0])
        if short.endswith(("v", "ve", "vp", "vpe")) or short.startswith("posix_spawn"):
            argv = _seq(rest[1]) if len(rest) > 1 else ()
            if path is None or argv is None:
                return None, None
            return None, (path, *argv[1:])
        items = [_const(a) for a in rest[2:] if not (short.endswith("e") and a is rest[-1])]
        if path is None or not all(i is not None for i in items):
            return None, None
        return None, (path, *(i for i in items if i is not None))
    if name == "pty.spawn":
        if not args:
            return None, None
        text = _const(args[0])
        return (None, (text,)) if text is not None else (None, _seq(args[0]))
    return None
