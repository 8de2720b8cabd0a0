"""The broker's messages: what an outside agent's hook (or the MCP server) asks, and what it
is answered. Newline-delimited JSON-RPC 2.0; every request's params carry `protocol`.

Standard library only: the hook client imports this module, and its start-up time counts
(so the values are records, `shellgate.records`: NamedTuples without importing typing, and
dataclasses and inspect: a fifth of a hook's start-up).
The wire shapes are rules-schema/broker.schema.json; `*_from_json` validate what they read and
raise ProtocolError (a ValueError) naming the field, never anything else.
"""

from __future__ import annotations

import json

from shellgate.approval import wire
from shellgate.approval.matched import MatchedRule
from shellgate.records import TYPE_CHECKING, Record

if TYPE_CHECKING:
    from typing import Any

PROTOCOL_VERSION = 2  # 2: an ask carries the asker's decision

HELLO = "shellgate/hello"
DECIDE = "shellgate/decide"
ASK = "shellgate/ask"
REVIEWED = "shellgate/reviewed"  # Codex's auto-reviewer answered an agent's question

# JSON-RPC error codes: the standard ones, and one of ours for a protocol mismatch.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
PROTOCOL_MISMATCH = -32001

DECISIONS = ("allow", "prompt", "forbidden")
REQUIREMENTS = ("skip", "needs_approval", "forbidden")
ANSWERS = wire.ANSWERS
APPROVAL_POLICIES = ("untrusted", "on-failure", "on-request", "never")
SANDBOXES = ("read-only", "workspace-write", "danger-full-access")
SANDBOX_PERMISSIONS = ("use_default", "require_escalated", "with_additional_permissions")

# How people know the agents; any other name is shown as given.
DISPLAY_NAMES = {
    "codex": "Codex",
    "claude-code": "Claude Code",
    "gemini": "Gemini CLI",
    "copilot-cli": "Copilot CLI",
    "vscode-agent": "VS Code's agent",
    "mcp": "An MCP client",
    "shellgate": "ShellGate's agent",
    "editor": "ShellGate: Run Command",
}


class ProtocolError(ValueError):
    """A message that does not follow the protocol; `code` is the JSON-RPC error code."""

    def __init__(self, message: str, code: int = INVALID_PARAMS) -> None:
        super().__init__(message)
        self.code = code


def display_name(agent: str) -> str:
    return DISPLAY_NAMES.get(agent, agent)


class AgentRequest(Record):
    """A command an agent wants to run. `command` is a script as the agent gave it (run as
    `bash -lc SCRIPT`) or an argv."""

    agent: str
    session_id: str | None
    cwd: str
    command: str | tuple[str, ...]
    justification: str | None = None
    approval_policy: str | None = None  # None: Codex's config files decide, then on-request
    sandbox: str = "workspace-write"
    sandbox_permissions: str = "use_default"

    @property
    def argv(self) -> tuple[str, ...]:
        if isinstance(self.command, str):
            return ("bash", "-lc", self.command)
        return self.command

    def to_json(self) -> dict[str, Any]:
        out = {
            "agent": self.agent,
            "sessionId": self.session_id,
            "cwd": self.cwd,
            "command": self.command if isinstance(self.command, str) else list(self.command),
            "justification": self.justification,
            "sandbox": self.sandbox,
            "sandboxPermissions": self.sandbox_permissions,
        }
        if self.approval_policy is not None:
            out["approvalPolicy"] = _policy_json(self.approval_policy)
        return out


