"""Commands hidden from Codex's rules, for explain's warnings (beyond Codex).

Codex matches rules against a command's words. A rule for `rm` does not see the `rm` in
`timeout 5 rm -rf x`, `xargs rm`, `sudo rm`, `bash -c 'rm x'`, `echo $(rm x)`, nor what a
redirection writes. `hidden_commands(argv)` lists such inner commands and what hides each,
so explain can warn "the decision rests on `timeout`; it runs `rm -rf x`". It never changes a
decision and never raises.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from tree_sitter import Node

from shellgate.shell.dangerous import trap_action
from shellgate.shell.detect import is_posix_shell
from shellgate.shell.paths import executable_name_lookup_key
from shellgate.shell.quote import split as shlex_split
from shellgate.shell.split import extract_shell_script, try_parse_word_only_commands_sequence
from shellgate.shell.tsbash import literal_word, parse, text

MAX_DEPTH = 8


class Concealment(Enum):
    WRAPPER = "wrapper"  # a program that runs its arguments: timeout, nice, xargs, env, sudo
    SHELL = "shell"  # shell source in an argument: bash -c, sh -c, eval, trap, find -exec sh
    SUBSTITUTION = "substitution"  # $(...), `...`, <(...), >(...)
    REDIRECTION = "redirection"  # a command's output or input redirected to a file
    HEREDOC = "heredoc"  # a command reading a here-document
    SCRIPT = "script"  # a command inside a script Codex evaluates as one whole argv


@dataclass(frozen=True)
class HiddenCommand:
    """A command that runs inside another where Codex's rules do not look."""

    concealment: Concealment
    via: str  # what hides it: the wrapper's name, `$(...)`, `>`, ...
    command: tuple[str, ...]  # the inner command's literal words (empty if all dynamic)
    detail: str = ""  # e.g. a redirection's target


# Per wrapper: options that take a value (separately or attached), and how many positional
# words precede the command (timeout's DURATION, chroot's NEWROOT, ...).
@dataclass(frozen=True)
class _Wrapper:
    """How a wrapper's own options and positional words precede the command it runs."""

    valued: frozenset[str] = frozenset()
    positional: int = 0


def _w(valued: str = "", positional: int = 0) -> _Wrapper:
    return _Wrapper(frozenset(valued.split()), positional)


