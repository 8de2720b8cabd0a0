"""Spellings of forbidden commands: the generated corpus of the evasion tests (issue 18).

`generate(n, seed)` draws `n` scripts, each one forbidden command (`rm -rf x`, `curl -s URL`,
`git push origin main`, `dd ...`, `chmod -R 000 x`) spelled as bash could be made to run it:
its words quoted or escaped (or its name given as a path, a glob, a parameter or a command
substitution, which bash decides at run time and ShellGate must ask about), then wrapped in
one to three layers drawn from the compounds, the runners that execute their arguments, the
shells handed a script, and (for git) the options before the subcommand, nested in any order
where bash's grammar allows. The first
spellings force each kind once, so a run covers every kind (`KINDS`); the rest are random.
Whether bash really runs the forbidden program is not assumed: bash_truth records it.
"""

from __future__ import annotations

import random
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

# (key, argv): the key names the forbidden program as the rules do.
TARGETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("rm", ("rm", "-rf", "x")),
    ("curl", ("curl", "-s", "http://127.0.0.1:9/i")),
    ("git push", ("git", "push", "origin", "main")),
    ("dd", ("dd", "if=/dev/zero", "of=y", "count=1")),
    ("chmod", ("chmod", "-R", "000", "x")),
)

# The rules every front end is given: each target forbidden.
RULES = "".join(
    f'prefix_rule(pattern={list(key.split())!r}, decision="forbidden", '
    f'justification="{key} is forbidden here")\n'.replace("'", '"')
    for key, _ in TARGETS
)


def _hex(w: str) -> str:
    return "$'" + f"\\x{ord(w[0]):02x}" + w[1:] + "'"


# Quoting and escapes of one word (the program's name, or git's subcommand).
WORD_KINDS: dict[str, Callable[[str], str]] = {
    "escape-lead": lambda w: "\\" + w,  # \rm
    "escape-mid": lambda w: w[0] + "\\" + w[1:],  # r\m
    "double-quotes": lambda w: f'"{w}"',  # "rm"
    "single-quotes-part": lambda w: f"'{w[0]}'{w[1:]}",  # 'r'm
    "ansi-c": lambda w: f"$'{w}'",  # $'rm'
    "ansi-c-hex": _hex,  # $'\x72m'
    "locale": lambda w: f'$"{w}"',  # $"rm"
    # decided at run time: bash runs the program, ShellGate cannot know it before (asks)
    "param-default": lambda w: f"${{X:-{w}}}",  # ${X:-rm}
    "command-substitution": lambda w: f"$(echo {w})",  # $(echo rm)
    "backticks": lambda w: f"`echo {w}`",  # `echo rm`
    "absolute-path": lambda w: f"/usr/bin/{w}",
    "glob": lambda w: f"/usr/bin/{w[:-1]}[{w[-1]}]",  # /usr/bin/r[m]
}
NAME_ONLY = frozenset({"absolute-path", "glob"})  # not for git's subcommand
# Spellings of the whole command line.
LINE_KINDS: dict[str, Callable[[list[str]], str]] = {
    "brace": lambda ws: "{" + ",".join(ws) + "}",  # {rm,-rf,x}
    "ifs": lambda ws: "${IFS}".join(ws),  # rm${IFS}-rf${IFS}x
}
GIT_OPTIONS = {
    "git-C": ["-C", "."],
    "git-c": ["-c", "color.ui=never"],
    "git-no-pager": ["--no-pager"],
}


@dataclass
class State:
    text: str
    simple: bool  # one simple command: a runner can take it as its arguments
    bare: bool  # the target alone (an applet name for busybox)
    depth: int = 0


def _body(t: str) -> str:
    """`t` ready to be followed by a reserved word (`fi`, `done`, `}`)."""
    return t if t.endswith(("\n", "&")) else t + ";"


def _spaced(t: str) -> str:
    """`t` ready to be followed by an operator such as `)` or `;;`."""
    return t if t.endswith("\n") else t + " "


def _function(r: random.Random, s: State) -> str:
    name = f"f{s.depth}"
    return r.choice([f"{name}() {{ {_body(s.text)} }}; {name}",
                     f"function {name} {{ {_body(s.text)} }}\n{name}"])  # fmt: skip


def _q(t: str) -> str:
    return shlex.quote(t)


Layer = Callable[[random.Random, State], State]


def _compound(f: Callable[[random.Random, State], str]) -> Layer:
    return lambda r, s: State(f(r, s), False, False, s.depth + 1)


def _runner(*prefixes: str) -> Layer:
    return lambda r, s: State(r.choice(prefixes) + s.text, True, False, s.depth + 1)


def _simple(f: Callable[[random.Random, State], str]) -> Layer:
    return lambda r, s: State(f(r, s), True, False, s.depth + 1)


