"""GitHub Copilot's hooks, one command for both hosts: Copilot CLI and VS Code's own agent
(Copilot Chat's agent mode). The event tells which host sent it and which answer it honours:

- `hook_event_name: "PreToolUse"` (Claude-style, what a hook file's `PreToolUse` key gets from
  both hosts): `tool_name` `Bash` from Copilot CLI, `run_in_terminal` and the other terminal
  tools from VS Code. Answer: Claude Code's `hookSpecificOutput` (VS Code reads nothing else;
  a flat decision there falls back to VS Code's own confirmation).
- camelCase `preToolUse` (Copilot CLI's own shape: `toolName: "bash"`, `toolArgs`). Answer:
  flat `permissionDecision`, `modifiedArgs` for the sandbox rewrite (a `hookSpecificOutput`
  there is ignored: the command would run).
- `permissionRequest` (`hookName`, `toolName`, `toolInput`): `{"behavior": "allow"|"deny"}`.

Both hosts run the command when the hook prints nothing, prints non-JSON or passes its timeout,
so every gated tool gets an explicit answer, and a deadline below the installed timeout denies
(with a reason) when the chain or the editor's dialog takes too long.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping

from shellgate.records import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

import signal

from shellgate.hooks import seam
from shellgate.hooks.claude_code import _pre_tool_use
from shellgate.hooks.outcome import (
    HookInputError,
    Options,
    Resolution,
    Verdict,
    event_field,
    resolve,
)

CLI, VSCODE = "copilot-cli", "vscode-agent"
NAMES = {CLI: "Copilot CLI", VSCODE: "VS Code's agent"}
# Tool names are compared lower-cased without underscores (`Bash`, `bash`; `run_in_terminal`;
# Copilot Chat's contributed `copilot_runVscodeCommand`), so a respelling is still gated.
# Tools whose input is a command line (script) ShellGate judges, and the field holding it.
# Copilot CLI: `bash` runs a script; `write_bash` types into a running one.
# VS Code (core terminal tools): `run_in_terminal` runs a command; `send_to_terminal` types
# into the terminal of a running one.
COMMAND_TOOLS = {
    "bash": "command",
    "writebash": "input",
    "runinterminal": "command",
    "sendtoterminal": "command",
}
TYPING_TOOLS = frozenset({"writebash", "sendtoterminal"})  # typed into a running process
CLI_TOOLS = frozenset({"bash", "writebash"})
# VS Code tools that run something ShellGate cannot read from their input: a task by name or
# one that may replace an existing task of the same label (what runs is not what is shown).
_TASK = "runs a task (or an existing one of the same label), which ShellGate cannot judge"
UNJUDGEABLE = {
    "runtask": "runs a task defined in tasks.json, which ShellGate cannot judge",
    "createandruntask": _TASK,
    "copilotcreateandruntask": _TASK,
}
# VS Code commands that type into a terminal or start a task.
VSCODE_COMMAND_TOOLS = frozenset({"runvscodecommand", "copilotrunvscodecommand"})
RISKY_COMMAND_PREFIXES = ("workbench.action.terminal.", "workbench.action.tasks.")
# Code run in a notebook's kernel: not a shell command; the person decides in VS Code.
ASK_TOOLS = frozenset({"runnotebookcell", "copilotrunnotebookcell"})
USE_INSTEAD = "; run the command with run_in_terminal so that ShellGate can judge it"
GATED = frozenset({*COMMAND_TOOLS, *UNJUDGEABLE, *VSCODE_COMMAND_TOOLS, *ASK_TOOLS})


def handle(event: Mapping[str, Any], options: Options) -> dict[str, Any]:
    shape = _shape(event)
    tool = str(event_field(event, *_TOOL_FIELD[shape]))
    key = tool.lower().replace("_", "")
    if key not in GATED:
        return {}  # not a tool that runs a command: the host's own rules apply
    tool_input = _input_of(event, shape)
    host = CLI if key in CLI_TOOLS or shape != "PreToolUse" else VSCODE
    if key in COMMAND_TOOLS:
        field = COMMAND_TOOLS[key]
        command = tool_input.get(field)
        if not isinstance(command, str):
            raise HookInputError(f"{tool}'s {field} is not a string")
        guard = Deadline(options.deadline, _answer(shape, _late(options), field, tool_input))
        try:
            res = _judge(event, options, host, key, command, tool_input)
        finally:
            guard.disarm()
        return _answer(shape, res, field, tool_input)
    if key in UNJUDGEABLE:
        why = f"ShellGate: {tool} {UNJUDGEABLE[key]}{USE_INSTEAD}"
        res = Resolution(Verdict.BLOCK, why)
    elif key in VSCODE_COMMAND_TOOLS:
        command_id = str(tool_input.get("commandId") or "")
        if not command_id.startswith(RISKY_COMMAND_PREFIXES):
            return {}
        why = f"ShellGate: the VS Code command {command_id} reaches a terminal or a task"
        res = Resolution(Verdict.BLOCK, why + USE_INSTEAD)
    elif key in ASK_TOOLS:
        why = "ShellGate: a notebook cell runs code ShellGate cannot judge: the person decides"
        res = Resolution(Verdict.AGENT_ASKS, why)
    else:
        raise AssertionError(f"{tool} is gated but has no handling")
    # deferred: the record (~2 ms), after the decision
    from shellgate.record.build import from_tool
    from shellgate.record.sink import record

    record(from_tool(host, event, tool, tool_input, res.verdict.value, res.reason))
    return _answer(shape, res, "", tool_input)


_TOOL_FIELD = {
    "PreToolUse": ("tool_name",),
    "preToolUse": ("toolName",),
    "permissionRequest": ("toolName",),
}


def _shape(event: Mapping[str, Any]) -> str:
    name = event.get("hook_event_name") or event.get("hookName")
    if name in ("PreToolUse", "permissionRequest"):
        return str(name)
    if name in ("preToolUse", None) and "toolName" in event and "toolArgs" in event:
        return "preToolUse"
    raise HookInputError(
        "not a Copilot hook event: expected hook_event_name PreToolUse, hookName "
        f"permissionRequest or a preToolUse event (toolName, toolArgs), got {name!r}"
    )


def _input_of(event: Mapping[str, Any], shape: str) -> Mapping[str, Any]:
    key = {"PreToolUse": "tool_input", "preToolUse": "toolArgs"}.get(shape, "toolInput")
    value = event_field(event, key)
    if isinstance(value, str):  # some Copilot CLI builds send toolArgs as a JSON string
        try:
            value = json.loads(value)
        except ValueError:
            raise HookInputError(f"{key} is a string but not JSON") from None
    if not isinstance(value, Mapping):
        raise HookInputError(f"{key} is not an object")
    return value


def _judge(
    event: Mapping[str, Any],
    options: Options,
    host: str,
    key: str,
    command: str,
    tool_input: Mapping[str, Any],
) -> Resolution:
    if key in TYPING_TOOLS and not command.strip():
        return Resolution(Verdict.ALLOW, "ShellGate: only Enter is pressed")
    if not command.strip():
        raise HookInputError(f"the tool's {COMMAND_TOOLS[key]} is empty")
    request = seam.AgentRequest(
        agent=host,
        session_id=event.get("session_id") or event.get("sessionId"),
        cwd=str(event_field(event, "cwd")),
        command=command,
        justification=tool_input.get("description") or tool_input.get("explanation"),
        approval_policy=options.approval_policy,
        sandbox=options.sandbox or "danger-full-access",
    )
    res = resolve(request, options, NAMES[host],
                  event.get("transcript_path") or event.get("transcriptPath"))
    if key in TYPING_TOOLS and res.command is not None:
        # Typed into a process already running (in the sandbox, when ShellGate started it):
        # there is no command line to wrap.
        return res._replace(command=None)
    return res


def _late(options: Options) -> Resolution:
    return Resolution(
        Verdict.BLOCK,
        f"ShellGate: no decision within {options.deadline:g} s (the hook's deadline, before "
        "the host's own timeout would let the command run), so it was not run",
    )


def _answer(
    shape: str, res: Resolution, field: str, tool_input: Mapping[str, Any]
) -> dict[str, Any]:
    """`field`: the input field a sandbox rewrite replaces."""
    if shape == "PreToolUse":
        return _pre_tool_use(res, tool_input)
    if shape == "preToolUse":
        decision = {Verdict.ALLOW: "allow", Verdict.BLOCK: "deny", Verdict.AGENT_ASKS: "ask"}
        out: dict[str, Any] = {
            "permissionDecision": decision[res.verdict],
            "permissionDecisionReason": res.reason,
        }
        if res.verdict is Verdict.ALLOW and res.command is not None:
            out["modifiedArgs"] = {**tool_input, field: res.command}
        return out
    if res.verdict is Verdict.ALLOW and res.command is None:
        return {"behavior": "allow"}
    if res.verdict is Verdict.ALLOW:  # ignores updatedInput and modifiedArgs (tried: 1.0.102)
        reason = (
            f"{res.reason}; the permissionRequest hook cannot move it into the sandbox: "
            "install ShellGate's PreToolUse hook (`shellgate hook install copilot`)"
        )
        return {"behavior": "deny", "message": reason}
    if res.verdict is Verdict.AGENT_ASKS:
        return {}  # no decision: Copilot CLI asks the person as usual
    return {"behavior": "deny", "message": res.reason}


class Deadline:
    """Prints `late` and ends the process `seconds` from now unless disarmed first: the hosts
    let a command run when a hook passes their timeout, so ShellGate answers no before it.

    SIGALRM, not a thread (3 ms less to import): its handler runs in the main thread, which has
    written nothing yet (the answer is written after `disarm`), and a wait on the editor's
    socket is interrupted for it."""

    def __init__(self, seconds: float | None, late: Mapping[str, Any]) -> None:
        self._late = json.dumps(late, ensure_ascii=False) + "\n"
        self._armed = seconds is not None
        if seconds is not None:
            signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, seconds)

    def _fire(self, *_: object) -> None:
        try:
            sys.stdout.write(self._late)
            sys.stdout.flush()
        finally:
            os._exit(0)

    def disarm(self) -> None:
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
