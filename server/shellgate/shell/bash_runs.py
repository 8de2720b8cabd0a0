"""Every simple command bash would execute for a script or an argv (beyond Codex).

Codex's rules see a plain script's commands, or the whole argv. Bash runs more: `\\rm -rf x`
runs `rm`, `sh -c 'git push'` runs `git push`, `timeout 5 rm x` runs `rm x`, `echo 'rm x' |
bash` runs `rm x`. `bash_runs(script)` and `argv_runs(argv)` list each simple command with
its words as bash sees them after quote removal, escapes, `$'...'`/`$"..."`, literal brace
expansion and splitting on the default `$IFS`; inside every compound, substitution and function
body (whether or not bash reaches it: a superset, so the judgement can only be stricter);
through every runner that executes its arguments (`wrappers.RUNNERS`, plus `busybox APPLET`,
`watch`, `find -exec`, `xargs`, `eval`, `trap`, `su/script/flock -c`); through every shell
handed a script (`sh -c`, a here-string, a here-document or a pipe into a shell); and through
git's global options (`global_options`).

What bash decides only when it runs (a command name from a variable or a substitution, a glob
in command position, an alias, a script piped into a shell whose text is not literal, `source`
of a process substitution, text tree-sitter cannot read) is a `Run` with `unknowable` set.
A word of an argument that bash decides at run time is listed in `Run.dynamic` (its index);
`open_tail` says more arguments come at run time (`xargs CMD`). Pure and bounded: at most
`MAX_RUNS` runs, `MAX_DEPTH` nested shells or runners, `MAX_SCRIPT` characters a script (past
these: unknowable). Never raises.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from tree_sitter import Node

from shellgate.shell.dangerous import trap_action
from shellgate.shell.global_options import GLOBAL_OPTIONS, canonical_words
from shellgate.shell.paths import executable_name_lookup_key
from shellgate.shell.programs import ENVIRONMENT, PROGRAMS, READS_INPUT, GitFiles, Handed, handed
from shellgate.shell.tsbash import parse, text
from shellgate.shell.wrappers import BASH_ASSIGNMENT, RUNNERS, flock_source, unwrap

UNKNOWABLE = "bash decides this command at run time"
MAX_DEPTH = 8
MAX_RUNS = 1000
MAX_SCRIPT = 1 << 20  # characters; a longer script is judged unknowable, never read
MAX_BRACE = 64  # words one brace expansion may give before it counts as run-time
MAX_WORD = 1 << 16  # characters; a longer word is read as run-time, not scanned

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "lksh",
                    "pdksh", "ksh93", "rbash", "busybox-sh", "fish", "csh", "tcsh"})  # fmt: skip


@dataclass(frozen=True)
class Run:
    """One simple command bash would execute.

    `words` as bash passes them (a run-time word keeps its source text); `via` how it is
    reached, outermost first (`("sh -c", "timeout")`); `dynamic` the indexes of words bash
    decides at run time; `open_tail` more words come at run time; `unknowable` why bash
    decides the command itself only at run time (then `words` may be empty or partial);
    `handed` the hand-over of a program that runs it (`git -c alias.x='!CMD' x`), if any.
    """

    words: tuple[str, ...]
    via: tuple[str, ...] = ()
    dynamic: frozenset[int] = field(default_factory=frozenset)
    open_tail: bool = False
    unknowable: str | None = None
    handed: Handed | None = None


_NO_ENV: Mapping[str, str | None] = {}


@dataclass
class _Ctx:
    out: list[Run]
    ifs_default: bool = True
    git: GitFiles | None = None  # git's configuration files for the command's directory
    exported: dict[str, str | None] = field(default_factory=dict)  # exported earlier
    assigned: dict[str, str | None] = field(default_factory=dict)  # set earlier, not exported
    allexport: bool = False  # `set -a`: every assignment is exported
    by: Handed | None = None  # the hand-over being read
    seen: set[Handed] = field(default_factory=set)  # hand-overs read (each once: same runs)

    def add(self, run: Run) -> bool:
        """False once the bound is reached (the last run added says so)."""
        if len(self.out) >= MAX_RUNS:
            return False
        if len(self.out) == MAX_RUNS - 1:
            run = Run((), run.via, unknowable=f"more than {MAX_RUNS} commands: not read further")
        if self.by is not None and run.handed is None:
            run = replace(run, handed=self.by)
        self.out.append(run)
        return True


@lru_cache(maxsize=64)  # explain's warnings and the gate read the same script
def bash_runs(script: str, git: GitFiles | None = None) -> tuple[Run, ...]:
    """The commands bash would execute for `bash -c SCRIPT` (`git`: git's configuration
    files for the directory it runs in, when the caller knows them)."""
    ctx = _Ctx([], git=git)
    _script(script, (), 0, ctx)
    return tuple(ctx.out)


def argv_runs(argv: Sequence[str], git: GitFiles | None = None) -> tuple[Run, ...]:
    """The commands executed for an argv run directly (no shell reads it): the argv itself,
    and whatever it runs (a shell's script, a runner's command, ...)."""
    ctx = _Ctx([], git=git)
    if argv:
        _argv(tuple(argv), frozenset(), (), 0, ctx, _no_input)
    return tuple(ctx.out)


# --- words -------------------------------------------------------------------------------

# Sentinels for unquoted brace-expansion characters, $IFS split points, run-time parts and
# glob characters while a word is read (private-use code points; input holding them is read
# as run-time).
_OB, _CM, _CB, _SP, _DY, _GL = "\ue000", "\ue001", "\ue002", "\ue003", "\ue004", "\ue005"
_SENTINELS = re.compile("[\ue000-\ue005]")
_PLAIN_WORD = re.compile(r"[A-Za-z0-9_./:@%+=,^-]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_IFS_REF = re.compile(r"IFS(?![A-Za-z0-9_])|\{IFS\}")
_ANSI = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
         "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}  # fmt: skip


class Word:
    """One source word read as bash reads it: its fields (brace expansion and $IFS splitting
    can make several) and which are decided at run time."""

    __slots__ = ("fields", "raw")

    def __init__(self, raw: str, fields: list[tuple[str, bool]]) -> None:
        self.raw = raw
        self.fields = fields  # (value, decided at run time)


def read_word(raw: str, *, ifs_default: bool = True) -> Word:
    """`raw` (a word's source text) after brace expansion, expansions, splitting on the
    default $IFS, and quote removal: `'r'm` -> rm, `{a,b}` -> a b, `$X` -> run-time."""
    if _PLAIN_WORD.fullmatch(raw):
        return Word(raw, [(raw, False)])
    if len(raw) > MAX_WORD or _SENTINELS.search(raw):
        return Word(raw, [(raw, True)])
    marked = _scan(raw, ifs_default)
    words = _brace(marked) if _OB in marked else [marked]
    if words is None:
        return Word(raw, [(raw, True)])
    fields: list[tuple[str, bool]] = []
    for word in words:
        parts = word.split(_SP) if _SP in word else [word]
        for i, part in enumerate(parts):
            if not part and (len(parts) > 1 or i):
                continue  # a field $IFS splitting left empty
            dynamic = _DY in part or _GL in part
            value = raw if dynamic else part.translate(_UNMARK)
            fields.append((value, dynamic))
    return Word(raw, fields)


_UNMARK = str.maketrans({_OB: "{", _CM: ",", _CB: "}", _GL: None, _DY: None, _SP: " "})


def _scan(raw: str, ifs_default: bool) -> str:
    out: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        nxt = raw[i + 1] if i + 1 < n else ""
        if c == "\\":
            if nxt != "\n":
                out.append(nxt or "\\")
            i += 2
        elif c == "'":
            end = raw.find("'", i + 1)
            end = n if end < 0 else end
            out.append(raw[i + 1 : end])
            i = end + 1
        elif c == "$" and nxt == "'":
            value, i = _ansi_c(raw, i + 2)
            out.append(value)
        elif c == '"' or (c == "$" and nxt == '"'):
            start = i + 1 if c == '"' else i + 2
            value, i, whole = _double_quoted(raw, start)
            out.append(value)
            if not whole:
                return "".join(out) + _DY
        elif c == "$":
            rest = raw[i + 1 :]
            ifs = _IFS_REF.match(rest)
            if ifs is not None:
                out.append(_SP if ifs_default else _DY)
                i += 1 + ifs.end()
                continue
            name = _NAME.match(rest)
            if name is not None:
                out.append(_DY)
                i += 1 + name.end()
            elif nxt == "{":
                end = raw.find("}", i + 2)
                if end < 0 or "$" in raw[i + 2 : end] or "`" in raw[i + 2 : end]:
                    return "".join(out) + _DY
                out.append(_DY)
                i = end + 1
            elif nxt and (nxt.isdigit() or nxt in "@*#?$!-"):
                out.append(_DY)
                i += 2
            elif nxt in ("(", "["):
                return "".join(out) + _DY
            else:
                out.append("$")
                i += 1
        elif c == "`" or (c in "<>" and nxt == "("):
            return "".join(out) + _DY
        elif c == "{":
            out.append(_OB)
            i += 1
        elif c == ",":
            out.append(_CM)
            i += 1
        elif c == "}":
            out.append(_CB)
            i += 1
        elif c in "*?" or (c == "[" and "]" in raw[i + 1 :]) or (c in "!@+" and nxt == "("):
            out.append(_GL + c)
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _double_quoted(raw: str, i: int) -> tuple[str, int, bool]:
    """The value of "..." from just after the quote, the index after it, and whether it was
    read whole (False: a substitution whose end is not sought; the rest is run-time)."""
    out: list[str] = []
    n = len(raw)
    while i < n:
        c = raw[i]
        if c == '"':
            return "".join(out), i + 1, True
        if c == "\\" and i + 1 < n and raw[i + 1] in '$`"\\\n':
            if raw[i + 1] != "\n":
                out.append(raw[i + 1])
            i += 2
        elif c == "`" or (c == "$" and raw[i + 1 : i + 2] in ("(", "[")):
            return "".join(out), n, False
        elif c == "$" and raw[i + 1 : i + 2] == "{":
            end = raw.find("}", i + 2)
            if end < 0 or "$" in raw[i + 2 : end] or "`" in raw[i + 2 : end]:
                return "".join(out), n, False
            out.append(_DY)
            i = end + 1
        elif c == "$" and (
            _NAME.match(raw, i + 1) or raw[i + 1 : i + 2] in tuple("@*#?$!-0123456789")
        ):
            name = _NAME.match(raw, i + 1)
            out.append(_DY)
            i = name.end() if name is not None else i + 2
        else:
            out.append(c)
            i += 1
    return "".join(out), n, True


def _ansi_c(raw: str, i: int) -> tuple[str, int]:
    """The value of $'...' from just after the quote, and the index after it."""
    out: list[str] = []
    n = len(raw)
    while i < n:
        c = raw[i]
        if c == "'":
            return "".join(out), i + 1
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = raw[i + 1]
        i += 2
        if e in _ANSI:
            out.append(_ANSI[e])
        elif e in "xuU":
            size = {"x": 2, "u": 4, "U": 8}[e]
            digits = re.match(f"[0-9A-Fa-f]{{1,{size}}}", raw[i : i + size])
            if digits is None:
                out.append("\\" + e)
            else:
                out.append(_chr(int(digits.group(), 16)))
                i += digits.end()
        elif e in "01234567":
            digits = re.match("[0-7]{1,3}", raw[i - 1 : i + 2])
            assert digits is not None
            out.append(_chr(int(digits.group(), 8) & 0xFF))
            i += digits.end() - 1
        elif e == "c" and i < n:
            out.append(_chr(ord(raw[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + e)
    return "".join(out), n


def _chr(code: int) -> str:
    return chr(code) if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000 else _DY


_RANGE = re.compile(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([A-Za-z])\.\.([A-Za-z])")


def _brace(word: str) -> list[str] | None:
    """Bash's brace expansion of a marked word (unquoted braces and commas are sentinels);
    None past MAX_BRACE words."""
    results = [word]
    done: list[str] = []
    while results:
        w = results.pop()
        expanded = _brace_once(w)
        if expanded is None:
            done.append(w)
        else:
            results.extend(reversed(expanded))
        if len(results) + len(done) > MAX_BRACE:
            return None
    return done


def _brace_once(w: str) -> list[str] | None:
    start = 0
    while True:
        ob = w.find(_OB, start)
        if ob < 0:
            return None
        depth, commas, cb = 0, [], -1
        for j in range(ob + 1, len(w)):
            ch = w[j]
            if ch == _OB:
                depth += 1
            elif ch == _CB:
                if depth == 0:
                    cb = j
                    break
                depth -= 1
            elif ch == _CM and depth == 0:
                commas.append(j)
        if cb < 0:
            return None
        head, tail = w[:ob], w[cb + 1 :]
        if commas:
            cuts = [ob, *commas, cb]
            return [head + w[a + 1 : b] + tail for a, b in itertools.pairwise(cuts)]
        seq = _sequence(w[ob + 1 : cb])
        if seq is not None:
            return [head + item + tail for item in seq]
        start = ob + 1  # not an expansion: the brace stays literal


def _sequence(inner: str) -> list[str] | None:
    m = _RANGE.fullmatch(inner)
    if m is None:
        return None
    if m.group(4):
        a, b = ord(m.group(4)), ord(m.group(5))
        step = 1 if b >= a else -1
        return [chr(c) for c in range(a, b + step, step)][: MAX_BRACE + 1]
    a, b = int(m.group(1)), int(m.group(2))
    step = abs(int(m.group(3) or 1)) or 1
    step = step if b >= a else -step
    count = abs(b - a) // abs(step) + 1
    if count > MAX_BRACE:
        return [str(a)] * (MAX_BRACE + 1)
    return [str(a + k * step) for k in range(count)]


# --- scripts -----------------------------------------------------------------------------

_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
# Nodes of text, which hold a command only inside a substitution.
_WORDS = frozenset({"heredoc_body", "string", "concatenation", "word", "raw_string",
                    "simple_expansion", "expansion", "variable_assignment"})  # fmt: skip
_SUBSTITUTION = re.compile(rb"\$\(|`|[<>]\(")
_BRACE_COMMAND = re.compile(
    r"(^|[;&|(\n])([ \t]*(?:(?:then|do|else|elif|if|while|until|!)[ \t]+)*)\{(?=[^\s{}]*,\S*\})"
)
_IFS_SET = re.compile(r"(?<![A-Za-z0-9_])IFS\+?=|read\b[^\n;|&]*\bIFS\b")


def _script(script: str, via: tuple[str, ...], depth: int, ctx: _Ctx) -> None:
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
        # `{rm,-rf,x}` where a command starts is brace expansion to bash (a group needs a blank
        # after `{`), an error to tree-sitter: the tree of the script with `_` for that brace
        # (same offsets; the words are still read from the script itself)
        braced = _BRACE_COMMAND.sub(r"\1\2_", script)
        again = parse(braced) if braced != script else None
        if again is not None and not again[0].root_node.has_error:
            root, spelled = again[0].root_node, again[1]
    if root.has_error:
        ctx.add(Run((), via, unknowable="tree-sitter cannot read the script as bash would"))
    elif _GLUED_BANG.search(src):
        root = _unnegated(root, spelled)
    _walk(root, src, via, depth, ctx)
    ctx.ifs_default = saved


# `!` is bash's reserved word only as a word of its own: `![[ -n a ]]` runs `![[`, where
# tree-sitter reads a negated test (differential seed 2914186182). A metacharacter after it
# does end it (`!(rm x)` negates a subshell).
_GLUED_BANG = re.compile(rb"!(?![\s|&;()<>])")
_ESCAPES_ONLY = re.compile(rb"(?:\\[ \t\n])*")


def _unnegated(root: Node, src: bytes) -> Node:
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
            if glued and _GLUED_BANG.match(src, bang.start_byte):
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


def _walk(root: Node, src: bytes, via: tuple[str, ...], depth: int, ctx: _Ctx) -> None:
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
            if kind in ("declaration_command", "variable_assignment"):
                _declared(node, src, ctx)  # programs: `export EDITOR=...` earlier in the script
            # text holds a command only inside a substitution (a long heredoc is not walked)
            descend = kind not in _WORDS or bool(
                _SUBSTITUTION.search(src, node.start_byte, node.end_byte)
            )
        if descend and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def _command(node: Node, src: bytes, via: tuple[str, ...], depth: int, ctx: _Ctx) -> bool:
    """The runs of one tree-sitter `command` (several when tree-sitter glued lines bash
    ends). False once the bound is reached."""
    lead = _lead_words(src, node.start_byte)  # `\\ <<< w x` runs ` x`: left out of the tree
    groups: list[list[list[int]]] = [lead]  # commands -> words -> [start, end] byte offsets
    previous: int | None = lead[-1][1] if lead else None  # where the word before ends
    for child in node.children:
        if child.type in _REDIRECTS:  # `git 2>/dev/null push`: words tree-sitter files there
            if previous is not None:
                _trailing_escapes(groups[-1], src, previous, via, ctx)
            _add_words(groups[-1], _redirect_words(child, src), src)
            previous = None
            continue
        if child.type == "variable_assignment":
            previous = None
            continue
        if child.type == "comment":  # on a line tree-sitter glued on (seed 1279104430)
            continue
        if not child.is_named and child.type != "$":
            continue
        for start, end in _pieces(child, src):
            if previous is None and not groups[-1]:
                start = _escaped_lead(src, start)  # `\ ab`: tree-sitter drops the `\ `
            gap = src[previous:start] if previous is not None else None
            if gap is not None and not gap.replace(b"\\\n", b""):
                groups[-1][-1][1] = end  # nothing between (a line continuation): one word
            elif gap is not None and _crosses_line(gap):
                groups.append([[start, end]])  # bash ends the command here
            elif gap is not None and _ESCAPED_BLANKS.fullmatch(gap):
                _escaped_gap(groups[-1], gap, start, end)  # `a\ b`: one word
            else:
                if gap is not None and gap.strip(b" \t"):
                    shown = gap.decode("utf-8", "surrogateescape")
                    shown = shown.encode("unicode_escape").decode()
                    ctx.add(Run((), via, unknowable=f"bash reads `{shown[:12]}` between words"))
                groups[-1].append([start, end])
            previous = end
    if previous is not None:
        _trailing_escapes(groups[-1], src, previous, via, ctx)
    statement = _redirected(node)
    if statement is not None:
        for r in statement.named_children:
            if r.type in _REDIRECTS:
                _add_words(groups[-1], _redirect_words(r, src), src)

    def input_text() -> _Stdin | None:  # read only for a shell: most commands are not one
        return _stdin_of(node, src, ctx)

    env = _environment(node, src, ctx)  # programs: `EDITOR=... git commit`

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
        stdin = input_text if n == len(groups) - 1 else _no_input
        if not _argv(tuple(argv), frozenset(dynamic), via, depth, ctx, stdin, env=env):
            return False
    return True


_BLANK = re.compile(rb"[ \t\n]")
_UNQUOTED_PIECE = re.compile(rb"(?:\\[\s\S]|[^ \t\n\\])+")


def _escaped_lead(src: bytes, start: int) -> int:
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


def _comment(node: Node, src: bytes, via: tuple[str, ...], depth: int, ctx: _Ctx) -> bool:
    """A comment of tree-sitter's after escaped blanks: glued to them, bash reads the `#` in a
    word (asked; differential seed 1720472783: `&& \\ #`); after a blank, the escaped blanks
    are a command of their own where a command starts. False once the bound is reached."""
    lead = _lead_words(src, node.start_byte)
    if not lead:
        return True
    if lead[-1][1] == node.start_byte:
        return ctx.add(Run((), via, unknowable="bash reads `#` after an escaped blank as a word"))
    if src[: lead[0][0]].rstrip(b" \t")[-1:] not in (b"", b"\n", b";", b"&", b"|", b"(", b")"):
        return True  # arguments of the command before them, read with it
    words = tuple(read_word(src[a:b].decode()).fields[0][0] for a, b in lead)
    return _argv(words, frozenset(), via, depth, ctx, _no_input)


def _lead_words(src: bytes, start: int) -> list[list[int]]:
    """The words of escaped blanks bash reads right before `start`, where tree-sitter starts a
    command (after blanks and escaped blanks back to the operator or line before it)."""
    at = start
    while at >= 1 and src[at - 1 : at] in (b" ", b"\t"):
        n = 0
        while at - 2 - n >= 0 and src[at - 2 - n : at - 1 - n] == b"\\":
            n += 1
        at -= 2 if n % 2 else 1
    return [list(m.span()) for m in _UNQUOTED_PIECE.finditer(src, at, start)]


def _pieces(child: Node, src: bytes) -> list[tuple[int, int]]:
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
_ESCAPED_BLANKS = re.compile(rb"(?:[ \t]|\\[ \t])*\\[ \t](?:[ \t]|\\[ \t])*")
# Blanks and escaped blanks after a command's last word, up to the last escaped one.
_TRAILING_ESCAPES = re.compile(rb"(?:[ \t]|\\[ \t])*\\[ \t]")


def _trailing_escapes(
    words: list[list[int]], src: bytes, end: int, via: tuple[str, ...], ctx: _Ctx
) -> None:
    """Escaped blanks right after a command's last word (`pwd\\<TAB>` at a line's end or
    before a redirection): bash reads them as words, tree-sitter leaves them out."""
    trailing = _TRAILING_ESCAPES.match(src, end)
    if trailing is None:
        return
    if src[trailing.end() : trailing.end() + 1] == b"#":  # a word, not a comment, to bash
        ctx.add(Run((), via, unknowable="bash reads `#` after an escaped blank as a word"))
    _escaped_gap(words, trailing.group(), trailing.end(), trailing.end())


def _escaped_gap(words: list[list[int]], gap: bytes, start: int, end: int) -> None:
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
                        "pipeline", *_REDIRECTS})  # fmt: skip


def _add_words(words: list[list[int]], nodes: list[Node], src: bytes) -> None:
    """Append the spans of `nodes`; one with no blank before it (nothing, a line continuation,
    a Unicode space) extends the word before: `<<EOF -x<EM SPACE>-f` passes `-x<EM SPACE>-f`
    (differential seed 2784280773)."""
    for i, w in enumerate(nodes):  # (the first follows the redirection's target: a new word)
        if i and not _BLANK.search(src[words[-1][1] : w.start_byte].replace(b"\\\n", b"")):
            words[-1][1] = w.end_byte
        else:
            words.append([w.start_byte, w.end_byte])


def _redirect_words(r: Node, src: bytes) -> list[Node]:
    """The words tree-sitter puts in a redirection that are the command's arguments to bash:
    those after a file redirection's target or a here-string, and after a here-document's
    delimiter (`ls > out a`, `cat <<EOF a`)."""
    words = [c for c in r.named_children if c.type not in _NOT_WORDS]
    if r.type != "heredoc_redirect":
        return words[1:]
    body = _heredoc_line_end(r, src)  # words past the delimiter's line are the body, misread
    return words if body is None else [w for w in words if w.start_byte < body]


def _heredoc_line_end(r: Node, src: bytes) -> int | None:
    """Where the line of a here-document's delimiter ends (its body starts after it)."""
    start = next((c for c in r.named_children if c.type == "heredoc_start"), None)
    found = -1 if start is None else src.find(b"\n", start.end_byte, r.end_byte)
    return None if found < 0 else found