_WRAPPERS: dict[str, _Wrapper] = {
    "sudo": _w("-u -g -C -D -h -p -r -t -U -T -R --user --group --chdir --host --prompt"),
    "doas": _w("-u -C"),
    "env": _w("-u --unset -C --chdir -S --split-string"),
    "timeout": _w("-s --signal -k --kill-after", positional=1),
    "nice": _w("-n --adjustment"),
    "ionice": _w("-c --class -n --classdata"),
    "nohup": _w(),
    "stdbuf": _w("-i -o -e --input --output --error"),
    "time": _w("-f --format -o --output"),
    "command": _w(),
    "exec": _w("-a"),
    "xargs": _w(
        "-a --arg-file -d --delimiter -E -I -L -n --max-args -P --max-procs -s --max-chars"
        " --process-slot-var"
    ),
    "setsid": _w(),
    "chroot": _w("--userspec --groups", positional=1),
    "taskset": _w(positional=1),
    "flock": _w("-w --timeout -E --conflict-exit-code", positional=1),
    "watch": _w("-n --interval -q --equexit"),  # runs `sh -c` of its words unless -x
    "strace": _w("-e -o -p -s -u -E -P -a -b -X -O -S"),
    "ltrace": _w("-e -o -p -s -u -a -l -n -w -x -A -D -F"),  # -L is a flag (GTFOBins)
    "unbuffer": _w(),
    "builtin": _w(),
    "coproc": _w(),  # tree-sitter reads the bash keyword as a command name
    "runuser": _w("-u --user -g --group -G --supp-group -w --whitelist-environment"),
    "chrt": _w("-T --sched-runtime -P --sched-period -D --sched-deadline", positional=1),
    "unshare": _w(
        "-S --setuid -G --setgid -R --root -w --wd --map-user --map-group"
        " --propagation --setgroups --map-users --map-groups"
    ),
    "nsenter": _w("-t --target -S --setuid -G --setgid"),
    "prlimit": _w("-p --pid"),
    "pkexec": _w("--user"),
    "cgexec": _w("-g"),
    "numactl": _w("-i -m -N -C -p --interleave --membind --cpunodebind --physcpubind --preferred"),
    "systemd-run": _w(
        "-u --unit -p --property -M --machine --description --slice -E"
        " --setenv --uid --gid --nice -G --working-directory"
    ),
    "xvfb-run": _w(
        "-n --server-num -s --server-args -e --error-file -f --auth-file -p --xauth-protocol"
    ),
    "faketime": _w(positional=1),
    "firejail": _w(),
    "fakeroot": _w("-l --lib --faked -s -i"),
    "eatmydata": _w(),
    "torsocks": _w("-u -p -a -P"),
    "proxychains": _w("-f"),
    "proxychains4": _w("-f"),
    "dbus-run-session": _w("--config-file --dbus-daemon"),
    "catchsegv": _w(),
    "chronic": _w(),
    "valgrind": _w(),
}
RUNNERS = frozenset(_WRAPPERS)  # the programs `unwrap` reads a command out of
_SHELL_FLAGS_WITH_SCRIPT = ("-c", "-lc", "-ic", "-lic", "-ilc")
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_DASH_C = frozenset({"su", "script", "flock"})  # `-c SRC`: shell source, not an argv
_NO_EXEC = {"command": ("-v", "-V")}  # `command -v x` only looks `x` up
# Assignments before the command: env(1) and sudo(8) take any `NAME=VALUE` word; after the bash
# keywords `coproc` and `time` (tree-sitter reads them as command names) `A=1 rm` is a simple
# command with an assignment, so bash runs `rm` (differential seed 1987506524).
BASH_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[.*\])?\+?=")  # `A=1`, `B[0]=2`, `C+=3`
_ASSIGNS = dict.fromkeys(("env", "sudo"), re.compile(r"(?!-)[^=]*="))
_ASSIGNS |= dict.fromkeys(("coproc", "time"), BASH_ASSIGNMENT)
# The programs _visit_argv looks into by name (besides the POSIX shells, matched by spelling).
_LOOKED_INTO = frozenset({*_WRAPPERS, *_DASH_C, "eval", "trap", "find"})


def hidden_commands(argv: Sequence[str]) -> tuple[HiddenCommand, ...]:
    """What `argv` runs that Codex's rules never see, outermost first."""
    found: list[HiddenCommand] = []
    _visit_argv(list(argv), found, 0)  # recursion is bounded by MAX_DEPTH
    return tuple(found)


def unwrap(argv: Sequence[str]) -> tuple[str, list[str]] | None:
    """`(wrapper, inner argv)` when argv[0] is a known wrapper with a command to run."""
    if not argv:
        return None
    name = executable_name_lookup_key(argv[0])
    spec = _WRAPPERS.get(name or "")
    if name is None or spec is None:
        return None
    if any(a in _NO_EXEC.get(name, ()) for a in argv[1:2]):
        return None
    if name == "flock" and flock_source(argv) is not None:
        return None  # `flock FILE -c SRC` runs shell source: see _shell_source_argument
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            i += 1
            break
        if name == "env" and arg.startswith(("-S", "--split-string")):
            return _env_split_string(argv, i)
        if name in _ASSIGNS and _ASSIGNS[name].match(arg):
            i += 1
        elif name == "nice" and arg[:1] == "-" and arg[1:].lstrip("-").isdigit():
            i += 1  # the old `nice -10 cmd` form
        elif arg.startswith("-") and arg != "-":
            option = arg.split("=", 1)[0]
            takes_value = option in spec.valued and "=" not in arg
            i += 2 if takes_value else 1
        else:
            break
    i += spec.positional
    inner = list(argv[i:])
    if not inner:
        return None
    return name, inner


