"""What network an orchestrator's sandboxed commands get (spec/sandbox.md §6.4): off, full, or
by host through the allow-list proxy (`exec/network.py`), started on the first attempt that needs
it. The host rules are the policy's `network_rule`s, then the person's answers: the proxy reads
them live, so a host allowed for the session holds from the next attempt on.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field

from shellgate.exec.network import HostRules, NetworkProxy
from shellgate.exec.sandbox import NetworkAccess, default_runtime_dir
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy


def default_network() -> NetworkAccess:
    # Per-host approvals need the in-sandbox bridge (socat); without it the network is simply off.
    return NetworkAccess.PROXY if shutil.which("socat") else NetworkAccess.OFF


@dataclass
class Egress:
    mode: NetworkAccess
    rules: HostRules = field(default_factory=HostRules)
    log_path: str | None = None  # the proxy's events, one JSON line each
    _proxy: NetworkProxy | None = field(default=None, init=False, repr=False)

    @classmethod
    def of(
        cls,
        policy: Policy,
        mode: NetworkAccess | None = None,
        rules: HostRules | None = None,
        log_path: str | None = None,
    ) -> Egress:
        """`mode` None: by host through the proxy when possible; `rules` gets the policy's."""
        rules = HostRules() if rules is None else rules
        for rule in policy.network_rules:
            if rule.decision is Decision.ALLOW:
                rules.allow.add(rule.host)
            elif rule.decision is Decision.FORBIDDEN:
                rules.deny.add(rule.host)
        return cls(default_network() if mode is None else mode, rules, log_path)

    def for_attempt(self, once: Sequence[str] = ()) -> tuple[NetworkAccess, NetworkProxy | None]:
        """The attempt's network, and the proxy when it goes through one: a host granted for
        this attempt alone (`once`) needs the proxy even where the network is off."""
        mode = NetworkAccess.PROXY if once and self.mode is NetworkAccess.OFF else self.mode
        if mode is not NetworkAccess.PROXY:
            return mode, None
        if self._proxy is None:
            self._proxy = NetworkProxy(self.rules, default_runtime_dir(), self.log_path)
        return mode, self._proxy