def _redirected(node: Node) -> Node | None:
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


def _crosses_line(between: bytes) -> bool:
    return b"\n" in between.replace(b"\\\n", b"")


# What a command reads on its input, should a shell read it as a script: the text (None when
# bash decides it at run time), how it comes (`<<<`, `echo |`), and a doubt: why bash may read
# other text (the text is read as written too, so that a literal command in it still counts).
_Stdin = tuple[str | None, str, str | None]


def _no_input() -> _Stdin | None:
    return None


def _stdin_of(node: Node, src: bytes, ctx: _Ctx) -> _Stdin | None:
    """The text on a command's input from its here-string, here-document or the command
    piped into it (None: the command reads no such input)."""
    redirects = [c for c in node.named_children if c.type in _REDIRECTS]
    parent = node.parent
    statement = _redirected(node)
    if statement is not None:
        redirects += [c for c in statement.named_children if c.type in _REDIRECTS]
    found: _Stdin | None = None
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


def _heredoc(r: Node, src: bytes) -> _Stdin:
    start = next((c for c in r.named_children if c.type == "heredoc_start"), None)
    body = next((c for c in r.named_children if c.type == "heredoc_body"), None)
    end = next((c for c in r.named_children if c.type == "heredoc_end"), None)
    delimiter = text(start, src) if start is not None else ""
    content = text(body, src) if body is not None else ""
    line_end = _heredoc_line_end(r, src)
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