def _shell(r: random.Random) -> str:
    return r.choice(["sh", "bash", "dash"])


def _pipeline(r: random.Random, s: State) -> str:
    if s.text.endswith(("\n", "&")) or r.random() < 0.5:
        return r.choice(["echo x | ", "true | ", "cat /dev/null | "]) + s.text
    return s.text + r.choice([" | cat", " | true", " |& cat"])


def _heredoc(r: random.Random, s: State) -> str:
    end = f"EOF{s.depth}"
    quoted = r.choice([f"'{end}'", end, f'"{end}"'])
    head = r.choice([_shell(r) + " <<", "bash -s <<", "sh -s <<"])
    text = s.text if s.text.endswith("\n") else s.text + "\n"
    return f"{head}{quoted}\n{text}{end}\n"


# Layers, by kind. Those needing a simple command as their argument are in NEEDS_SIMPLE.
LAYERS: dict[str, Layer] = {
    # compounds
    "subshell": _compound(lambda r, s: f"( {_spaced(s.text)})"),
    "group": _compound(lambda r, s: f"{{ {_body(s.text)} }}"),
    "if": _compound(lambda r, s: f"if true; then {_body(s.text)} fi"),
    "for": _compound(lambda r, s: f"for i in 1; do {_body(s.text)} done"),
    "while": _compound(lambda r, s: f"while :; do {_body(s.text)} break; done"),
    "case": _compound(lambda r, s: f"case a in a) {_spaced(s.text)};; esac"),
    "bang": _compound(lambda r, s: "! " + s.text),
    "function": _compound(_function),
    "background": _compound(lambda r, s: f"{{ {s.text}}} &" if s.text.endswith("\n")
                            else s.text + " &"),
    "pipeline": _compound(_pipeline),
    "coproc": _compound(lambda r, s: "coproc " + s.text),
    "time": _compound(lambda r, s: r.choice(["time ", "time -p "]) + s.text),
    # assignments before a simple command (`coproc A=1 rm`, `sudo A=1 rm` run rm)
    "assign": _runner("A=1 ", "A=1 B=2 ", "X+=y "),
    # runners
    "command": _runner("command ", "command -- "),
    "builtin": _runner("builtin command ", "builtin exec "),
    "exec": _runner("exec ", "exec -a x "),
    "env": _runner("env ", "env -i ", "env A=1 ", "env -u HOME ", "env -- ", "env -i A=1 -- "),
    "nohup": _runner("nohup "),
    "nice": _runner("nice ", "nice -n 5 ", "nice -5 "),
    "timeout": _runner("timeout 5 ", "timeout -s KILL 9 ", "timeout --preserve-status 5 "),
    "setsid": _runner("setsid ", "setsid -w "),
    "stdbuf": _runner("stdbuf -o0 ", "stdbuf -oL -eL "),
    "sudo": _runner("sudo ", "sudo -u root ", "sudo -E -- ", "doas "),
    "xargs": _simple(lambda r, s: r.choice(["xargs ", "xargs -0 "]) + s.text + " </dev/null"),
    "find-exec": _simple(lambda r, s: "find . -maxdepth 0 -exec " + s.text
                         + r.choice([" \\;", " ';'", " {} +"])),
    "find-execdir": _simple(lambda r, s: "find . -maxdepth 0 -execdir " + s.text + " \\;"),
    "find-ok": _compound(lambda r, s: "yes | find . -maxdepth 0 " + r.choice(["-ok ", "-okdir "])
                         + s.text + " \\;"),
    "busybox": _runner("busybox ", "toybox "),
    "watch": _runner("watch ", "watch -n 1 ", "watch -x "),
    "flock": _runner("flock .lock ", "flock -w 1 .lock "),
    "script-c": _simple(lambda r, s: f"script -qc {_q(s.text)} /dev/null"),
    "su-c": _simple(lambda r, s: r.choice([f"su -c {_q(s.text)}", f"su root -c {_q(s.text)}"])),
    # shells handed a script
    "sh-c": _simple(lambda r, s: f"sh -c {_q(s.text)}"),
    "bash-c": _simple(lambda r, s: r.choice(["bash -c ", "bash -lc "]) + _q(s.text)),
    "dash-c": _simple(lambda r, s: f"dash -c {_q(s.text)}"),
    "busybox-sh-c": _simple(lambda r, s: f"busybox sh -c {_q(s.text)}"),
    "herestring": _simple(lambda r, s: f"{_shell(r)} <<< {_q(s.text)}"),
    "heredoc": _compound(_heredoc),
    "pipe-to-shell": _compound(lambda r, s: r.choice([f"echo {_q(s.text)} | ",
                                                      f"printf '%s\\n' {_q(s.text)} | "])
                               + _shell(r)),
    "eval": _compound(lambda r, s: r.choice([f"eval {_q(s.text)}", "eval " + s.text])),
    "source-procsub": _compound(lambda r, s: r.choice(["source", "."])
                                + f" <(echo {_q(s.text)})"),
    "bash-procsub": _simple(lambda r, s: f"{r.choice(['bash', 'sh'])} <(echo {_q(s.text)})"),
}  # fmt: skip
NEEDS_SIMPLE = frozenset({"assign", "command", "builtin", "exec", "env", "nohup", "nice", "timeout",
                          "setsid", "stdbuf", "sudo", "xargs", "find-exec", "find-execdir",
                          "find-ok", "watch", "flock"})  # fmt: skip
