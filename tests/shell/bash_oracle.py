"""What real bash runs for a script, recorded, against ShellGate's plain split.

`generate(n, seed)` draws scripts in three tiers: `ordinary` (the commands agents run, joined as
they join them), `pipeline-newline` (pipelines then a newline then more: tree-sitter's glue) and
`adversarial` (a plain list plus one or two constructs where parsers disagree). `bash_runs`
runs each script in real bash inside bubblewrap (no network, a tmpfs root, the system
read-only) with every command replaced by a stub that records its argv: every builtin becomes a
function, every other name reaches `command_not_found_handle` (PATH leads nowhere). Brace
expansion and globbing are off and HOME is `~`, so words stay as written. Each script runs
three times: every command succeeding, every command failing, and alternating, so both sides
of `&&`/`||` run. Not recorded: `builtin` itself (the stubs need it) and aliases.

Run as a script for the report (per tier: scripts, plain, hides, the cross-check's flags; a
false flag is a flag on a script whose split is exactly what bash ran):
`PYTHONPATH=tests .venv/bin/python tests/shell/bash_oracle.py --n 1200 --seed 2`.
"""

from __future__ import annotations

import random
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bash_sandbox import records, run_driver

STUBS = r"""
set +B -f
builtin trap 'builtin wait' EXIT  # a coprocess records before bash exits
__n=0
__rec() {
  # One file per process: a coprocess's record would interleave with ours (an argument's
  # newline flushes printf's output part way).
  builtin printf '%s\0' "$#" "$@" >> "$__RECFILE.$BASHPID"
  case $__MODE in
    a) __n=$((__n + 1)); builtin return $((__n % 2)) ;;
    *) builtin return "$__MODE" ;;
  esac
}
command_not_found_handle() { __rec "$@"; }
for __b in $(builtin compgen -b); do
  case $__b in builtin) continue ;; esac
  builtin eval "function $__b { __rec $__b \"\$@\"; }"
done
builtin unset __b
"""

DRIVER = r"""
i=0
while IFS= read -r -d '' s; do
  for m in 0 1 a; do
    __MODE=$m __RECFILE=/out/$i.$m BASH_ENV=/stubs.sh HOME='~' PATH=/nonexistent \
      /usr/bin/timeout -k 1 5 /bin/bash -c "$s" </dev/null >/dev/null 2>&1
    : >> /out/$i.$m
  done
  i=$((i + 1))
done < /in/scripts
"""

MODES = ("0", "1", "a")


def bash_runs(scripts: Sequence[str], *, timeout: float = 600) -> list[set[tuple[str, ...]]]:
    """The argvs bash ran for each script (the union over the three runs)."""
    with tempfile.TemporaryDirectory(prefix="shellgate-oracle-") as tmp:
        d = Path(tmp)
        (d / "stubs.sh").write_text(STUBS)
        mounts = ["--dir", "/w", "--chdir", "/w"]
        for top in ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/etc/alternatives"):
            if Path(top).exists():
                mounts += ["--ro-bind", top, top]
        mounts += ["--ro-bind", str(d / "stubs.sh"), "/stubs.sh"]
        out_dir = run_driver(d, scripts, DRIVER, mounts, "/bin/bash", timeout)
        out: list[set[tuple[str, ...]]] = []
        for i in range(len(scripts)):
            ran: set[tuple[str, ...]] = set()
            for mode in MODES:
                record = out_dir / f"{i}.{mode}"
                if not record.exists():
                    raise RuntimeError(f"bash left no record for script {i} ({scripts[i]!r})")
                for part in out_dir.glob(f"{i}.{mode}.*"):
                    ran.update(records(part.read_bytes()))
            out.append(ran)
        return out


def hides(split: Sequence[Sequence[str]] | None, ran: set[tuple[str, ...]]) -> set[tuple[str, ...]]:
    """The argvs bash ran that a split (what the rules see) does not hold; none if not plain."""
    if split is None:
        return set()
    return ran - {tuple(c) for c in split}


# -- the corpus ---------------------------------------------------------------------------------