def _piped_text(stage: Node, src: bytes, ctx: _Ctx) -> _Stdin:
    """What a pipeline stage writes, when it is literal: `echo WORDS`, `printf TEXT`, `cat`
    of a here-document or here-string."""
    unknown: _Stdin = (None, "what another command writes into the pipe", None)
    command = stage
    if command.type == "redirected_statement":
        body = command.child_by_field_name("body")
        command = body if body is not None else command
    if command.type != "command":
        return unknown
    words: list[str] = []
    for child in command.named_children:
        if child.type in _REDIRECTS or child.type == "variable_assignment":
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
        return _stdin_of(command, src, ctx) or unknown
    return unknown


# --- argvs -------------------------------------------------------------------------------

_SHELL_VALUED = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_DASH_C = frozenset({"su", "runuser", "script", "flock", "sg"})
_BOXES = frozenset({"busybox", "toybox"})


def _argv(
    words: tuple[str, ...],
    dynamic: frozenset[int],
    via: tuple[str, ...],
    depth: int,
    ctx: _Ctx,
    stdin: Callable[[], _Stdin | None],
    open_tail: bool = False,
    env: Mapping[str, str | None] = _NO_ENV,
) -> bool:
    """`words` run as a command, and what it runs in turn (`env`: the variables it gets, as
    far as the script says). False once the bound is reached."""
    if not ctx.add(Run(words, via, dynamic, open_tail)):
        return False
    if depth >= MAX_DEPTH:
        return ctx.add(Run((), via, unknowable=f"commands nested more than {MAX_DEPTH} deep"))
    name = executable_name_lookup_key(words[0]) or words[0]
    here = (*via, name)
    skip = _skipped(words)
    if skip:  # `time -p { rm x; }`, `! function f { rm x; }`: tree-sitter's recovery
        body, moved = words[skip:], frozenset(i - skip for i in dynamic if i >= skip)
        if 0 in moved:
            why = f"its name is `{body[0]}`"
            return ctx.add(Run(body, here, moved, open_tail, unknowable=why))
        return _argv(body, moved, here, depth + 1, ctx, stdin, open_tail, env)

    def inner(start: int, *, label: str = name, tail: bool = open_tail) -> bool:
        rest = words[start:]
        if not rest:
            return True
        moved = frozenset(i - start for i in dynamic if i >= start)
        if label == "xargs":  # `xargs -I{} CMD {}`: the replaced words come at run time
            marker = _xargs_replace(words[:start])
            moved |= {k for k, w in enumerate(rest) if marker and marker in w}
        if 0 in moved:
            why = f"`{label}` runs `{rest[0]}`"
            return ctx.add(Run(rest, (*via, label), moved, tail, unknowable=why))
        given = _assignments(words, 1, start, dynamic, env) if label in _SETS_ENV else env
        return _argv(rest, moved, (*via, label), depth + 1, ctx, stdin, tail, given)

    def source(text_: str, index: int | None, label: str) -> bool:
        if index is not None and index in dynamic:
            why = f"`{label}` runs shell source from an expansion"
            if not ctx.add(Run((), (*via, label), unknowable=why)):
                return False  # and its text as written, for the commands it names literally
        saved = ctx.exported  # the shell gets this command's environment
        ctx.exported = dict(env) if env else saved
        _script(text_, (*via, label), depth + 1, ctx)
        ctx.exported = saved
        return len(ctx.out) < MAX_RUNS

    # --- programs: what a program runs through its options, configuration, environment ---
    reads = name in PROGRAMS or (env and _hands_env(env))
    if reads and not _programs(words, dynamic, via, depth, ctx, stdin, env, source):
        return False
    # ---

    if name in SHELLS or (name in _BOXES and words[1:2] in (("sh",), ("ash",), ("bash",))):
        shell = words[1:] if name in _BOXES else words
        offset = 1 if name in _BOXES else 0
        return _shell(shell, offset, dynamic, via, ctx, stdin, source, open_tail)
    if name == "eval":
        if any(i > 0 for i in dynamic):
            return ctx.add(Run((), (*via, "eval"), unknowable="`eval` of an expansion"))
        return source(" ".join(words[1:]), None, "eval")
    if name in ("source", "."):
        target = words[1] if len(words) > 1 else ""
        if 1 in dynamic or target.startswith(("<(", "/dev/fd/", "/proc/self/fd/", "/dev/stdin")):
            return ctx.add(Run((), here, unknowable=f"`{name}` reads a script from `{target}`"))
        return True
    if name == "alias" and any("=" in w for w in words[1:]):
        return ctx.add(Run((), here, unknowable="an alias definition"))
    if name == "trap":
        action = trap_action(list(words))
        return True if action is None else source(action, None, "trap")
    if name in _BOXES:
        i = 1
        while i < len(words) and words[i].startswith("-"):
            i += 1
        return inner(i, label=f"{name} APPLET")
    if name == "watch":
        return _watch(words, inner, source)
    if name == "flock":
        at = flock_source(words)
        if at is not None:
            return source(words[at], at, "flock -c")
    elif name in _DASH_C:
        found = _dash_c(words)
        if found is not None:
            return source(found[1], found[0], f"{name} -c")
    if name == "sudo" and any(re.fullmatch("-[A-Za-z]*[si]", w) for w in words[1:3]):
        unwrapped = unwrap(list(words))  # `sudo -s CMD...`: the login shell runs `-c 'CMD...'`
        return source(" ".join(unwrapped[1]), None, "sudo -s") if unwrapped else True
    if name == "find":
        return _find(words, dynamic, via, depth, ctx, env)
    if words[0] in ("time", "coproc"):  # bash's keywords, which tree-sitter reads as names
        at, unwrapped = _keyword_body(words), unwrap(list(words))
        # the words after them run as they are (`time -x` runs `-x`); /usr/bin/time (piped,
        # or after a runner) reads its own options: both when they differ
        if (unwrapped is None or len(unwrapped[1]) != len(words) - at) and not inner(at):
            return False
    canonical = canonical_words(words)
    if canonical is not None:
        kept, start = canonical
        moved = frozenset(i - start + 1 for i in dynamic if i >= start)
        label = f"{name} {words[1]}"
        return _argv(kept, moved, (*via, label), depth + 1, ctx, stdin, open_tail, env)
    unwrapped = unwrap(list(words))
    if unwrapped is not None:
        label, rest = unwrapped
        tail = open_tail or label == "xargs"
        if tuple(rest) == words[len(words) - len(rest) :]:
            return inner(len(words) - len(rest), label=label, tail=tail)
        if dynamic:  # env -S "..." split from a run-time word
            why = f"`{label}` splits an expansion into a command"
            return ctx.add(Run((), here, unknowable=why))
        return _argv(tuple(rest), frozenset(), (*via, label), depth + 1, ctx, stdin, tail, env)
    return True


