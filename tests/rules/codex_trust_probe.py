"""Ask the real Codex which project rules it loads: `codex exec` offline, against the stand-in.

The stand-in model proposes one `touch <marker>` per probe; every `.codex/rules` folder under
test forbids `touch` for its own marker only. A marker on disk means Codex ran the command (that
folder's rules were not loaded); a missing marker with "rejected" in the tool output means Codex
loaded them. Runs inside `unshare -rn` (loopback only), approval `never`, no sandbox.

Usage (the evidence in docs/trust.md): .venv/bin/python tests/rules/codex_trust_probe.py CODEX
prints, for each layout, which probes Codex refused and whether `codex_layers_for` agrees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

PYTHON = sys.executable


@dataclass(frozen=True)
class Probe:
    marker: str  # the file `touch` creates, relative to cwd
    rules_dir: Path  # the `.codex/rules` folder that forbids it


def forbid(rules_dir: Path, marker: str) -> Probe:
    rules_dir.mkdir(parents=True, exist_ok=True)
    (rules_dir / f"probe-{marker}.rules").write_text(
        f'prefix_rule(pattern=["touch", "{marker}"], decision="forbidden", '
        f'justification="probe {marker}")\n'
    )
    return Probe(marker, rules_dir)


def run_codex(
    codex: Path,
    *,
    codex_home: Path,
    cwd: Path,
    probes: Sequence[Probe],
    work: Path,
    extra: Sequence[str] = (),
) -> dict[str, bool]:
    """{marker: True when Codex refused `touch marker` (its rules were loaded)}."""
    work.mkdir(parents=True, exist_ok=True)
    script = [{"tool": "<auto>", "command": f"touch {p.marker}"} for p in probes]
    script.append({"text": "done"})
    (work / "script.json").write_text(json.dumps(script))
    for name in ("port", "requests.jsonl"):
        (work / name).unlink(missing_ok=True)
    inner = r"""
ip link set lo up
"$PY" -m shellgate.agent.standin "$WORK/script.json" --log "$WORK/requests.jsonl" \
    --port-file "$WORK/port" > "$WORK/standin.log" 2>&1 &
SP=$!
for i in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
PORT=$(cat "$WORK/port")
timeout 60 "$CODEX" exec --json --skip-git-repo-check --ephemeral -C "$CWD" \
  -c model_provider=standin \
  -c "model_providers.standin={name=\"standin\",wire_api=\"responses\",\
base_url=\"http://127.0.0.1:$PORT/v1\"}" \
  -c model=stand-in -c check_for_update_on_startup=false -c analytics.enabled=false \
  -c approval_policy=never -s danger-full-access --disable plugins \
  "$@" "go" > "$WORK/events.jsonl" 2> "$WORK/stderr.txt"