ORDINARY = [
    "git status", "git diff", "git diff --stat", "git log --oneline -n 5", "git add -A",
    'git commit -m "wip: parser"', "git show HEAD:README.md", "ls", "ls -la", "ls -1 src",
    "pwd", "cat README.md", "head -n 20 src/main.py", "tail -5 log.txt", "wc -l", "sort",
    "uniq -c", "grep -n foo src/main.py", "grep -rn 'TODO' src", 'rg -n "fn main" src',
    "rg -g'*.py' pattern", "rg --files", "sed -n 1,40p src/lib.rs", "sed -n '1,20p' a.txt",
    "echo hi", 'echo "hello world"', "echo 'done'", "cargo test", "cargo build --release",
    "npm test", "npm run lint", "python3 -m pytest -q", "pytest tests/test_x.py -k smoke",
    "make", "make build", "cd sub", "find . -name x.py", "cut -d: -f1", "true", "rm -rf build",
    "rm -f out.txt", "mkdir -p out", "touch x", "cp a.txt b.txt", "mv a.txt b.txt",
    "curl -s https://example.com", "go test ./...", "node index.js", "jq .name package.json",
    "diff a.txt b.txt", "du -sh .", "printf '%s\\n' a b", 'rg -n "def \\w+" src',
    'grep -E "foo|bar" a.txt', "awk '{print $1}' a.txt", "python3 -c 'import sys; print(1)'",
    "git log --format='%h %s' -n 5", "sed -i 's/a/b/g' a.txt", "npm install --save-dev ts",
    "pip install -r requirements.txt", "time cargo build", "tree -L 2",
]  # fmt: skip
ORDINARY_NOT_PLAIN = [
    "ls > out.txt", "git status 2>&1", "echo $HOME", 'cat "$FILE"', "echo $(pwd)",
    "FOO=1 make", "ls *.py", "cat <<'EOF'\nhi\nEOF", "for f in a; do echo $f; done",
    "if [ -f x ]; then cat x; fi", "export A=1", "ls ~", "[ -d out ] || mkdir out",
]  # fmt: skip
BASE = [
    "git status", "ls", "ls -la", "pwd", "cat a", "head -n 5", "wc -l", "sort", "grep -n foo a",
    "echo hi", "cargo test", "make", "cd sub", "true", "git diff", "npm test", "rm -rf x",
    "curl evil", "git push --force", "sudo rm -rf y", "chmod 777 f", "echo RAN",
]  # fmt: skip
SEPS = [" && ", "; ", " || "]
SPACES = ["\u00a0", "\u1680", "\u2000", "\u2003", "\u2009", "\u200b", "\u2028", "\u2029",
          "\u202f", "\u205f", "\u3000", "\u0085", "\ufeff"]  # fmt: skip


def _sub(rng: random.Random, s: str, olds: Sequence[str], new: str | Callable[[], str]) -> str:
    """`s` with one random occurrence of one of `olds` replaced."""
    spots = [(i, o) for o in olds for i in range(len(s)) if s.startswith(o, i)]
    if not spots:
        return s
    i, old = rng.choice(spots)
    return s[:i] + (new() if callable(new) else new) + s[i + len(old) :]


def _blank(rng: random.Random, s: str, new: str | Callable[[], str]) -> str:
    """`s` with one blank between two words replaced."""
    spots = [
        i
        for i in range(1, len(s) - 1)
        if s[i] == " " and s[i - 1] not in "&|;" and s[i + 1] not in "&|;"
    ]
    if not spots:
        return s
    i = rng.choice(spots)
    return s[:i] + (new() if callable(new) else new) + s[i + 1 :]


def _word(rng: random.Random, s: str, word: str) -> str:
    """`s` with `word` added to a random command."""
    cuts = [i for i in range(len(s)) if s.startswith((" && ", " || ", "; ", " | ", "\n"), i)]
    i = rng.choice([*cuts, len(s)])
    return s[:i] + " " + word + s[i:]


def _pick(*options: str) -> Callable[[random.Random], str]:
    return lambda rng: rng.choice(options)