_Source = Callable[[str, int | None, str], bool]  # shell source, the word it came from, how


def _shell(
    argv: tuple[str, ...],
    offset: int,
    dynamic: frozenset[int],
    via: tuple[str, ...],
    ctx: _Ctx,
    stdin: Callable[[], _Stdin | None],
    source: _Source,
    open_tail: bool,
) -> bool:
    """A shell's options: `-c SCRIPT` (anywhere among them), a script file operand, or a
    script read on its input (`-s`, `-`, no operand): known only from a here-string, a
    here-document or a literal pipe (`_stdin_of`); any other input is run-time (`echo x |
    { bash; }`, `>(sh)`, a shell inside a script that was itself piped in)."""
    label = executable_name_lookup_key(argv[0]) or argv[0]
    i, dash_c, reads_stdin = 1, False, False
    while i < len(argv):
        arg = argv[i]
        if arg == "--" or arg == "-":
            reads_stdin = arg == "-"
            i += 1
            break
        if arg in _SHELL_VALUED:
            i += 2
            continue
        if arg.startswith("--"):
            i += 1
            continue
        if len(arg) > 1 and arg[0] in "-+" and arg[1:].isalpha():
            dash_c = dash_c or (arg[0] == "-" and "c" in arg)
            reads_stdin = reads_stdin or (arg[0] == "-" and "s" in arg)
            i += 1 + sum(1 for letter in arg[1:] if letter in "oO")
            continue
        break
    if i >= len(argv) and open_tail:  # `xargs sh -c`, `xargs bash`: the script comes later
        return ctx.add(Run((), (*via, label), unknowable=f"`{label}` gets its script from input"))
    if dash_c:
        if i >= len(argv):
            return True
        return source(argv[i], i + offset, f"{label} -c")
    if i < len(argv) and not reads_stdin:
        operand = argv[i]
        if i + offset in dynamic or operand.startswith(("<(", "/dev/fd/", "/proc/self/fd/")):
            why = f"`{label}` runs a script from `{operand}`"
            return ctx.add(Run((), (*via, label), unknowable=why))
        if operand not in ("/dev/stdin", "/proc/self/fd/0"):
            return True  # a script file: the rules judge `bash FILE`
    given = stdin()
    if given is None:
        return ctx.add(Run((), (*via, label), unknowable=f"`{label}` reads a script on its input"))
    content, how, doubt = given
    if content is None:
        return ctx.add(Run((), (*via, label), unknowable=f"`{label}` reads {how}"))
    if doubt is not None and not ctx.add(
        Run((), (*via, label), unknowable=f"`{label}` reads {doubt}")
    ):
        return False
    return source(content, None, f"{how} {label}")


