"""The admin's tier against the real Codex 0.169.0 and 0.171.0, row by row.

A seeded generator draws admin set-ups: rules in `/etc/codex/rules` (layer system), in
`requirements.toml` (forbidden, prompt, prompt-user) and in the user's `rules/`, the
requirements' allowed approval policies and sandbox modes and `deny_read`, a managed PreToolUse
hook (`[hooks]`) refusing one command, a system `config.toml`; and for each, sessions (approval
policy x sandbox mode) running a command some rule matches and one none does. Each set-up runs
in a private user + mount + network namespace with a scratch folder as `/etc/codex`
(managed_appserver.py; the machine's own /etc is never written), through Codex's app-server
(one thread per session, the stand-in model calling its shell tool), and through ShellGate's
`explain --json` and `hook claude-code` in the same namespace (`explain --run-hooks`: the
admin's hook runs there too). Compared per row: what happens first (runs, asks, refused), the
refusal's words, the session's effective approval policy and sandbox, Codex's fallback
warnings; and for invalid requirements files, Codex's startup error against ShellGate's.

One mapping, documented in README.md (deliberate differences): a `prompt-user` rule under a
policy that may ask is refused by Codex's app-server ("approval request failed": it has no
channel for that request), where ShellGate asks a person; the row must show exactly that.

`SHELLGATE_MANAGED_SEED` reproduces a run, `SHELLGATE_MANAGED_SETUPS` sets how many set-ups are
drawn per run (default 6, plus 3 invalid files).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from test_requirements import INVALID

import realtools

HERE = Path(__file__).parent
SEED = int(os.environ.get("SHELLGATE_MANAGED_SEED") or random.SystemRandom().randrange(2**32))
SETUPS = int(os.environ.get("SHELLGATE_MANAGED_SETUPS") or 6)
INVALID_PER_RUN = 3

COMMANDS = ("pwd", "echo hi", "git status", "touch made", "ls -la")
POLICIES = ("untrusted", "on-request", "never")
MODES = ("read-only", "workspace-write", "danger-full-access")


@dataclass
class Setup:
    name: str
    requirements: str | None = None
    system_rules: str | None = None
    user_rules: str | None = None
    system_config: str | None = None
    user_config: str | None = None
    cases: list[dict[str, str]] = field(default_factory=list)
    prompt_user: set[str] = field(default_factory=set)  # first words of prompt-user rules
    hook_word: str | None = None  # a managed PreToolUse hook refuses commands starting so


# The admin's managed PreToolUse hook (requirements.toml [hooks], issue 25): refuses a command
# whose first word is its argument, saying so; quiet otherwise.
DENY_HOOK = """import json, sys
event = json.load(sys.stdin)
words = event["tool_input"]["command"].split()
if words and words[0] == sys.argv[1]:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "admin hook says no to " + sys.argv[1]}}))
"""


def _rule(word: str, decision: str, tier: str) -> str:
    return (f'prefix_rule(pattern=["{word}"], decision="{decision}", '
            f'justification="{tier} says {decision} {word}")\n')  # fmt: skip


def draw(rng: random.Random, n: int) -> list[Setup]:
    setups: list[Setup] = []
    for i in range(n):
        s = Setup(f"setup-{i}")
        words = rng.sample([c.split()[0] for c in COMMANDS], 3)
        lines: list[str] = []
        allowed_a = rng.choice([None, ["untrusted", "on-request"], ["on-request"],
                                ["never", "on-request"]])  # fmt: skip
        allowed_s = rng.choice([None, ["read-only"], ["read-only", "workspace-write"]])
        if allowed_a:
            lines.append(f"allowed_approval_policies = {json.dumps(allowed_a)}")
        if allowed_s:
            lines.append(f"allowed_sandbox_modes = {json.dumps(allowed_s)}")
        if rng.random() < 0.25:
            lines += ["[permissions.filesystem]", 'deny_read = ["secret.txt"]']
        if rng.random() < 0.8:
            decision = rng.choice(["forbidden", "prompt", "prompt-user"])
            if decision == "prompt-user":
                s.prompt_user.add(words[0])
            just = f', justification = "admin says {decision}"' if rng.random() < 0.7 else ""
            form = rng.random() < 0.5
            if form:
                lines += ["[rules]", "prefix_rules = [",
                          f'  {{ pattern = [{{ token = "{words[0]}" }}], '
                          f'decision = "{decision}"{just} }},', "]"]  # fmt: skip
            else:
                lines += ["[[rules.prefix_rules]]", f'pattern = [{{ token = "{words[0]}" }}]',
                          f'decision = "{decision}"']  # fmt: skip
                lines += [just.lstrip(", ")] if just else []
        if rng.random() < 0.35:  # the admin's hook refuses one of the words (issue 25)
            s.hook_word = rng.choice(words)
            lines += ["[hooks]", "[[hooks.PreToolUse]]", 'matcher = "Bash"',
                      "[[hooks.PreToolUse.hooks]]", 'type = "command"',
                      f'command = "python3 /etc/codex/hooks/deny.py {s.hook_word}"']  # fmt: skip
        s.requirements = "\n".join(lines) + "\n" if lines else None
        if rng.random() < 0.6:
            s.system_rules = _rule(words[1], rng.choice(["allow", "prompt", "forbidden"]), "sys")
        if rng.random() < 0.5:
            s.user_rules = _rule(rng.choice(words), rng.choice(["allow", "prompt", "forbidden"]),
                                 "user")  # fmt: skip
        if rng.random() < 0.4:
            s.system_config = f'approval_policy = "{rng.choice(["on-request", "never"])}"\n'
        if rng.random() < 0.3:
            s.user_config = f'approval_policy = "{rng.choice(["on-request", "never"])}"\n'
        sessions = rng.sample([(p, m) for p in POLICIES for m in MODES], 2)
        if rng.random() < 0.5:  # no policy given: the config files' (user over system)
            sessions[1] = ("", sessions[1][1])
        for policy, mode in sessions:
            for command in (next(c for c in COMMANDS if c.split()[0] == words[0]),
                            rng.choice(COMMANDS)):  # fmt: skip
                s.cases.append({"approvalPolicy": policy, "sandbox": mode, "command": command})
        setups.append(s)
    return setups


def invalid_setups(rng: random.Random) -> list[Setup]:
    picked = rng.sample(range(len(INVALID)), INVALID_PER_RUN)
    case = {"approvalPolicy": "on-request", "sandbox": "workspace-write", "command": "pwd"}
    return [Setup(f"invalid-{i}", requirements=INVALID[i][0] + "\n", cases=[case]) for i in picked]


@pytest.fixture(scope="module")
def base() -> Iterator[Path]:
    # Codex refuses to put its helpers under a temporary folder: a cache folder instead
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "shellgate-tests"
    root.mkdir(parents=True, exist_ok=True)
    d = Path(tempfile.mkdtemp(prefix="managed-", dir=root))
    yield d
    if not os.environ.get("SHELLGATE_KEEP"):
        shutil.rmtree(d, ignore_errors=True)


def run_setup(base: Path, setup: Setup, version: str, with_shellgate: bool) -> dict[str, Any]:
    d = base / f"{setup.name}-{version}"
    sys_dir, home, ws = d / "sys", d / "home", d / "ws"
    for folder in (sys_dir / "rules", home / "rules", ws, d / "scratch"):
        folder.mkdir(parents=True, exist_ok=True)
    (ws / "secret.txt").write_text("secret\n")
    if setup.requirements is not None:
        (sys_dir / "requirements.toml").write_text(setup.requirements)
    if setup.hook_word is not None:
        (sys_dir / "hooks").mkdir(exist_ok=True)
        (sys_dir / "hooks" / "deny.py").write_text(DENY_HOOK)
    if setup.system_rules is not None:
        (sys_dir / "rules" / "admin.rules").write_text(setup.system_rules)
    if setup.user_rules is not None:
        (home / "rules" / "default.rules").write_text(setup.user_rules)
    if setup.system_config is not None:
        (sys_dir / "config.toml").write_text(setup.system_config)
    if setup.user_config is not None:
        (home / "config.toml").write_text(setup.user_config)
    config = {"codex": str(realtools.codex(version)), "system": str(sys_dir), "home": str(home),
              "ws": str(ws), "scratch": str(d / "scratch"), "cases": setup.cases,
              "timeout": 30, "shellgate": with_shellgate}  # fmt: skip
    (d / "config.json").write_text(json.dumps(config))
    subprocess.run(
        ["unshare", "-rmn", sys.executable, str(HERE / "managed_appserver.py"),
         str(d / "config.json"), str(d / "result.json")],
        check=True, timeout=300,
    )  # fmt: skip
    result: dict[str, Any] = json.loads((d / "result.json").read_text())
    return result


HOOK_BLOCKED = "Command blocked by PreToolUse hook: "
_EXITED = re.compile(r"^(Process exited with code|Exit code:) -?\d+", re.M)
_REJECTED = re.compile(r'Rejected\(\\?"(.*?)\\?"\)')
_MODE = {"readOnly": "read-only", "workspaceWrite": "workspace-write",
         "dangerFullAccess": "danger-full-access"}  # fmt: skip


def codex_row(case: dict[str, Any]) -> dict[str, Any]:
    if case.get("thread_error"):
        return {"outcome": "session refused", "words": case["thread_error"]}
    eff = case.get("effective") or {}
    blocked = [o for o in case.get("outputs", []) if o.startswith(HOOK_BLOCKED)]
    summaries = [w["params"]["summary"] for w in case.get("warnings", [])
                 if w.get("method") == "configWarning"]  # fmt: skip
    warnings = sorted({w for w in summaries if "disallowed by requirements" in w})
    row: dict[str, Any] = {
        "approval": eff.get("approvalPolicy"),
        "sandbox": _MODE.get((eff.get("sandbox") or {}).get("type"), "?"),
        "warnings": warnings,
    }
    if blocked:  # the admin's PreToolUse hook refused it, before the rules
        row.update(outcome="hook refused", words=blocked[0])
        return row
    if case.get("approvals"):
        row["outcome"] = "asks"
        return row
    rejected = [m.group(1) for o in case.get("outputs", []) for m in [_REJECTED.search(o)] if m]
    if rejected:
        words = rejected[0].replace('\\\\"', '"')
        if words == "approval request failed":
            row["outcome"] = "prompt-user refused"
        else:
            row.update(outcome="refused", words=words.split(" rejected: ")[-1])
        return row
    # the model is told the exit code of what ran; the item notifications alone are not enough:
    # Codex does not always send them before the turn ends (seen once in a CI run)
    ran = [i for i in case.get("items", []) if not i["started"] and i.get("exitCode") is not None]
    told = [o for o in case.get("outputs", []) if _EXITED.search(o)]
    row["outcome"] = "runs" if ran or told else f"? {case}"
    return row


def explain_row(out: dict[str, Any], prompt_user: set[str], command: str) -> dict[str, Any]:
    if out["rc"] != 0:
        first = out["stderr"].splitlines()[0] if out["stderr"] else ""
        return {"outcome": "stopped", "words": first}
    ex = json.loads(out["stdout"])
    ctx = ex["context"]
    session = ctx.get("session") or {}
    row: dict[str, Any] = {"approval": ctx["approval_policy"], "sandbox": ctx["sandbox"],
                           "warnings": sorted(set(session.get("warnings", [])))}  # fmt: skip
    req = ex["requirement"]
    decided = (ex.get("answerers") or {}).get("decision") or {}
    if decided.get("by") == "hook" and decided.get("outcome") == "refused":  # --run-hooks
        row.update(outcome="hook refused", words=decided.get("told"))
    elif req["type"] == "skip":
        row["outcome"] = "runs"
    elif req["type"] == "needs_approval":
        hits = [h for s in ex["segments"] for h in s["matched_rules"]]
        managed = [h for h in hits if h["layer"] == "requirements"
                   and h["matched_prefix"][0] in prompt_user]  # fmt: skip
        row["outcome"] = "prompt-user refused" if managed else "asks"
    else:
        row.update(outcome="refused", words=(req["reason"] or "").split(" rejected: ")[-1])
    return row


def hook_row(out: dict[str, Any]) -> tuple[str, str]:
    if out["rc"] != 0 or not out["stdout"].strip():
        return "error", out["stderr"]
    spec = json.loads(out["stdout"])["hookSpecificOutput"]
    return spec["permissionDecision"], spec.get("permissionDecisionReason", "")


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare (util-linux)")
def test_admin_setups_agree_with_codex(base: Path) -> None:
    print(f"managed tier: seed {SEED} (SHELLGATE_MANAGED_SEED reproduces it)")  # shown on failure
    rng = random.Random(SEED)
    setups = draw(rng, SETUPS) + invalid_setups(rng)
    differences: list[str] = []
    rows = 0
    seen: dict[str, int] = {}
    for setup in setups:
        ours: list[dict[str, Any]] | None = None
        for version in realtools.CODEX_VERSIONS:
            result = run_setup(base, setup, version, with_shellgate=ours is None)
            if ours is None:
                ours = result["shellgate"]
            assert ours is not None
            where = f"[seed {SEED}] {setup.name} on Codex {version}\n{setup.requirements}"
            if result["startup"] is not None:
                # invalid requirements: Codex's message, ShellGate's explain and hook stop with it
                codex_error = result["startup"]["stderr"].strip().removeprefix("Error: ")
                codex_first = codex_error.splitlines()[0]
                rows += 1
                seen["startup error"] = seen.get("startup error", 0) + 1
                explain_err = ours[0]["explain"]["stderr"]
                verdict, reason = hook_row(ours[0]["hook"])
                if ours[0]["explain"]["rc"] != 1 or codex_first not in explain_err:
                    differences.append(f"{where}: explain {explain_err!r} vs Codex {codex_error!r}")
                if verdict != "deny" or codex_first not in reason:
                    differences.append(f"{where}: hook {verdict} {reason!r} vs {codex_error!r}")
                continue
            assert len(result["cases"]) == len(setup.cases)
            # Codex warns about a config file's disallowed value once per process: before the
            # first thread or within one; a warning given earlier counts as given
            warned = set(codex_row({"warnings": result.get("startup_warnings", [])})["warnings"])
            for spec, case, mine in zip(setup.cases, result["cases"], ours, strict=True):
                rows += 1
                theirs = codex_row(case)
                seen[theirs["outcome"]] = seen.get(theirs["outcome"], 0) + 1
                if case.get("timeout"):
                    differences.append(f"{where}{spec}: Codex's turn did not end")
                explained = explain_row(mine["explain"], setup.prompt_user, spec["command"])
                label = f"{where}{spec}"
                if theirs["outcome"] == "session refused":
                    if explained["outcome"] != "stopped" or theirs["words"].split(": ", 1)[-1] \
                            not in explained["words"]:  # fmt: skip
                        differences.append(f"{label}: explain {explained} vs Codex {theirs}")
                    verdict, reason = hook_row(mine["hook"])
                    if verdict != "deny":
                        differences.append(f"{label}: hook {verdict} on a refused session")
                    continue
                if set(theirs.get("warnings", ())) <= set(explained.get("warnings", ())) <= set(
                    theirs.get("warnings", ())) | warned:  # fmt: skip
                    explained["warnings"] = theirs.get("warnings")
                warned |= set(theirs.get("warnings", ()))
                if explained != theirs:
                    differences.append(f"{label}: explain {explained} vs Codex {theirs}")
                verdict, reason = hook_row(mine["hook"])
                expected = {"runs": "allow", "asks": "ask", "refused": "deny",
                            "prompt-user refused": "ask",
                            "hook refused": "deny"}[theirs["outcome"]]  # fmt: skip
                if theirs["outcome"] == "hook refused" and theirs["words"] not in reason:
                    differences.append(f"{label}: hook said {reason!r} vs Codex {theirs}")
                # README (deliberate differences): with no sandbox of ShellGate's (the hook is
                # given none for danger-full-access), what no rule allows and is not read-only
                # is asked where Codex runs it: never looser than the agent alone
                unconfined = (expected, verdict) == ("allow", "ask") and spec["sandbox"] == \
                    "danger-full-access" and "runs commands without its sandbox here" in reason
                if verdict != expected and not unconfined:
                    differences.append(f"{label}: hook {verdict} ({reason}) vs Codex {theirs}")
                if theirs["outcome"] in ("refused", "hook refused") and verdict != "deny":
                    differences.append(f"{label}: hook let a refused command through: {verdict}")
    print(f"managed tier: seed {SEED}, {len(setups)} set-ups, {rows} rows ({seen}) over "
          f"{len(realtools.CODEX_VERSIONS)} versions, differences: {len(differences)}")
    assert not differences, "\n\n".join(differences)