echo "rc=$?" > "$WORK/rc"
kill $SP; wait $SP 2>/dev/null
exit 0
"""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CODEX_")},
        "CODEX_HOME": str(codex_home),
        "CODEX": str(codex),
        "CWD": str(cwd),
        "WORK": str(work),
        "PY": PYTHON,
    }
    subprocess.run(
        ["unshare", "-rn", "bash", "-c", inner, "bash", *extra], env=env, check=True, timeout=120
    )
    outputs = _tool_outputs(work / "requests.jsonl")
    result = {}
    for p in probes:
        ran = (cwd / p.marker).exists()
        refused = any(f"probe {p.marker}" in o for o in outputs)
        if ran == refused:  # neither or both: the probe tells nothing; say so loudly
            raise AssertionError(
                f"probe {p.marker}: ran={ran} refused={refused}; see {work}/events.jsonl, "
                f"{work}/stderr.txt"
            )
        result[p.marker] = refused
    return result


def _tool_outputs(log: Path) -> list[str]:
    out: list[str] = []
    if not log.exists():
        return out
    for line in log.read_text().splitlines():
        body = json.loads(line).get("body") or {}
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                value = item.get("output")
                out.append(value if isinstance(value, str) else json.dumps(value))
    return out


Build = Callable[[Path], tuple[Path, list[Probe]]]  # folder → (cwd, probes)


def _matrix() -> dict[str, tuple[Callable[[Path], str], Build]]:
    def entry(key: object, level: str = "trusted") -> str:
        return f'[projects."{key}"]\ntrust_level = "{level}"\n'

    def tree(d: Path, *nested: str, git: bool = True) -> tuple[Path, list[Probe]]:
        folder = d / "proj"
        folder.mkdir()
        if git:
            subprocess.run(["git", "init", "-q", str(folder)], check=True)
        probes = [forbid(folder / ".codex/rules", "m_root")]
        for part in nested:
            folder = folder / part
            probes.append(forbid(folder / ".codex/rules", f"m_{part}"))
        return folder, probes

    def marked(d: Path) -> tuple[Path, list[Probe]]:
        found = tree(d, "sub", "deep")
        (d / "proj/sub/ROOTMARK").write_text("")
        return found

    def symlinked(d: Path) -> tuple[Path, list[Probe]]:
        _, probes = tree(d)
        (d / "link").symlink_to(d / "proj")
        return d / "link", probes

    def symlinked_nogit(d: Path) -> tuple[Path, list[Probe]]:
        _, probes = tree(d, git=False)
        (d / "link").symlink_to(d / "proj")
        return d / "link", probes

    def real_cwd_nogit(d: Path) -> tuple[Path, list[Probe]]:
        cwd, probes = tree(d, git=False)
        (d / "link").symlink_to(d / "proj")
        (d / "link2").symlink_to(d / "proj")
        return cwd, probes

    def two_links_nogit(d: Path) -> tuple[Path, list[Probe]]:
        _, probes = real_cwd_nogit(d)
        return d / "link", probes

    def worktree(d: Path) -> tuple[Path, list[Probe]]:
        tree(d)
        git = ["git", "-C", str(d / "proj"), "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
        subprocess.run([*git, "worktree", "add", "-q", str(d / "wt")], check=True)
        return d / "wt", [forbid(d / "wt/.codex/rules", "m_wt")]

    P = "proj"
    return {
        "git, root trusted": (lambda d: entry(d / P), tree),
        "git, root untrusted": (lambda d: entry(d / P, "untrusted"), tree),
        "git, no entry": (lambda d: "", tree),
        "git, another project trusted": (lambda d: entry(d / "elsewhere"), tree),
        "git, key with a trailing slash": (lambda d: entry(f"{d / P}/"), tree),
        "nested, root trusted": (lambda d: entry(d / P), lambda d: tree(d, "sub", "deep")),
        "nested, cwd trusted": (
            lambda d: entry(d / P / "sub/deep"),
            lambda d: tree(d, "sub", "deep"),
        ),
        "nested, middle trusted": (
            lambda d: entry(d / P / "sub"),
            lambda d: tree(d, "sub", "deep"),
        ),
        "nested, root untrusted, cwd trusted": (
            lambda d: entry(d / P, "untrusted") + entry(d / P / "sub/deep"),
            lambda d: tree(d, "sub", "deep"),
        ),
        "nested, root trusted, cwd untrusted": (
            lambda d: entry(d / P) + entry(d / P / "sub/deep", "untrusted"),
            lambda d: tree(d, "sub", "deep"),
        ),
        "no git, root trusted": (lambda d: entry(d / P), lambda d: tree(d, git=False)),
        "no git, nested, parent trusted": (
            lambda d: entry(d / P),
            lambda d: tree(d, "sub", git=False),
        ),
        "no git, nested, cwd trusted": (
            lambda d: entry(d / P / "sub"),
            lambda d: tree(d, "sub", git=False),
        ),
        "project_root_markers = [], repo root trusted": (
            lambda d: "project_root_markers = []\n" + entry(d / P),
            lambda d: tree(d, "sub"),
        ),
        "project_root_markers = [ROOTMARK] in sub, sub trusted": (
            lambda d: 'project_root_markers = ["ROOTMARK"]\n' + entry(d / P / "sub"),
            marked,
        ),
        "cwd through a symlink, real path trusted": (lambda d: entry(d / P), symlinked),
        "cwd through a symlink, link path trusted": (lambda d: entry(d / "link"), symlinked),
        "no git, cwd through a symlink, real path trusted": (
            lambda d: entry(d / P),
            symlinked_nogit,
        ),
        "no git, cwd through a symlink, link path trusted": (
            lambda d: entry(d / "link"),
            symlinked_nogit,
        ),
        "no git, real cwd, a symlink to it trusted": (lambda d: entry(d / "link"), real_cwd_nogit),
        "no git, cwd through a symlink, another symlink trusted": (
            lambda d: entry(d / "link2"),
            two_links_nogit,
        ),
        "no git, cwd through a symlink, link untrusted, real path trusted": (
            lambda d: entry(d / "link", "untrusted") + entry(d / P),
            symlinked_nogit,
        ),
        "no git, cwd through a symlink, link trusted, real path untrusted": (
            lambda d: entry(d / "link") + entry(d / P, "untrusted"),
            symlinked_nogit,
        ),
        "worktree, main checkout trusted": (lambda d: entry(d / P), worktree),
        "worktree, worktree trusted": (lambda d: entry(d / "wt"), worktree),
        "worktree, no entry": (lambda d: "", worktree),
        "broken TOML": (lambda d: entry(d / P) + "this is = broken\n", tree),
        'trust_level = "yes"': (lambda d: entry(d / P, "yes"), tree),
    }


def main(argv: Sequence[str]) -> int:
    import shutil

    from shellgate.codexconfig.layers import LayerKind
    from shellgate.codexconfig.resolve import codex_layers_for
    from shellgate.codexconfig.trust import ConfigError

    codex = Path(argv[0]).resolve()
    base = Path(argv[1]) if len(argv) > 1 else Path.home() / "sg-trust-matrix"
    disagreements = 0
    only = argv[2:]
    for n, (name, (config, build)) in enumerate(_matrix().items()):
        if only and not any(o in name for o in only):
            continue
        d = base / str(n)
        shutil.rmtree(d, ignore_errors=True)
        (d / "home").mkdir(parents=True)
        cwd, probes = build(d)
        (d / "home/config.toml").write_text(config(d))
        try:
            layers, _ = codex_layers_for(cwd, codex_home=d / "home")
            ours = {os.path.realpath(x.folder or "") for x in layers if x.kind is LayerKind.PROJECT}
            predicted: object = {p.marker: os.path.realpath(p.rules_dir) in ours for p in probes}
        except ConfigError as exc:
            predicted = f"error {exc.line}:{exc.column}"
        try:
            seen: object = run_codex(codex, codex_home=d / "home", cwd=cwd, probes=probes,
                                     work=d / "work")  # fmt: skip
        except AssertionError:
            lines = (d / "work/stderr.txt").read_text().splitlines()
            where = next((x for x in lines if str(d / "home/config.toml") in x), "?")
            seen = "error " + ":".join(where.split(":")[1:3])
        agree = "agrees" if seen == predicted else "DISAGREES"
        disagreements += seen != predicted
        print(f"{name:55s} codex {seen}  shellgate {agree}", flush=True)
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