def _xargs_replace(options: tuple[str, ...]) -> str | None:
    """The replace string of xargs' `-I R`, `-IR`, `-i[R]`, `--replace[=R]` (default `{}`)."""
    for i, word in enumerate(options):
        if word == "-I" and i + 1 < len(options):
            return options[i + 1]
        if word.startswith("-I") and len(word) > 2:
            return word[2:]
        if word.startswith(("-i", "--replace")):
            value = word.split("=", 1)[1] if "=" in word else word[2:] if word[:2] == "-i" else ""
            return value or "{}"
    return None


def _watch(words: tuple[str, ...], inner: Callable[..., bool], source: _Source) -> bool:
    """`watch [options] CMD...`: `sh -c` of the words joined, or the argv itself with -x."""
    valued = {"-n", "--interval", "-q", "--equexit"}
    i, direct = 1, None
    while i < len(words) and words[i].startswith("-") and words[i] != "--":
        direct = direct or words[i] == "--exec" or re.fullmatch("-[a-z]*x[a-z]*", words[i])
        i += 2 if words[i] in valued else 1
    if i < len(words) and words[i] == "--":
        i += 1
    if direct is not None:
        return inner(i, label="watch -x")
    return source(" ".join(words[i:]), None, "watch") if i < len(words) else True


