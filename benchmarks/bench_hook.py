"""Whole-process `shellgate hook`, an allowed command, no editor reachable (issue 11).

Each round runs, in turn: a bare `python -c pass` start (the floor), and `shellgate hook
claude-code`, `gemini` and `codex` on a PreToolUse/BeforeTool event for `git status` under a
3-rule policy (the second and later runs: the decision memo's path, as for any command an
agent repeats), exactly as the agents start the hook (the installed command: this interpreter,
`-I -m shellgate hook AGENT`, the event on stdin). Prints p50 and p90 of each, the load
average, and the target: p50 <= 60 ms for the hook.

    .venv/bin/python benchmarks/bench_hook.py [--runs N] [--strict] [--system-tier]

`--strict` exits 1 when the target is missed or a hook answer is not the expected one.
`--system-tier` (issue 19) measures each hook side by side with and without an admin tier:
the bench re-runs itself in a private user + mount namespace (an overlay over /etc whose upper
layer is scratch, so the machine's /etc is never written) and, round by round, binds a scratch
`/etc/codex` (rules, requirements.toml with rules and constraints, config.toml) or unbinds it;
target: the tier adds <= 2 ms to the p50.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_MS = 60.0
TIER_TARGET_MS = 2.0
SYSTEM_RULES = 'prefix_rule(pattern=["curl"], decision="prompt", justification="admin")\n'
REQUIREMENTS = """\
allowed_approval_policies = ["untrusted", "on-request"]
allowed_sandbox_modes = ["read-only", "workspace-write", "danger-full-access"]
[rules]
prefix_rules = [
  { pattern = [{ token = "rm" }, { any_of = ["-rf", "-fr"] }], decision = "forbidden" },
  { pattern = [{ token = "git" }, { token = "push" }], decision = "prompt" },
]
"""
RULES = """\
prefix_rule(pattern=["git", "status"], decision="allow")
prefix_rule(pattern=["git", ["push", "fetch"]], decision="prompt", justification="network")
prefix_rule(pattern=["rm", "-rf"], decision="forbidden")
"""
EVENTS = {
    "claude-code": {"hook_event_name": "PreToolUse", "tool_name": "Bash"},
    "gemini": {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command"},
    "codex": {"hook_event_name": "PreToolUse", "tool_name": "Bash"},
}


def _ms(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def _time(argv: list[str], stdin: str, env: dict[str, str], cwd: str) -> tuple[float, str, float]:
    """Wall ms, stdout, and CPU ms (user + system: steadier than wall on a shared machine)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin, env=env, cwd=cwd, capture_output=True, text=True)
    elapsed = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed ({done.returncode}): {done.stderr}")
    return elapsed, done.stdout, cpu


def _in_namespace(argv: list[str]) -> int:
    """Run this bench again inside `unshare -rm`, where /etc/codex can be bound and unbound."""
    return subprocess.run(["unshare", "-rm", sys.executable, __file__, *argv,
                           "--inside-namespace"]).returncode  # fmt: skip