Construct = Callable[[random.Random, str], str]
CONSTRUCTS: dict[str, Construct] = {
    "pipe": lambda r, s: _sub(r, s, SEPS, " | "),
    "newline": lambda r, s: _sub(r, s, SEPS, _pick("\n", "\n\n", "\n  ", " \n")(r)),
    "pipe_newline": lambda r, s: " | ".join(r.choice(BASE) for _ in range(r.randint(2, 4)))
    + _pick("\n", "\n\n", "\n  ")(r) + s,
    "crlf": lambda r, s: _sub(r, s, SEPS, "\r\n"),
    "cr_ff_vt": lambda r, s: _blank(r, s, _pick("\r", "\f", "\v", " \r")(r)),
    "tab": lambda r, s: _blank(r, s, "\t"),
    "unicode_space": lambda r, s: _blank(r, s, r.choice(SPACES)),
    "unicode_after_dash": lambda r, s: _word(r, s, _pick("-a", "-la", "-x", "--f")(r)
                                             + r.choice(SPACES) + _pick("b", "RAN", "-f")(r)),
    "cont": lambda r, s: _blank(r, s, _pick(" \\\n", " \\\n  ", "\\\n", " \\\r\n")(r)),
    "cont_after_op": lambda r, s: _sub(r, s, ["&& ", "|| ", "; "], _pick("&& \\\n", "; \\\n")(r)),
    "escape_blank": lambda r, s: _blank(r, s, _pick("\\ ", " \\ ", "\\\t")(r)),
    "escape_name": lambda r, s: "\\" + s,
    "squote": lambda r, s: _word(r, s, _pick("'a b'", "''", "'it'\\''s'", "'a;b'", "'\n'")(r)),
    "dquote": lambda r, s: _word(r, s, _pick('"a b"', '""', '"a\\"b"', '"a\\nb"', '"a\nb"')(r)),
    "concat": lambda r, s: _word(r, s, _pick("\"a\"'b'", "a\"b\"'c'", "-g\"*.py\"", "x''y")(r)),
    "ansi_c": lambda r, s: _word(r, s, _pick("$'a b'", "$'\\x41'", "$'x\\'' && rm -rf y #'")(r)),
    "comment": lambda r, s: _sub(r, s, SEPS, _pick(" # c\n", "\n# c\n", " #&& rm -rf z\n")(r)),
    "hash_word": lambda r, s: _word(r, s, _pick("a#b", "x#", "#", "\\#x")(r)),
    "heredoc": lambda r, s: _sub(r, s, SEPS,
                                 _pick(" <<EOF\nhi\nEOF\n", " <<'EOF'\nrm x\nEOF\n")(r)),
    "herestring": lambda r, s: _word(r, s, _pick("<<< word", "<<<x")(r)),
    "keyword_time": lambda r, s: _pick("time ", "time -p ", "time -- ")(r) + s
    if r.random() < 0.5
    else _sub(r, s, ["&& ", "; ", "| "], lambda: r.choice(["&& ", "; ", "| "]) + "time "),
    "keyword_coproc": lambda r, s: "coproc " + s
    if r.random() < 0.5 else _sub(r, s, ["; ", "| "], lambda: r.choice(["; ", "| "]) + "coproc "),
    "keyword_other": lambda r, s: _sub(r, s, SEPS, lambda: r.choice(SEPS) + r.choice(
        ["! ", "{ ", "function ", "select ", "then ", "do ", "in ", "[[ ", "]] ", "} "])),
    "keyword_words": lambda r, s: _word(r, s, _pick(
        "if", "then", "fi", "{", "}", "!", "time", "coproc", "in", "]]")(r)),
    "bang": lambda r, s: "! " + s if r.random() < 0.5 else "!" + s,
    "subshell": lambda r, s: "(" + s + ")",
    "brace": lambda r, s: "{ " + s + "; }",
    "case": lambda r, s: "case a in a) " + s + " ;; esac",
    "dbracket": lambda r, s: "[[ -n a ]] && " + s,
    "arith": lambda r, s: _pick("(( 1 )) && ", "echo $((1 + 2)) && ")(r) + s,
    "background": lambda r, s: _sub(r, s, SEPS, _pick(" & ", " &\n")(r)),
    "pipe_amp": lambda r, s: _sub(r, s, SEPS, " |& "),
    "tight_ops": lambda r, s: s.replace(" && ", "&&").replace(" || ", "||").replace("; ", ";"),
    "trailing": lambda r, s: s + _pick(";", " ;", "\n", " \\")(r),
    "leading": lambda r, s: _pick(" ", "\t", "\n", "\r", "\f", ";")(r) + s,
    "cmdsub": lambda r, s: _word(r, s, _pick("$(ls)", "`ls`", "$(echo a; rm -rf z)")(r)),
    "procsub": lambda r, s: _word(r, s, "<(ls)"),
    "redirect": lambda r, s: _word(r, s, _pick("> f", "2>&1", "< a", "2>/dev/null")(r)),
    "assign": lambda r, s: _pick("A=1 ", "A=1; ")(r) + s,
    "param": lambda r, s: _word(r, s, _pick("$x", '"${x}"', '"$@"')(r)),
    "nonascii": lambda r, s: _word(r, s, _pick("é", "中文", "naïve", "😀", "ﬁle")(r)),
    "glob": lambda r, s: _word(r, s, _pick("*.py", "a?", "[ab]", "~", "{a,b}", "x^y")(r)),
    "eval": lambda r, s: _sub(r, s, SEPS, lambda: r.choice(SEPS) + r.choice(
        ["eval ", "exec ", "command ", "builtin "])),
}  # fmt: skip


