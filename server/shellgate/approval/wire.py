"""The answers' names on the wire, once: the broker protocol (rules-schema/broker.schema.json,
what the hooks, the MCP server and the VS Code extension read) and Codex's app-server names
(explain's `available_decisions`, the embedded agent's events). The editor's own dialog,
`shellgate/approve`, answers with a choice's id instead: the `ReviewDecision` value itself
(rules-schema/approval.schema.json).

Plain strings keyed by `ReviewDecision`'s values, no enum: the hook client imports this on its
start-up path (`shellgate.broker.protocol`), where importing enum alone costs milliseconds.
"""

from __future__ import annotations

# ReviewDecision value -> its wire name.
NAMES = {
    "approved": "accept",
    "approved_execpolicy_amendment": "acceptWithExecpolicyAmendment",
    "approved_for_session": "acceptForSession",
    "network_policy_amendment": "applyNetworkPolicyAmendment",
    "denied": "decline",
    "abort": "cancel",
    "timed_out": "timeout",
}
DECISIONS = {name: value for value, name in NAMES.items()}

# What a broker answer may be (a network amendment is never asked through the broker).
ANSWERS = ("accept", "acceptForSession", "acceptWithExecpolicyAmendment", "decline", "cancel",
           "timeout")  # fmt: skip
APPROVING = frozenset({"accept", "acceptForSession", "acceptWithExecpolicyAmendment",
                       "applyNetworkPolicyAmendment"})  # fmt: skip