NEEDS_BARE = frozenset({"busybox"})
# coproc takes a simple command or a compound that starts with a reserved word or `(`.
_COPROC_OK = ("(", "{", "if ", "for ", "while ", "case ")

KINDS = frozenset({*WORD_KINDS, *LINE_KINDS, *GIT_OPTIONS, *LAYERS})


@dataclass(frozen=True)
class Spelling:
    target: str  # the forbidden program it spells ("rm", "git push", ...)
    text: str
    kinds: tuple[str, ...] = field(default=())


def _fits(kind: str, s: State) -> bool:
    if kind in NEEDS_BARE:
        return s.bare
    if kind in NEEDS_SIMPLE:
        return s.simple
    if kind == "coproc":
        return s.simple or s.text.startswith(_COPROC_OK)
    if kind == "background":
        return not s.text.endswith("&")
    return True


def spell(rng: random.Random, force: str | None = None) -> Spelling:
    """One spelling; `force` makes a given kind one of those used."""
    key, argv = rng.choice(TARGETS)
    if force in GIT_OPTIONS:
        key, argv = TARGETS[2]
    words = list(argv)
    kinds: list[str] = []
    if key == "git push" and (force in GIT_OPTIONS or rng.random() < 0.4):
        for opt in (
            [force]
            if force in GIT_OPTIONS
            else rng.sample(sorted(GIT_OPTIONS), 2)[: rng.randint(1, 2)]
        ):
            assert opt is not None
            words[1:1] = GIT_OPTIONS[opt]
            kinds.append(opt)
    line_kind = force if force in LINE_KINDS else None
    word_kind = force if force in WORD_KINDS else None
    if (line_kind is None and word_kind is None and force is None) or force in LAYERS:
        roll = rng.random()
        if roll < 0.15:
            line_kind = rng.choice(sorted(LINE_KINDS))
        elif roll < 0.8:
            word_kind = rng.choice(sorted(WORD_KINDS))
    if word_kind is not None:
        git_word = key == "git push" and word_kind not in NAME_ONLY and rng.random() < 0.4
        at = len(words) - len(argv) + 1 if git_word else 0
        words[at] = WORD_KINDS[word_kind](words[at])
        kinds.append(word_kind)
    if line_kind is not None:
        text = LINE_KINDS[line_kind](words)
        kinds.append(line_kind)
    else:
        text = " ".join(words)
    state = State(text, simple=True, bare=True)
    layers = rng.choice([0, 1, 1, 2, 2, 3]) if force not in LAYERS else rng.choice([1, 1, 2, 3])
    forced_at = rng.randrange(layers) if force in LAYERS else -1
    for i in range(layers):
        if i == forced_at and force is not None and _fits(force, state):
            kind = force
        elif i == forced_at and force is not None:
            # bring the state to a simple command first, then apply the forced kind
            state = LAYERS["sh-c"](rng, state)
            kinds.append("sh-c")
            kind = force
        else:
            kind = rng.choice([k for k in sorted(LAYERS) if _fits(k, state)])
        state = LAYERS[kind](rng, state)
        kinds.append(kind)
    if force in LAYERS and force not in kinds:  # busybox wants the bare target: it goes first
        state = LAYERS[force](rng, State(text, True, True))
        kinds = [k for k in kinds if k in WORD_KINDS or k in LINE_KINDS or k in GIT_OPTIONS]
        kinds.append(force)
    return Spelling(key, state.text, tuple(kinds))


def generate(n: int, seed: int) -> list[Spelling]:
    """Every kind forced once (sorted, so a seed means the same corpus), then random ones;
    duplicates dropped."""
    rng = random.Random(seed)
    out: dict[str, Spelling] = {}
    for kind in sorted(KINDS):
        s = spell(rng, kind)
        out.setdefault(s.text, s)
    for _ in range(n * 20):
        if len(out) >= n:
            break
        s = spell(rng)
        out.setdefault(s.text, s)
    return list(out.values())