def _ordinary(rng: random.Random) -> str:
    n = rng.choice([1, 2, 2, 3, 3, 4, 5])
    parts = [rng.choice(ORDINARY if rng.random() > 0.12 else ORDINARY_NOT_PLAIN) for _ in range(n)]
    seps = [" && ", " && ", " | ", "; ", " || ", "\n"]
    return parts[0] + "".join(rng.choice(seps) + p for p in parts[1:])


def _pipeline_newline(rng: random.Random) -> str:
    stages = ["git status", "cat", "head", "ls", "sort", "grep x", "wc -l"]
    pipe = " | ".join(rng.choice(stages) for _ in range(rng.randint(2, 4)))
    newline = rng.choice(["\n", "\n\n", "\n  ", " \n", "\n# c\n"])
    tail = rng.choice(["", " && true", " || true", " && ls", " | cat", "; ls", " &&\nls"])
    head = rng.choice(["", "", "ls && ", "ls; ", "ls || "])
    return head + pipe + newline + rng.choice(BASE) + tail


def _adversarial(rng: random.Random) -> str:
    base = rng.choice(BASE) + "".join(
        rng.choice(SEPS) + rng.choice(BASE) for _ in range(rng.randint(1, 3))
    )
    for name in rng.sample(sorted(CONSTRUCTS), 1 if rng.random() < 0.6 else 2):
        base = CONSTRUCTS[name](rng, base)
    return base


TIERS: dict[str, Callable[[random.Random], str]] = {
    "ordinary": _ordinary,
    "pipeline-newline": _pipeline_newline,
    "adversarial": _adversarial,
}
SHARES = {"ordinary": 0.35, "pipeline-newline": 0.1, "adversarial": 0.55}


@dataclass(frozen=True)
class Script:
    tier: str
    text: str


def generate(n: int, seed: int) -> list[Script]:
    rng = random.Random(seed)
    out: list[Script] = []
    for tier, share in SHARES.items():
        seen: set[str] = set()
        want = round(n * share)
        for _ in range(want * 20):
            if len(seen) == want:
                break
            text = TIERS[tier](rng)
            if text not in seen:
                seen.add(text)
                out.append(Script(tier, text))
    return out


# -- the report ---------------------------------------------------------------------------------


def report(n: int, seed: int) -> str:
    from shellgate.shell import bash_reading
    from shellgate.shell.tsbash import read_split

    scripts = generate(n, seed)
    ran = bash_runs([s.text for s in scripts])
    rows: Counter[tuple[str, str]] = Counter()
    examples: list[str] = []
    for script, bash in zip(scripts, ran, strict=True):
        reading = read_split(script.text)
        rows[script.tier, "scripts"] += 1
        codex_hides = hides(reading.codex, bash)
        ours_hides = hides(reading.commands, bash)
        rows[script.tier, "codex plain"] += reading.codex is not None
        rows[script.tier, "codex hides"] += bool(codex_hides)
        rows[script.tier, "plain"] += reading.commands is not None
        rows[script.tier, "hides"] += bool(ours_hides)
        if ours_hides:
            examples.append(f"  {script.text!r}: bash ran {sorted(ours_hides)}")
        if reading.commands is not None:
            bash_reading.enable()
            flagged = read_split(script.text).commands is None
            bash_reading.disable()
            rows[script.tier, "cross-check flags"] += flagged
            rows[script.tier, "false flags"] += flagged and set(reading.commands) == bash
            rows[script.tier, "missed by cross-check"] += bool(ours_hides) and not flagged
    cols = ["scripts", "codex plain", "codex hides", "plain", "hides", "cross-check flags",
            "false flags", "missed by cross-check"]  # fmt: skip
    lines = [f"seed {seed}, {len(scripts)} scripts", "tier".ljust(18) + " | ".join(cols)]
    for tier in [*TIERS, "all"]:
        cells = [
            sum(v for (t, c), v in rows.items() if c == col and tier in (t, "all")) for col in cols
        ]
        lines.append(
            tier.ljust(18)
            + " | ".join(str(v).rjust(len(c)) for v, c in zip(cells, cols, strict=True))
        )
    return "\n".join([*lines, *examples[:20]])


if __name__ == "__main__":
    import argparse

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--n", type=int, default=1200)
    p.add_argument("--seed", type=int, default=2)
    a = p.parse_args()
    print(report(a.n, a.seed))
