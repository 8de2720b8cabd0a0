"""The environment that makes a program run or load code, whatever the program: `BASH_ENV`
(bash sources the file first), `LD_PRELOAD`, an exported function `BASH_FUNC_name%%`, `PAGER`,
`EDITOR`, `GIT_SSH_COMMAND`, ... given as `VAR=… cmd`, through `env VAR=… cmd`, or exported
earlier in the same script (bash_runs tracks them). A program's own variables
(`RESTIC_PASSWORD_COMMAND`) are its table row's.
"""

from __future__ import annotations

import re

from shellgate.shell.programs.handed import Environment, Handed
from shellgate.shell.programs.table import ENVIRONMENT_TABLE, Hand, Way

# Read only by some programs: `ENV` and `PROMPT_COMMAND` by shells, `PYTHONSTARTUP` by Python
# (`ENV=production npm start` is an ordinary command, not a script sourced).
_ONLY = {
    "ENV": frozenset(
        {"sh", "dash", "bash", "ash", "ksh", "mksh", "posh", "yash", "zsh", "busybox"}
    ),
    "PROMPT_COMMAND": frozenset({"bash", "sh"}),
    "PYTHONSTARTUP": frozenset({"python", "python3", "python2", "pypy", "pypy3"}),
}
_PERL5OPT_LOADS = re.compile(r"(?:^|\s)-[A-Za-z]*[MmdI]")
_NODE_LOADS = re.compile(r"(?:^|\s)(?:-r|--require|--import|--loader|--experimental-loader)\b")
_HOW = "in its environment"
_FUNCTION = re.compile(r"BASH_FUNC_(.+?)(?:%%|\(\))\Z")


def read(name: str, env: Environment, own: dict[str, Way] | None = None) -> list[Handed]:
    """What the variables in `env` make the program `name` run or load."""
    out: list[Handed] = []
    for var, value in env.items():
        way = (own or {}).get(var) or ENVIRONMENT_TABLE.get(var)
        function = _FUNCTION.match(var)
        if way is None and function is None:
            continue
        if var in _ONLY and name not in _ONLY[var]:
            continue
        if value is None:
            out.append(Handed(var, _HOW, runtime=f"`{var}`, set to a value decided at run time"))
            continue
        if not value.strip():
            continue
        if function is not None:
            out.append(_function(var, function.group(1), value))
        elif way is not None:
            out += _value(var, way, value)
    return out


def _function(var: str, fname: str, value: str) -> Handed:
    """An exported function: bash defines `fname` from `() { body }` and runs its body."""
    how = f"the function `{fname}` exported in `{var}`"
    if value.startswith("()"):
        return Handed(var, how, shell=value[2:])
    return Handed(var, how, runtime=f"`{var}` holds `{value[:40]}`")


def _value(var: str, way: Way, value: str) -> list[Handed]:
    if way.hand is Hand.SHELL:
        if var in ("LESSOPEN", "LESSCLOSE"):  # `|cmd %s`, `||cmd %s`, `cmd %s`: %s the file
            value = value.lstrip("|-").replace("%s", "FILE")
        return [Handed(var, _HOW, shell=value)]
    if way.hand is Hand.ARGV:
        return [Handed(var, _HOW, argv=(value,))]
    if way.hand is Hand.CODE:
        from shellgate.shell.programs.commands import code_of  # deferred: rare

        return code_of(way.language, value, var, _HOW)
    if way.language == "perl5opt" and not _PERL5OPT_LOADS.search(value):
        return []
    if way.language == "node_options" and not _NODE_LOADS.search(value):
        return []
    if way.hand is Hand.FILE:
        return [
            Handed(var, _HOW, runtime=f"`{var}` makes it read `{value}` (a file, read at run time)")
        ]
    return [Handed(var, _HOW, runtime=f"`{var}` makes it load `{value}` (code loaded at run time)")]