class SystemTier:
    """A scratch /etc/codex, bound for the "with" samples and unbound for the others."""

    def __init__(self, scratch: Path) -> None:
        self.folder = scratch / "etc-codex"
        (self.folder / "rules").mkdir(parents=True)
        (self.folder / "rules" / "admin.rules").write_text(SYSTEM_RULES)
        (self.folder / "requirements.toml").write_text(REQUIREMENTS)
        (self.folder / "config.toml").write_text('sandbox_mode = "workspace-write"\n')
        upper, work = scratch / "upper", scratch / "work"
        upper.mkdir()
        work.mkdir()
        opts = f"lowerdir=/etc,upperdir={upper},workdir={work}"
        subprocess.run(["mount", "-t", "overlay", "overlay", "-o", opts, "/etc"], check=True)
        os.makedirs("/etc/codex", exist_ok=True)
        self.bound = False

    def set(self, bound: bool) -> bool:
        """Bind or unbind; True when that changed anything."""
        if bound == self.bound:
            return False
        cmd = ["mount", "--bind", str(self.folder), "/etc/codex"] if bound else [
            "umount", "/etc/codex"]  # fmt: skip
        subprocess.run(cmd, check=True)
        self.bound = bound
        return True


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--strict", action="store_true")
    p.add_argument("--system-tier", action="store_true")
    p.add_argument("--inside-namespace", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.system_tier and not args.inside_namespace:
        return _in_namespace(sys.argv[1:])
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / ".codex" / "rules").mkdir(parents=True)
        (home / ".codex" / "rules" / "default.rules").write_text(RULES)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": tmp,
            "CODEX_HOME": str(home / ".codex"),
            "XDG_CACHE_HOME": str(home / "cache"),
        }
        env["XDG_RUNTIME_DIR"] = str(home / "run")  # no editor: no server's discovery file
        (home / "run").mkdir(mode=0o700)
        contenders: dict[str, tuple[list[str], str]] = {
            "python -c pass": ([sys.executable, "-I", "-c", "pass"], "")
        }
        for agent, event in EVENTS.items():
            body = {
                **event,
                "cwd": tmp,
                "session_id": "bench",
                "tool_input": {"command": "git status"},
            }
            argv = [sys.executable, "-I", "-m", "shellgate", "hook", agent]
            contenders[f"shellgate hook {agent}"] = (argv, json.dumps(body))
        tier = SystemTier(home) if args.system_tier else None
        if tier is not None:
            for name in [n for n in contenders if n.startswith("shellgate")]:
                contenders[name + " +tier"] = contenders[name]
        ok = True
        for name, (argv, stdin) in contenders.items():  # warm: the compiled-policy cache
            if tier is not None:
                tier.set(name.endswith("+tier"))
            _, out, _ = _time(argv, stdin, env, tmp)
            if name.endswith("claude-code"):
                ok &= json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "allow"
            elif name.endswith("gemini"):
                ok &= json.loads(out)["decision"] == "allow"
            elif name.endswith("codex"):
                ok &= out == ""  # quiet: Codex applies its rules itself
        samples: dict[str, list[float]] = {name: [] for name in contenders}
        cpu: dict[str, list[float]] = {name: [] for name in contenders}
        names = list(contenders)
        for i in range(args.runs):
            for name in names[i % len(names) :] + names[: i % len(names)]:
                if tier is not None and tier.set(name.endswith("+tier")):
                    # the first run after a mount change pays for it: not the tier's cost
                    _time(*contenders[name][:2], env, tmp)
                wall, _, used = _time(*contenders[name][:2], env, tmp)
                samples[name].append(wall)
                cpu[name].append(used)
    load = os.getloadavg()
    print(
        f"shellgate hook, whole process, allowed command, no editor ({args.runs} runs each; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})"
    )
    missed = False
    for name, values in samples.items():
        p50, p90 = _ms(values)
        target = "" if name.startswith("python") else f"   target p50 <= {TARGET_MS:.0f} ms"
        if target and p50 > TARGET_MS:
            target += "  MISSED"
            missed = True
        c50 = statistics.median(cpu[name])
        print(f"  {name:<32} p50 {p50:6.1f} ms   p90 {p90:6.1f} ms   cpu p50 {c50:6.1f} ms{target}")
    if args.system_tier:
        for name in [n for n in samples if n.endswith("+tier")]:
            bare = name.removesuffix(" +tier")
            added = _ms(samples[name])[0] - _ms(samples[bare])[0]
            added_cpu = statistics.median(cpu[name]) - statistics.median(cpu[bare])
            verdict = "met" if added <= TIER_TARGET_MS else "MISSED"
            missed |= added > TIER_TARGET_MS
            print(f"  system tier adds {added:+5.1f} ms to {bare} p50 (cpu {added_cpu:+5.1f} ms)"
                  f"   target <= {TIER_TARGET_MS:.0f} ms: {verdict}")  # fmt: skip
    if not ok:
        print("  a hook did not give the expected answer")
    return 1 if args.strict and (missed or not ok) else 0


if __name__ == "__main__":
    sys.exit(main())
