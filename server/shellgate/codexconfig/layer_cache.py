"""Loaded policies kept on disk: `load_layers_cached(layers)` is `load_layers(layers)`, faster.

Loading rules with every span costs seconds for a 10 000-rule file, so a loaded policy is kept
under `$XDG_CACHE_HOME/shellgate/layers/`, keyed by everything it depends on (the layers' file
names and bytes, the cwd, HOME, ShellGate's rules code), as plain marshal data (no pickle:
nothing in the cache can run code). Failures are never kept; SHELLGATE_NO_CACHE=1 turns it off.
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Sequence
from typing import Any

try:  # hashlib would load OpenSSL first (milliseconds at every start) for a built-in hash
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

from shellgate import rules
from shellgate.codexconfig.layers import RulesLayer, load_layers
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy
from shellgate.rules.rule import NetworkRule, PrefixRule
from shellgate.rules.source import SourceSpan

_CACHE_VERSION = 3  # 2: rules keep canonical_matching; 3: system and requirements layers
_DECISIONS = {d.value: d for d in Decision}


def load_layers_cached(layers: Sequence[RulesLayer]) -> Policy:
    """The merged policy of `layers`; raises RulesError exactly as `load_layers` does."""
    key = cache_path(layers)
    if key is not None:
        try:
            with open(key, "rb") as fh:
                # loads of the bytes, not load of the file: load reads the file object piece
                # by piece (10 000 rules: ~150 ms against ~13 ms)
                return _thaw(marshal.loads(fh.read()))
        except (OSError, EOFError, ValueError, TypeError, KeyError, IndexError):
            pass  # missing or damaged: load afresh
    policy = load_layers(layers)
    if key is not None:
        try:
            os.makedirs(os.path.dirname(key), exist_ok=True)
            tmp = f"{key}.{os.getpid()}.tmp"
            with open(tmp, "wb") as fh:
                marshal.dump(_freeze(policy), fh)
            os.replace(tmp, key)  # readers never see half a file
        except (OSError, ValueError):
            pass
    return policy


def cache_path(layers: Sequence[RulesLayer]) -> str | None:
    """Where the policy of `layers` is kept; None when caching is off or pointless."""
    if os.environ.get("SHELLGATE_NO_CACHE") or not any(layer.files for layer in layers):
        return None

    h = blake2b(digest_size=32)
    try:
        code_dir = os.path.dirname(rules.__file__)
        # the rules code, and requirements.toml's parser (codexconfig) next to it
        dirs = (code_dir, os.path.join(os.path.dirname(code_dir), "codexconfig"))
        stamp = [
            f"{n}:{os.stat(os.path.join(d, n)).st_mtime_ns}"
            for d in dirs
            for n in sorted(os.listdir(d))
            if n.endswith(".py")
        ]
        h.update(repr([_CACHE_VERSION, os.getcwd(), os.environ.get("HOME", ""), stamp]).encode())
        for layer in layers:
            for path in layer.files:
                with open(path, "rb") as fh:
                    data = fh.read()
                h.update(b"\0%s\0%s\0%d\0" % (layer.name.encode(), os.fsencode(path), len(data)))
                h.update(data)
    except OSError:
        return None  # the loader will report it properly
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "shellgate", "layers", h.hexdigest())


def _span(span: SourceSpan | None) -> tuple[str, int, int, int, int] | None:
    if span is None:
        return None
    return (span.path, span.line, span.column, span.end_line, span.end_column)


def _freeze(policy: Policy) -> Any:
    rules = [
        (r.first, r.rest, r.decision.value, r.justification, _span(r.span), r.layer,
         r.canonical_matching)
        for r in policy.rules
    ]  # fmt: skip
    network = [
        (n.host, n.protocol, n.decision.value, n.justification, _span(n.span))
        for n in policy.network_rules
    ]
    return (_CACHE_VERSION, rules, network, dict(policy.host_executables))


def _thaw(data: Any) -> Policy:
    """A policy from `_freeze`'s data; ValueError/TypeError/... if it is not that."""
    version, rules, network, hosts = data
    if version != _CACHE_VERSION:
        raise ValueError("stale cache")

    def span(raw: Any) -> SourceSpan | None:
        return None if raw is None else SourceSpan(*raw)

    decision = _DECISIONS.__getitem__  # not Decision(d): EnumType.__call__ is slow, per rule
    return Policy(
        (
            PrefixRule(f, rest, decision(d), j, span(s), layer, canonical)
            for f, rest, d, j, s, layer, canonical in rules
        ),
        (NetworkRule(h, p, decision(d), j, span(s)) for h, p, d, j, s in network),
        hosts,
    )
