"""`shellgate log`: the record of every decision (docs/telemetry.md).

    shellgate log [--agent A] [--decision D] [--since WHEN] [--grep TEXT] [--json] [--limit N]
    shellgate log verify
    shellgate log drain [--quiet] [--linger SECONDS]
"""

from __future__ import annotations

import json
import re
import sys
import time

from shellgate.record import chain, verify
from shellgate.record.entry import DECISIONS

USAGE = """usage: shellgate log [--agent AGENT] [--decision DECISION] [--since WHEN]
                     [--grep TEXT] [--limit N] [--json]
       shellgate log verify
       shellgate log drain [--quiet] [--linger SECONDS]

Lists the decisions ShellGate made or carried (every agent's hooks, the MCP shell tool, run,
the agent, the editor), oldest first, from $XDG_STATE_HOME/shellgate/decisions*.jsonl.
  --agent      codex, claude-code, gemini, copilot-cli, vscode-agent, mcp, run, agent, editor
  --decision   approved, approved_for_session, approved_with_amendment, denied, forbidden,
               cancelled, deferred; or `approved*` for every yes
  --since      an ISO date/time (2026-12-05, 2026-12-05T09:00) or an age: 30m, 2h, 7d
  --grep       only commands containing TEXT
  --limit N    the last N that match
  --json       one JSON object a line (rules-schema/log.schema.json)
verify: checks the hash chain; exit 1 naming the first entry that breaks it (edited, removed,
        reordered, torn), 0 when whole.
drain:  sends the events waiting for the OpenTelemetry collector now; prints what was sent,
        what waits and what was dropped past the spool's bound; --linger: wait that long for
        more once the spool is empty (the detached sender a hook starts waits 2 s)."""


def main(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    if argv and argv[0] == "verify":
        return _check()
    if argv and argv[0] == "drain":
        # deferred: the sender (and the OpenTelemetry SDK behind it), only to send
        from shellgate.record.drain import drain_now

        linger = float(argv[argv.index("--linger") + 1]) if "--linger" in argv else 0.0
        report = drain_now(linger=linger)
        if "--quiet" not in argv[1:]:
            print(report)
        return 0 if report.failed is None else 1
    try:
        options = _options(argv)
    except ValueError as exc:
        print(f"shellgate log: {exc}", file=sys.stderr)
        return 2
    return _list(**options)  # type: ignore[arg-type]


def _options(argv: list[str]) -> dict[str, object]:
    values: dict[str, object] = {"json_out": False}
    i = 0
    while i < len(argv):
        flag = argv[i]
        if flag == "--json":
            values["json_out"] = True
            i += 1
            continue
        if flag not in ("--agent", "--decision", "--since", "--grep", "--limit"):
            raise ValueError(f"unknown option {flag!r} (see `shellgate log --help`)")
        if i + 1 >= len(argv):
            raise ValueError(f"{flag} needs a value")
        values[flag[2:]] = argv[i + 1]
        i += 2
    decision = values.get("decision")
    if decision is not None and decision != "approved*" and decision not in DECISIONS:
        raise ValueError(f"--decision must be one of {', '.join(DECISIONS)} or approved*, "
                         f"not {decision!r}")  # fmt: skip
    if "since" in values:
        values["since"] = since_of(str(values["since"]))
    if "limit" in values:
        try:
            values["limit"] = int(str(values["limit"]))
        except ValueError:
            raise ValueError("--limit needs a number") from None
    return values


def since_of(text: str, now: float | None = None) -> float:
    """An age (30m, 2h, 7d, 90s) or an ISO date/time (local time unless it says otherwise)."""
    now = time.time() if now is None else now
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([smhd])", text)
    if m:
        return now - float(m[1]) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[m[2]]
    from datetime import datetime  # deferred: only for --since with a date

    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"--since must be an age (30m, 2h, 7d) or an ISO date, not {text!r}") \
            from None  # fmt: skip
    return when.timestamp()


def _list(json_out: bool, agent: object = None, decision: object = None, since: object = None,
          grep: object = None, limit: object = None) -> int:  # fmt: skip
    shown: list[dict[str, object]] = []
    for line in verify.lines():
        if line.entry is None or not isinstance(line.entry.get("entry"), dict):
            continue
        e = line.entry["entry"]
        if agent is not None and e.get("agent") != agent:
            continue
        if decision == "approved*":
            if not str(e.get("decision", "")).startswith("approved"):
                continue
        elif decision is not None and e.get("decision") != decision:
            continue
        if isinstance(since, float) and float(e.get("time") or 0) < since:
            continue
        if grep is not None and str(grep) not in str(e.get("command", "")):
            continue
        shown.append({"seq": line.seq, "hash": line.entry.get("hash"), **e})
    if isinstance(limit, int):
        shown = shown[-limit:] if limit > 0 else []
    for item in shown:
        if json_out:
            print(json.dumps(item, ensure_ascii=False))
        else:
            print(_text(item))
    return 0


def _text(e: dict[str, object]) -> str:
    from shellgate.untrusted import escape_one_line  # deferred: only for the text listing

    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(e.get("time") or 0)))  # type: ignore[arg-type]
    rule = e.get("rule")
    by = str(e.get("answerer"))
    if isinstance(rule, dict) and rule.get("file"):
        by += f" ({rule.get('file')}:{rule.get('line')})"
    command = escape_one_line(str(e.get("command", "")))
    if len(command) > 160:
        command = command[:160] + "…"
    return f"{e.get('seq'):>6} {when} {e.get('agent'):<12} {e.get('decision'):<24} {by}: {command}"


def _check() -> int:
    folder = chain.state_dir()
    verdict = verify.verify(folder)
    if verdict.broken is not None:
        print(f"shellgate log verify: broken at {verdict.broken}", file=sys.stdout)
        print(f"({verdict.whole} entries before it are whole)")
        return 1
    if verdict.whole == 0:
        print(f"shellgate log verify: no entries in {folder}")
        return 0
    first = verdict.first_seq
    start = "" if first == 1 else f" (older ones rotated away: from {first})"
    print(f"shellgate log verify: {verdict.whole} entries, {verdict.first_seq}..{verdict.last_seq},"
          f" the chain is whole{start}")  # fmt: skip
    return 0