_FLOCK_VALUED = frozenset({"-w", "--timeout", "--wait", "-E", "--conflict-exit-code"})


def flock_source(argv: Sequence[str]) -> int | None:
    """The index of the shell source in `flock [options] FILE -c SRC` (flock(1) reads `-c`
    or `--command` only right after the lock file; its options end at the first operand)."""
    i = 1
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        arg = argv[i]
        if arg == "--":
            i += 1
            break
        valued = arg in _FLOCK_VALUED or (
            not arg.startswith("--") and any(c in "wE" for c in arg[1:]) and arg[-1] in "wE"
        )
        i += 2 if valued else 1
    at = i + 1  # past the lock file
    if at + 1 < len(argv) and argv[at] in ("-c", "--command"):
        return at + 1
    return None


def _env_split_string(argv: Sequence[str], i: int) -> tuple[str, list[str]] | None:
    """`env -S "cmd args" more...`: the option's value is split into the command line."""
    arg = argv[i]
    if arg in ("-S", "--split-string"):
        value, rest = (argv[i + 1] if i + 1 < len(argv) else ""), argv[i + 2 :]
    else:
        value, rest = (arg.split("=", 1)[1] if "=" in arg else arg[2:]), argv[i + 1 :]
    inner = [word for word in [*(shlex_split(value) or [value]), *rest] if word]
    return ("env", inner) if inner else None


def _visit_argv(argv: list[str], found: list[HiddenCommand], depth: int) -> None:
    if depth > MAX_DEPTH or not argv:
        return
    if executable_name_lookup_key(argv[0]) not in _LOOKED_INTO and not is_posix_shell(argv[0]):
        return  # most commands: nothing below looks into them
    script = _shell_script(argv)
    if script is not None:
        via = " ".join(argv[:2]) if len(argv) >= 2 else argv[0]
        # Codex splits only the outermost `bash -lc` (exactly three words) into segments.
        top = depth == 0 and extract_shell_script(argv) is not None
        _visit_script(script, via, found, depth + 1, top=top)
        return
    unwrapped = unwrap(argv)
    if unwrapped is not None:
        wrapper, inner = unwrapped
        found.append(HiddenCommand(Concealment.WRAPPER, wrapper, tuple(inner)))
        _visit_argv(inner, found, depth + 1)
        return
    name = executable_name_lookup_key(argv[0])
    source = _shell_source_argument(name, argv)
    if source is not None:
        via = f"{name} -c" if name in _DASH_C else str(name)
        _visit_script(source, via, found, depth + 1, top=False)
    elif name == "find":
        _visit_find(argv, found, depth)


def _shell_source_argument(name: str | None, argv: list[str]) -> str | None:
    """Shell source a program runs: `eval ARGS`, `trap ACTION`, `su -c SRC`, `script -c SRC`,
    `flock FILE -c SRC`."""
    if name == "eval" and len(argv) > 1:
        return " ".join(argv[1:])
    if name == "trap":
        return trap_action(argv)
    if name == "flock":
        at = flock_source(argv)
        return None if at is None else argv[at]
    if name in _DASH_C:
        for i in range(1, len(argv) - 1):
            if argv[i] in ("-c", "--command"):
                return argv[i + 1]
    return None


def _shell_script(argv: list[str]) -> str | None:
    """The script of `bash -c SCRIPT` style argv, also with leading options (`bash -e -c`)."""
    if not is_posix_shell(argv[0]):
        return None
    for i in range(1, len(argv) - 1):
        if argv[i] in _SHELL_FLAGS_WITH_SCRIPT:
            return argv[i + 1]
        if not argv[i].startswith("-"):
            return None
    return None