def _dash_c(words: tuple[str, ...]) -> tuple[int, str] | None:
    """The shell source of `-c SRC`, `-lc SRC`, `--command SRC`, `--command=SRC` (its
    word's index and text), if any."""
    for i, w in enumerate(words[1:], 1):
        if w == "--":
            return None
        if w.startswith("--command="):
            return i, w.split("=", 1)[1]
        if (w == "--command" or re.fullmatch("-[A-Za-z]*c", w)) and i + 1 < len(words):
            return i + 1, words[i + 1]
    return None


_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# Bash's reserved words, which tree-sitter can leave at the head of a command (`time -p {`):
# bash runs what follows.
_RESERVED = frozenset({"{", "}", "!", "(", ")", "then", "do", "else", "elif", "if", "while",
                       "until", "fi", "done", "esac", "in", "[[", "]]"})  # fmt: skip
# Every program whose arguments `_argv` reads; any other command runs only its own words.
_LOOKS_INTO = frozenset({*SHELLS, *_BOXES, *_DASH_C, *RUNNERS, *GLOBAL_OPTIONS, *_RESERVED,
                         "eval", "source", ".", "alias", "trap", "watch", "find", "function",
                         "sudo", *PROGRAMS, "export", "declare", "typeset", "local", "readonly",
                         "set"})  # fmt: skip