class AgentDecision(Record):
    """What the rules Codex would load decide, with no person asked."""

    # What ShellGate as the gate requires: Codex's requirement, or stricter where a command
    # bash runs (approval.beyond) calls for it (then `hidden`, and explain's "gate" says so).
    decision: str  # allow | prompt | forbidden: what happens (after the approval policy)
    requirement: str  # skip | needs_approval | forbidden
    reason: str | None  # Codex's words (the deciding rule's justification), or ShellGate's
    explain: dict[str, Any] | None  # rules-schema/explain.schema.json; None: rules unreadable
    amendment: tuple[str, ...] | None  # the proposed "don't ask again" prefix
    hidden: bool  # stricter than Codex: bash runs a command Codex's rules do not judge
    # Allowed only because a sandbox holds it: some command bash runs is neither allowed by a
    # rule nor read-only (Codex's known-safe list). Where no sandbox does, the hooks ask.
    confine: bool = True
    # What the trace says that the hooks and the dialog act on, read once from the typed trace
    # (broker.decide) and carried so: nobody reads `explain` back by its keys.
    matched: tuple[MatchedRule, ...] = ()  # the rules (or heuristics) it rests on
    notes: tuple[str, ...] = ()  # explain's warnings, for the person asked
    sandbox: str | None = None  # the session's sandbox when the admin's requirements clamped it
    deny_read: bool = False  # the admin's deny_read applies: it holds only inside a sandbox
    warnings: tuple[str, ...] = ()  # Codex's words for each fallback the requirements forced
    outside: bool = False  # Codex runs it outside its sandbox (allow rules cover all bash runs)
    split: str | None = None  # why Codex's split and bash disagree on what runs
    bash_runs: tuple[str, ...] = ()  # then what bash runs, each as a shell line

    @property
    def managed(self) -> bool:
        """An admin's rule asks (requirements.toml): asked every time, as Codex asks it, with
        no "this session" and no amendment."""
        return any(m.managed_prompt for m in self.matched)

    @property
    def person_only(self) -> bool:
        """An admin's `prompt-user` rule asks: only a person answers (no hook, no reviewer)."""
        return any(m.person_only for m in self.matched)

    def to_json(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "requirement": self.requirement,
            "reason": self.reason,
            "explain": self.explain,
            "amendment": None if self.amendment is None else list(self.amendment),
            "hidden": self.hidden,
            "confine": self.confine,
            "matched": [m.to_json() for m in self.matched],
            "notes": list(self.notes),
            "sandbox": self.sandbox,
            "denyRead": self.deny_read,
            "warnings": list(self.warnings),
            "outside": self.outside,
            "split": self.split,
            "bashRuns": list(self.bash_runs),
        }


class AgentAnswer(Record):
    """What the person answered (or why nobody did)."""

    answer: str  # one of ANSWERS
    message: str | None = None  # the user's words, or why it timed out / was refused
    amendment_written: str | None = None  # the rule line appended, if any

    @property
    def approved(self) -> bool:
        return self.answer in wire.APPROVING

    def to_json(self) -> dict[str, Any]:
        return {
            "answer": self.answer,
            "message": self.message,
            "amendmentWritten": self.amendment_written,
        }


def _policy_json(policy: str) -> Any:
    """A granular policy travels as the object it is; the others as their names."""
    if policy.lstrip().startswith("{"):

        return json.loads(policy)
    return policy


def _obj(raw: object, what: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ProtocolError(f"{what} must be an object")
    return raw


def _str(raw: dict[str, Any], name: str, *, optional: bool = False, choices: tuple[str, ...] = ()
         ) -> Any:  # fmt: skip
    value = raw.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, str) or (not optional and not value):
        kind = "a string or null" if optional else "a non-empty string"
        raise ProtocolError(f"`{name}` must be {kind}")
    if choices and value not in choices:
        raise ProtocolError(f"`{name}` must be one of {', '.join(choices)} (got {value!r})")
    return value


def check_version(params: dict[str, Any]) -> None:
    version = params.get("protocol")
    if version != PROTOCOL_VERSION:
        raise ProtocolError(
            f"protocol version {version!r} is not supported (this server speaks "
            f"{PROTOCOL_VERSION})",
            PROTOCOL_MISMATCH,
        )


def request_from_json(raw: object) -> AgentRequest:
    obj = _obj(raw, "params")
    command = obj.get("command")
    if isinstance(command, str):
        if not command.strip():
            raise ProtocolError("`command` must not be empty")
        cmd: str | tuple[str, ...] = command
    elif isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        cmd = tuple(command)
    else:
        raise ProtocolError("`command` must be a non-empty string or a list of strings")
    cwd = _str(obj, "cwd")
    if not cwd.startswith("/"):
        raise ProtocolError(f"`cwd` must be an absolute path (got {cwd!r})")
    policy = obj.get("approvalPolicy")
    known = isinstance(policy, str) and policy in APPROVAL_POLICIES
    if policy is not None and not known and not (isinstance(policy, dict) and "granular" in policy):
        raise ProtocolError(
            f"`approvalPolicy` must be one of {', '.join(APPROVAL_POLICIES)} or "
            f'{{"granular": {{...}}}} (got {policy!r})'
        )
    return AgentRequest(
        agent=_str(obj, "agent"),
        session_id=_str(obj, "sessionId", optional=True),
        cwd=cwd,
        command=cmd,
        justification=_str(obj, "justification", optional=True),
        approval_policy=policy if policy is None or isinstance(policy, str) else _granular(policy),
        sandbox=_choice(obj, "sandbox", SANDBOXES, "workspace-write"),
        sandbox_permissions=_choice(obj, "sandboxPermissions", SANDBOX_PERMISSIONS, "use_default"),
    )