def _visit_find(argv: list[str], found: list[HiddenCommand], depth: int) -> None:
    i = 0
    while i < len(argv):
        if argv[i] in _FIND_EXEC:
            end = i + 1
            while end < len(argv) and argv[end] not in (";", "+"):
                end += 1
            inner = argv[i + 1 : end]
            if inner:
                found.append(HiddenCommand(Concealment.WRAPPER, f"find {argv[i]}", tuple(inner)))
                _visit_argv(inner, found, depth + 1)
            i = end
        i += 1


def _visit_script(
    script: str, via: str, found: list[HiddenCommand], depth: int, *, top: bool
) -> None:
    """A script's commands. At the top (`bash -lc`, which Codex splits when plain) a plain
    script hides only what its commands wrap; anywhere else every command is hidden."""
    plain = try_parse_word_only_commands_sequence(script)
    if plain is not None:
        for command in plain:
            if not top:
                found.append(HiddenCommand(Concealment.SHELL, via, tuple(command)))
            _visit_argv(command, found, depth)
        return
    parsed = parse(script)
    if parsed is None or parsed[0].root_node.has_error:
        return  # opaque, as to Codex
    tree, src = parsed
    stack: list[tuple[Node, Concealment, str]] = [
        (tree.root_node, Concealment.SCRIPT if top else Concealment.SHELL, via)
    ]
    while stack:
        node, how, by = stack.pop()
        kind = node.type
        if kind == "command":
            words = _command_words(node, src)
            found.append(HiddenCommand(how, by, words))
            found.extend(_redirection(r, words, src) for r in _redirects_of(node))
            if words:
                _visit_argv(list(words), found, depth)
        elif kind in _REDIRECTS and _owner(node) is None:  # `{ ls; } > f`
            found.append(_redirection(node, (), src))
        elif kind in ("command_substitution", "process_substitution"):
            opening = node.children[0].type if node.children else "$("
            how, by = Concealment.SUBSTITUTION, "`...`" if opening == "`" else f"{opening}...)"
        stack.extend((child, how, by) for child in reversed(node.named_children))


_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})


def _command_words(command: Node, src: bytes) -> tuple[str, ...]:
    """The literal words of a command (its name included when literal), in order."""
    words: list[str] = []
    for child in command.named_children:
        if child.type == "command_name" and child.named_child_count:
            child = child.named_children[0]
        elif child.type in _REDIRECTS or child.type == "variable_assignment":
            continue
        word = literal_word(child, src)
        if word is not None:
            words.append(word)
    return tuple(words)


def _owner(redirect: Node) -> Node | None:
    """The command a redirection belongs to, if it belongs to a single command."""
    owner = redirect.parent
    while owner is not None and owner.type == "heredoc_redirect":  # `cat <<E > f`
        owner = owner.parent
    if owner is not None and owner.type == "redirected_statement":
        owner = owner.child_by_field_name("body")
    return owner if owner is not None and owner.type == "command" else None


def _redirects_of(command: Node) -> list[Node]:
    """A command's redirections in source order: its own, and its statement's."""
    nodes = list(command.named_children)
    statement = command.parent
    if statement is not None and statement.type == "redirected_statement":
        nodes += statement.named_children
    found: list[Node] = []
    for node in nodes:
        if node.type in _REDIRECTS:
            found.append(node)
            found += [c for c in node.named_children if c.type in _REDIRECTS]
    return [node for node in found if _owner(node) == command]


def _redirection(node: Node, words: tuple[str, ...], src: bytes) -> HiddenCommand:
    operator = next((c.type for c in node.children if not c.is_named), ">")
    if node.type == "heredoc_redirect":
        start = next((c for c in node.named_children if c.type == "heredoc_start"), None)
        delimiter = text(start, src).strip("'\"") if start is not None else ""
        return HiddenCommand(Concealment.HEREDOC, operator, words, delimiter)
    target = node.child_by_field_name("destination")
    if target is None:
        target = next(
            (c for c in reversed(node.named_children) if c.type != "file_descriptor"), None
        )
    detail = "" if target is None else literal_word(target, src) or text(target, src)
    return HiddenCommand(Concealment.REDIRECTION, operator, words, detail)