def _keyword_body(words: tuple[str, ...]) -> int:
    """Where the command after bash's `time` or `coproc` keyword starts: past `time`'s `-p`
    and `--` (its only options) and any assignments (differential seed 1913291303)."""
    at = 1
    if words[0] == "time":
        at += words[at : at + 1] == ("-p",)
        at += words[at : at + 1] == ("--",)
    while at < len(words) and BASH_ASSIGNMENT.match(words[at]):
        at += 1
    return at


def _skipped(words: tuple[str, ...]) -> int:
    """How many words at the head of a command are bash's syntax, not a command (a reserved
    word, or a function's head `function NAME [()]` that tree-sitter left as a command), or
    assignments tree-sitter left as words (`coproc { A=1 rm x; }`; a quoted `"A=1" rm` runs
    `A=1` to bash, so this is stricter there): bash runs what follows them."""
    if words[0] in _RESERVED:
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


def runs_arguments(program: str) -> bool:
    """Whether bash_runs reads more than the words of a command named `program` (a shell, a
    runner, `eval`, `find`, git's global options, ...): if none of a plain script's commands
    does, its runs are exactly its commands."""
    return (executable_name_lookup_key(program) or program) in _LOOKS_INTO


def _find(
    words: tuple[str, ...],
    dynamic: frozenset[int],
    via: tuple[str, ...],
    depth: int,
    ctx: _Ctx,
    env: Mapping[str, str | None] = _NO_ENV,
) -> bool:
    i = 0
    while i < len(words):
        if words[i] in _FIND_EXEC:
            end = i + 1
            while end < len(words) and words[end] not in (";", "+"):
                end += 1
            rest = words[i + 1 : end]
            label = f"find {words[i]}"
            if rest:
                moved = {k - i - 1 for k in dynamic if i < k < end}
                moved |= {k for k, w in enumerate(rest) if "{}" in w}
                if 0 in moved:
                    why = f"`{label}` runs `{rest[0]}`"
                    if not ctx.add(Run(rest, (*via, label), frozenset(moved), unknowable=why)):
                        return False
                elif not _argv(
                    rest, frozenset(moved), (*via, label), depth + 1, ctx, _no_input, env=env
                ):
                    return False
            i = end
        i += 1
    return True


