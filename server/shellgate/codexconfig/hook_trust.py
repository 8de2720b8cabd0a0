"""Codex's hook trust: the `trusted_hash` without which Codex skips a hook silently.

The hash is sha256 over the canonical JSON of the handler's identity (event, matcher, command,
timeout, async, statusMessage when given), as Codex 0.169/0.171 compute it (it matched
`hooks/list` `currentHash` in 340 of 340 trial checks, and 4 of 4 with async and
statusMessage). The state lives in the user's `$CODEX_HOME/config.toml` under
`[hooks.state."<declaring file>:<event>:<group>:<handler>"]`; in a project's own
config.toml it is ignored (observed), and in the admin's (Codex's source reads only the user's
layers and its session flags, which ShellGate's runs do not have).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

EVENT_LABELS = {"PreToolUse": "pre_tool_use", "PermissionRequest": "permission_request",
                "PostToolUse": "post_tool_use"}


def seconds(timeout: int | None) -> int:
    """A handler's timeout as Codex normalises it: 600 when absent, at least 1 (`0` is 1)."""
    return 600 if timeout is None else max(1, timeout)


def trust_hash(event: str, matcher: str | None, command: str, timeout: int | None,
               is_async: bool = False, status_message: str | None = None) -> str:
    handler: dict[str, object] = {
        "type": "command",
        "command": command,
        "timeout": seconds(timeout),
        "async": is_async,  # part of the identity: flipping it un-trusts the hook (observed)
    }
    if status_message is not None:  # `statusMessage` too (matched hooks/list's currentHash)
        handler["statusMessage"] = status_message
    identity: dict[str, object] = {"event_name": EVENT_LABELS[event], "hooks": [handler]}
    if matcher is not None:
        identity["matcher"] = matcher
    blob = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(blob.encode()).hexdigest()


def state_key(declaring_file: Path, event: str, group: int, handler: int = 0) -> str:
    return f"{declaring_file}:{EVENT_LABELS[event]}:{group}:{handler}"


def _header(key: str) -> str:
    return f"[hooks.state.{json.dumps(key)}]"


def set_trust(config_text: str, key: str, value: str | None) -> str:
    """config.toml's text with `key` trusted by `value` (None: its table removed). Only our own
    tables are touched; everything else keeps its bytes."""
    pattern = re.compile(r"^" + re.escape(_header(key)) + r"[ \t]*\n(?:(?!\[).*\n?)*", re.MULTILINE)
    text = pattern.sub("", config_text)
    if value is None:
        return text
    if text and not text.endswith("\n"):
        text += "\n"
    return text + f"{_header(key)}\ntrusted_hash = {json.dumps(value)}\n"