def _choice(obj: dict[str, Any], name: str, choices: tuple[str, ...], default: Any) -> Any:
    if obj.get(name) is None:
        return default
    value: str = _str(obj, name, choices=choices)
    return value


def _granular(policy: dict[str, Any]) -> str:

    return json.dumps(policy, sort_keys=True)  # ApprovalPolicy.parse reads the JSON text


def decision_from_json(raw: object) -> AgentDecision:
    obj = _obj(raw, "result")
    explain = obj.get("explain")
    if explain is not None and not isinstance(explain, dict):
        raise ProtocolError("`explain` must be an object or null")
    amendment = obj.get("amendment")
    if amendment is not None and not (
        isinstance(amendment, list) and all(isinstance(w, str) for w in amendment)
    ):
        raise ProtocolError("`amendment` must be a list of strings or null")
    hidden = obj.get("hidden")
    if not isinstance(hidden, bool):
        raise ProtocolError("`hidden` must be a boolean")
    confine = obj.get("confine", True)  # an older server: as if only a sandbox could hold it
    if not isinstance(confine, bool):
        raise ProtocolError("`confine` must be a boolean")
    return AgentDecision(
        decision=_str(obj, "decision", choices=DECISIONS),
        requirement=_str(obj, "requirement", choices=REQUIREMENTS),
        reason=_str(obj, "reason", optional=True),
        explain=explain,
        amendment=None if amendment is None else tuple(amendment),
        hidden=hidden,
        confine=confine,
        matched=tuple(_matched(m) for m in _list(obj, "matched", dict)),
        notes=tuple(_list(obj, "notes", str)),
        sandbox=_choice(obj, "sandbox", SANDBOXES, None),
        deny_read=_bool(obj, "denyRead"),
        warnings=tuple(_list(obj, "warnings", str)),
        outside=_bool(obj, "outside"),
        split=_str(obj, "split", optional=True),
        bash_runs=tuple(_list(obj, "bashRuns", str)),
    )


def _list(obj: dict[str, Any], name: str, kind: type) -> list[Any]:
    value = obj.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, kind) for v in value):
        raise ProtocolError(f"`{name}` must be a list of {kind.__name__}s")
    return value


def _bool(obj: dict[str, Any], name: str) -> bool:
    value = obj.get(name, False)
    if not isinstance(value, bool):
        raise ProtocolError(f"`{name}` must be a boolean")
    return value


def _matched(raw: dict[str, Any]) -> MatchedRule:
    prefix = raw.get("prefix")
    if not isinstance(prefix, list) or not all(isinstance(w, str) for w in prefix):
        raise ProtocolError("`matched[].prefix` must be a list of strings")
    return MatchedRule(
        decision=_str(raw, "decision", choices=DECISIONS),
        prefix=tuple(prefix),
        source=_str(raw, "source", optional=True),
        justification=_str(raw, "justification", optional=True),
        heuristic=_bool(raw, "heuristic"),
        layer=_str(raw, "layer", optional=True),
        person_only=_bool(raw, "personOnly") if "personOnly" in raw else False,
    )


def answer_from_json(raw: object) -> AgentAnswer:
    obj = _obj(raw, "result")
    return AgentAnswer(
        answer=_str(obj, "answer", choices=ANSWERS),
        message=_str(obj, "message", optional=True),
        amendment_written=_str(obj, "amendmentWritten", optional=True),
    )


def ask_timeout(params: dict[str, Any]) -> float:
    """`timeoutSeconds` of an ask: how long the person has before it counts as no."""
    value = params.get("timeoutSeconds")
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 86400:
        raise ProtocolError("`timeoutSeconds` must be a number of seconds in (0, 86400]")
    return float(value)


REVIEW_KEYS = ("outcome", "riskLevel", "userAuthorization", "rationale", "model", "told")


def review_from_json(raw: object) -> dict[str, str | None]:
    """A reviewer's verdict as the history keeps it: every field a string or null (`outcome`
    null: the review failed or timed out; `told`: what the agent's model read)."""
    if not isinstance(raw, dict):
        raise ProtocolError("`review` must be an object")
    out: dict[str, str | None] = {}
    for key in REVIEW_KEYS:
        value = raw.get(key)
        if value is not None and not isinstance(value, str):
            raise ProtocolError(f"`review.{key}` must be a string or null")
        out[key] = value
    return out
