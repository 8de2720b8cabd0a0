"""Random policies and commands for the live differential test (test_live_codex.py), and how
the tests run the third-party binary (`network_wrap`).

Most drawn policies are valid (plain calls, and the same rules through variables,
comprehensions, helper functions, positional arguments), so that commands match, miss and
resolve host executables; one
in four carries exactly one fault (an invalid argument, a failing `match`/`not_match` example,
a Starlark error, a missing file), so that load errors are compared too. Commands are mostly
built from the policy's own patterns (then cut short, extended or changed), the program written
bare or as an absolute, relative or `~` path.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass

from hypothesis import strategies as st

PROGRAMS = ["git", "ls", "rm", "npm", "cargo"]
WORDS = ["status", "push", "-rf", "--force", "origin", "main", "a b", "x", "", "é", '"q"', "\\"]
WORDS_RARE = ["\n", "\t", "\x01", "--", "~", "*", "it's"]
# Where a host executable may live; `//` and `..` exercise the lexical normalisation.
DIRS = ["/usr/bin", "/bin", "/opt/tools", "//usr/bin", "/opt/bin/../tools"]
GOOD_HOSTS = ["example.com", "Example.COM.", "api.example.com:443", "[::1]:8080", "10.0.0.1"]
BAD_HOSTS = ["*", "*.example.com", "https://example.com", "a b", "", "[::1", "[::1]x", "h/p"]
# Empty, an unclosed quote, a string that splits into a command no pattern heads.
BAD_EXAMPLES = ["", 'a "b', "x y"]
PROTOCOLS = ["http", "https", "socks5_tcp", "socks5_udp", "https_connect", "http-connect"]
DECISIONS = ["allow", "prompt", "forbidden"]
# A shlex-split example string gives back its tokens only when none needs quoting.
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyz-/._")


def lit(value: object) -> str:
    """A Starlark literal: JSON's string escapes are Starlark's, and so are its lists."""
    if isinstance(value, list):
        return "[" + ", ".join(lit(v) for v in value) + "]"
    return "None" if value is None else json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Check:
    command: tuple[str, ...]
    resolve: bool
    pretty: bool

    def args(self, files: list[str]) -> list[str]:
        argv = [arg for name in files for arg in ("--rules", name)]
        argv += ["--resolve-host-executables"] * self.resolve + ["--pretty"] * self.pretty
        return [*argv, "--", *self.command]


@dataclass(frozen=True)
class Case:
    files: tuple[tuple[str, str | None], ...]  # (name, text); None: passed, never written
    checks: tuple[Check, ...]


Pattern = list[str | list[str]]


def _token(programs: bool = False) -> st.SearchStrategy[str]:
    # About one token in ten is a rare one (control characters, quotes, `--`, `~`).
    common = PROGRAMS * 12 if programs else WORDS * 5
    return st.sampled_from(common + WORDS_RARE)


@st.composite
def _pattern(draw: st.DrawFn) -> Pattern:
    out: Pattern = []
    for i in range(draw(st.integers(1, 4))):
        if draw(st.integers(0, 3)) == 0:  # alternatives
            out.append(draw(st.lists(_token(programs=i == 0), min_size=1, max_size=3)))
        else:
            out.append(draw(_token(programs=i == 0)))
    return out


@st.composite
def _instance(draw: st.DrawFn, pattern: Pattern) -> list[str]:
    """Tokens the pattern matches (each alternatives list resolved to one of its words)."""
    tokens = [draw(st.sampled_from(p)) if isinstance(p, list) else p for p in pattern]
    return tokens + draw(st.lists(_token(), max_size=2))


def _as_example(tokens: list[str], as_string: bool) -> object:
    plain = all(t and set(t) <= _PLAIN for t in tokens)
    return " ".join(tokens) if as_string and plain else tokens


@st.composite
def _prefix_rule(draw: st.DrawFn, pattern: Pattern) -> str:
    args = [f"pattern={lit(pattern)}"]
    decision = draw(st.sampled_from([*DECISIONS, None]))
    if decision:
        args.append(f"decision={lit(decision)}")
    if draw(st.integers(0, 3)) == 0:
        reason = draw(st.sampled_from(["why", "a “quoted” one\n"]))
        args.append(f"justification={lit(reason)}")
    if draw(st.integers(0, 3)) == 0:
        examples = draw(st.lists(_instance(pattern), min_size=1, max_size=2))
        args.append(f"match={lit([_as_example(e, draw(st.booleans())) for e in examples])}")
    if draw(st.integers(0, 3)) == 0:
        # `other` heads no pattern: these never match.
        examples = [["other", *draw(st.lists(_token(), max_size=2))]]
        args.append(f"not_match={lit([_as_example(e, draw(st.booleans())) for e in examples])}")
    return f"prefix_rule({', '.join(args)})"


@st.composite
def _shaped_rule(draw: st.DrawFn, pattern: Pattern, n: int) -> str:
    """The same kind of rule written as Starlark a person might write: positional arguments, a
    variable, a comprehension, a helper function, `canonical_matching`. (`n` keeps the names
    apart: Starlark refuses to bind a global twice.)"""
    decision = lit(draw(st.sampled_from(DECISIONS)))
    head, rest = lit(pattern[:1]), lit(pattern[1:])
    shapes = [
        f"prefix_rule({lit(pattern)}, {decision})",
        f"P{n} = {head}\nprefix_rule(pattern = P{n} + {rest}, decision = {decision})",
        f"[prefix_rule(pattern = [p] + {rest}, decision = {decision}) for p in {head}]",
        f"def rule{n}(p, d = {decision}):\n    prefix_rule(pattern = p, decision = d)\n"
        f"rule{n}({lit(pattern)})",
        f"prefix_rule(pattern={lit(pattern)}, canonical_matching={draw(st.booleans())})",
    ]
    return draw(st.sampled_from(shapes))


@st.composite
def _host_executable(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(PROGRAMS[:3]))
    paths = draw(st.lists(st.sampled_from(DIRS).map(lambda d: f"{d}/{name}"), max_size=2))
    return f"host_executable(name={lit(name)}, paths={lit(paths)})"


@st.composite
def _network_rule(draw: st.DrawFn) -> str:
    args = [
        f"host={lit(draw(st.sampled_from(GOOD_HOSTS)))}",
        f"protocol={lit(draw(st.sampled_from(PROTOCOLS)))}",
        f"decision={lit(draw(st.sampled_from(['allow', 'deny', 'prompt', 'forbidden'])))}",
    ]
    if draw(st.booleans()):
        args.append('justification="through the proxy"')
    return f"network_rule({', '.join(args)})"


@st.composite
def _fault(draw: st.DrawFn) -> str:
    """One call (or line) Codex refuses to load."""
    pattern = draw(_pattern())
    rule = lit(pattern)
    pick = lambda *options: lit(draw(st.sampled_from(options)))  # noqa: E731
    faults = [
        f"prefix_rule(pattern={lit([*pattern, draw(st.sampled_from([[], 7, None]))])})",
        "prefix_rule(pattern=[])",
        f"prefix_rule(pattern={rule}, decision={pick('deny', 'ask', 'Allow')})",
        f'prefix_rule(pattern={rule}, justification="")',
        f'prefix_rule(pattern={rule}, match=[["other", "x"]])',  # an example that misses
        f"prefix_rule(pattern={rule}, not_match=[{lit(draw(_instance(pattern)))}])",  # a hit
        f"prefix_rule(pattern={rule}, match=[{pick(*BAD_EXAMPLES)}])",
        f"host_executable(name={pick('', 'bin/git', '..')}, paths=[])",
        f'host_executable(name="git", paths=[{pick("git", "/usr/bin/gitx", "~/git")}])',
        f'network_rule(host={pick(*BAD_HOSTS)}, protocol="https", decision="allow")',
        f'network_rule(host="example.com", protocol={pick("ftp", "HTTP")}, decision="allow")',
        'network_rule(host="example.com", protocol="http", decision="ask")',
        'prefix_rule(pattern=["git"]',
        "undefined_name()",
        "x = 1 +",
        'load("x.star", "y")',
    ]
    return draw(st.sampled_from(faults))


@st.composite
def _command(draw: st.DrawFn, patterns: list[Pattern]) -> tuple[str, ...]:
    if patterns and draw(st.integers(0, 3)):
        tokens = draw(_instance(draw(st.sampled_from(patterns))))
        change = draw(st.integers(0, 5))
        if change == 0 and len(tokens) > 1:
            tokens.pop()  # shorter than the pattern
        elif change == 1:
            tokens[draw(st.integers(0, len(tokens) - 1))] = draw(_token())
    else:
        tokens = [draw(_token(programs=True)), *draw(st.lists(_token(), max_size=3))]
    form = draw(st.integers(0, 9))
    if form in (6, 7):
        tokens[0] = f"{draw(st.sampled_from(DIRS))}/{tokens[0]}"
    elif form == 8:
        tokens[0] = draw(
            st.sampled_from([f"./{tokens[0]}", f"~/bin/{tokens[0]}", f"../{tokens[0]}"])
        )
    return tuple(tokens)


@st.composite
def cases(draw: st.DrawFn, commands: tuple[int, int]) -> Case:
    patterns: list[Pattern] = []
    texts: list[list[str]] = []
    for _ in range(draw(st.sampled_from([1, 1, 1, 2]))):
        calls: list[str] = []
        for _ in range(draw(st.integers(0, 6))):
            kind = draw(st.integers(0, 6))
            if kind < 4:
                patterns.append(draw(_pattern()))
                calls.append(draw(_prefix_rule(patterns[-1])))
            elif kind == 4:
                patterns.append(draw(_pattern()))
                calls.append(draw(_shaped_rule(patterns[-1], len(patterns))))
            else:
                calls.append(draw(_host_executable() if kind == 5 else _network_rule()))
        texts.append(calls)
    files: list[tuple[str, str | None]] = [
        (name, "".join(f"{call}\n" for call in calls))
        for name, calls in zip(["a.rules", "sub/b.rules"], texts, strict=False)
    ]
    if draw(st.integers(0, 3)) == 0:  # one fault
        if draw(st.integers(0, 9)) == 0:
            files.append(("missing.rules", None))
        else:
            at = draw(st.integers(0, len(texts) - 1))
            calls = texts[at]
            calls.insert(draw(st.integers(0, len(calls))), draw(_fault()))
            files[at] = (files[at][0], "".join(f"{call}\n" for call in calls))
    checks = draw(
        st.lists(
            st.builds(
                Check,
                _command(patterns),
                st.booleans(),
                st.integers(0, 4).map(lambda n: n == 0),
            ),
            min_size=commands[0],
            max_size=commands[1],
        )
    )
    return Case(tuple(files), tuple(checks))


def network_wrap() -> list[str]:
    """`unshare -rn` (loopback only) around a third-party binary, where the kernel allows it."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
        return [unshare, "-rn"]
    return []