# --- programs: what programs run for bash (issue 24; the table and readers: shell/programs) ---
# The environment a command gets (its own `VAR=v cmd`, `env VAR=v cmd`, and what the script
# exported earlier) is passed to `programs.handed`, with git's configuration files; each
# command, argv or code it hands on is read here as `sh -c` reads it, as an argv, or made a run
# decided at run time.

_SETS_ENV = frozenset({"env", "sudo", "doas"})  # runners that take `NAME=VALUE` words
_ENV_WORD = re.compile(r"([^=\s-][^=\s]*)=(.*)", re.DOTALL)


def _hands_env(env: Mapping[str, str | None]) -> bool:
    """Whether a variable in `env` may make a program run or load code."""
    return any(v in ENVIRONMENT or v.startswith("BASH_FUNC_") for v in env)


def _assignments(
    words: tuple[str, ...],
    start: int,
    end: int,
    dynamic: frozenset[int],
    env: Mapping[str, str | None],
) -> Mapping[str, str | None]:
    """`env` with the `NAME=VALUE` words of `words[start:end]` (env's, sudo's) added."""
    added: dict[str, str | None] = {}
    for k in range(start, end):
        m = _ENV_WORD.fullmatch(words[k])
        if m is not None:
            added[m.group(1)] = None if k in dynamic else m.group(2)
    return {**env, **added} if added else env


def _assigned_value(node: Node, src: bytes, ctx: _Ctx) -> tuple[str, str | None] | None:
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


def _environment(node: Node, src: bytes, ctx: _Ctx) -> Mapping[str, str | None]:
    """The variables a command gets: those exported earlier, and its own assignments."""
    own: dict[str, str | None] = {}
    for child in node.children:
        if child.type == "variable_assignment":
            pair = _assigned_value(child, src, ctx)
            if pair is not None:
                own[pair[0]] = pair[1]
    if not own:
        return ctx.exported or _NO_ENV
    return {**ctx.exported, **own}


def _declared(node: Node, src: bytes, ctx: _Ctx) -> None:
    """Track `export NAME=VALUE`, `declare -x`, `NAME=VALUE; export NAME`, `set -a`."""
    if node.type == "variable_assignment":
        parent = node.parent
        if parent is not None and parent.type in ("command", "declaration_command"):
            return  # a command's own (see _environment), or a declaration's (below)
        pair = _assigned_value(node, src, ctx)
        if pair is not None:
            ctx.assigned[pair[0]] = pair[1]
            if ctx.allexport or pair[0] in ctx.exported:
                ctx.exported[pair[0]] = pair[1]
        return
    head = text(node.children[0], src) if node.children else ""
    flags = [text(c, src) for c in node.children[1:] if c.type == "word"]
    exporting = head == "export" or any(f.startswith("-") and "x" in f for f in flags)
    if not exporting:
        return
    for child in node.children[1:]:
        if child.type == "variable_assignment":
            pair = _assigned_value(child, src, ctx)
            if pair is not None:
                ctx.exported[pair[0]] = pair[1]
        elif child.type in ("variable_name", "word") and not text(child, src).startswith("-"):
            name = text(child, src)
            if name in ctx.assigned:
                ctx.exported[name] = ctx.assigned[name]


def _programs(
    words: tuple[str, ...],
    dynamic: frozenset[int],
    via: tuple[str, ...],
    depth: int,
    ctx: _Ctx,
    stdin: Callable[[], _Stdin | None],
    env: Mapping[str, str | None],
    source: _Source,
) -> bool:
    """What the program `words` runs through its options, configuration and environment.
    False once the bound is reached."""
    name = executable_name_lookup_key(words[0]) or words[0]
    if name == "set" and any(w == "-a" or (w[:1] == "-" and "a" in w) for w in words[1:]):
        ctx.allexport = True
    script: str | None = None
    if name in READS_INPUT:
        given = stdin()
        if given is not None and given[0] is not None and given[2] is None:
            script = given[0]
    for h in handed(words, dynamic, env, ctx.git, script):
        if h in ctx.seen:  # `export EDITOR=…`: read once, not again for each command after
            continue
        ctx.seen.add(h)
        label = f"{h.program}: {h.how}"
        outer, ctx.by = ctx.by, h
        if h.shell is not None:
            going = source(h.shell, None, label)
        elif h.argv:
            going = _argv(h.argv, frozenset(), (*via, label), depth + 1, ctx, _no_input, env=env)
        else:
            why = h.runtime or f"{h.program} runs what {h.how} says"
            going = ctx.add(Run((), (*via, label), unknowable=why))
        ctx.by = outer
        if not going:
            return False
    return True
