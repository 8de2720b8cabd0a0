"""The hook's one seam to the broker: `decide` (the whole chain on the rules Codex would load
from disk, no person asked) and `ask` (the editor's dialog, None when no editor is reachable).

`decide` runs in this process, with the decision memo in front of it: a command already judged
on the same rules and code costs little more than Python's start-up.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from shellgate.broker.protocol import (
    AgentAnswer,
    AgentDecision,
    AgentRequest,
    ProtocolError,
    decision_from_json,
)
from shellgate.hooks import memo

__all__ = ["AgentAnswer", "AgentDecision", "AgentRequest", "ask", "decide", "trail"]

# What this hook process asked and was told (one event a process), for the record.
trail: dict[str, object] = {}


def decide(request: AgentRequest, env: Mapping[str, str] | None = None) -> AgentDecision:
    """broker.decide's verdict (rules that do not load decide "forbidden"); raises
    ProtocolError for a request that cannot be decided, which the hook turns into a block."""
    env = os.environ if env is None else env
    trail["request"] = request
    key = json.dumps(request.to_json(), sort_keys=True).encode()
    path = memo.path_for(key, request.cwd, env)
    kept = memo.load(path) if path else None
    if kept is not None:
        try:
            remembered = trail["decision"] = decision_from_json(kept)
            return remembered
        except ProtocolError:
            pass  # an entry of another shape: judge afresh
    # deferred: the whole chain (~90 ms of imports), needed only when no decision is kept
    from shellgate.broker.decide import decide as broker_decide

    decision = trail["decision"] = broker_decide(request, env=env)
    if path is not None and decision.explain is not None:
        memo.store(path, decision.to_json())
    return decision


def ask(request: AgentRequest, decision: AgentDecision, *, timeout: float) -> AgentAnswer | None:
    """The person's answer in the editor whose workspace holds request.cwd, or None. The
    decision travels with the question: the editor shows it, it does not decide again."""
    from shellgate.broker.client import ask as broker_ask  # deferred: only when asking

    trail["answer"] = answer = broker_ask(request, decision, timeout=timeout)
    return answer
