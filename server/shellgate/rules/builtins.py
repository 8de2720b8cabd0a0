"""The three builtins of Codex 0.169.0's rules language, validated in Codex's order.

`Collector` receives the calls of one load (one or more files) and accumulates what they
define. Each builtin raises `BuiltinError` with Codex's message and the argument at fault.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from shellgate.rules import shlex_rs
from shellgate.rules.decision import Decision
from shellgate.rules.paths import normalize_path
from shellgate.rules.rule import NetworkRule, PrefixRule
from shellgate.rules.signature import BindError, bind, builtin_specs
from shellgate.rules.source import SourceSpan
from shellgate.rules.values import type_name


class BuiltinError(Exception):
    """`param` and `index` (element of a list argument) say where the fault is."""

    def __init__(
        self, message: str, code: str, param: str | None = None, index: int | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.param = param
        self.index = index


@dataclass(frozen=True, slots=True)
class PendingExamples:
    """A prefix_rule call's examples, checked once its file has been read (spec A.5)."""

    rules: tuple[PrefixRule, ...]
    match: tuple[tuple[str, ...], ...]
    not_match: tuple[tuple[str, ...], ...]
    call_index: int


@dataclass
class Collector:
    """What the builtin calls of one load define, in call order."""

    rules: list[PrefixRule] = field(default_factory=list)
    network_rules: list[NetworkRule] = field(default_factory=list)
    host_executables: dict[str, tuple[str, ...]] = field(default_factory=dict)
    pending: list[PendingExamples] = field(default_factory=list)
    calls: int = 0
    # Where the current call sits (set by the loader when it knows); rules carry it.
    span: SourceSpan | None = None
    layer: str | None = None

    def functions(self) -> dict[str, Callable[..., None]]:
        return {
            "prefix_rule": self.prefix_rule,
            "host_executable": self.host_executable,
            "network_rule": self.network_rule,
        }

    def prefix_rule(self, *args: object, **kwargs: object) -> None:
        self.calls += 1
        # The common call (keywords, pattern of strings and alternatives, valid decision, no
        # justification or examples) is built directly; anything else takes the full path,
        # which validates everything in Codex's order.
        if not args and "pattern" in kwargs and kwargs.keys() <= _PLAIN_KEYS:
            plain = self._plain_prefix_rule(kwargs["pattern"], kwargs.get("decision", "allow"))
            if plain:
                self.rules.extend(plain)
                return
        a = _bind("prefix_rule", args, kwargs)
        decision = _decision(a.get("decision", "allow"))
        justification = _justification(a.get("justification"))
        first, rest = _pattern(a["pattern"])
        match = _examples(a.get("match"), "match")
        not_match = _examples(a.get("not_match"), "not_match")
        canonical = bool(a.get("canonical_matching", False))
        span, layer = self.span, self.layer
        if len(first) == 1:
            rules: tuple[PrefixRule, ...] = (
                PrefixRule(first[0], rest, decision, justification, span, layer, canonical),
            )
        else:
            rules = tuple(
                PrefixRule(alt, rest, decision, justification, span, layer, canonical)
                for alt in first
            )
        self.rules.extend(rules)
        if match or not_match:
            self.pending.append(PendingExamples(rules, match, not_match, self.calls))

    def _plain_prefix_rule(self, pattern: object, raw_decision: object) -> list[PrefixRule]:
        decision = _DECISIONS.get(raw_decision) if type(raw_decision) is str else None
        if decision is None or type(pattern) is not list or not pattern:
            return []
        rest: list[tuple[str, ...]] = []
        for token in pattern:
            if type(token) is str:
                rest.append((token,))
            elif type(token) is list and token and all(type(t) is str for t in token):
                rest.append(tuple(token))
            else:
                return []
        first = rest.pop(0)
        tail, span, layer = tuple(rest), self.span, self.layer
        if len(first) == 1:
            return [PrefixRule(first[0], tail, decision, None, span, layer)]
        return [PrefixRule(alt, tail, decision, None, span, layer) for alt in first]

    def host_executable(self, *args: object, **kwargs: object) -> None:
        self.calls += 1
        a = _bind("host_executable", args, kwargs)
        name = a["name"]
        assert isinstance(name, str)
        if not name:
            raise BuiltinError(
                "invalid rule: host_executable name cannot be empty", "bad-host-executable", "name"
            )
        if "/" in name or name in (".", ".."):
            raise BuiltinError(
                f"invalid rule: host_executable name must be a bare executable name (got {name})",
                "bad-host-executable",
                "name",
            )
        paths: list[str] = []
        raw_paths = a["paths"]
        assert isinstance(raw_paths, list)
        for i, raw in enumerate(raw_paths):
            if not isinstance(raw, str):
                raise BuiltinError(
                    f"invalid rule: host_executable paths must be strings (got {type_name(raw)})",
                    "bad-host-executable",
                    "paths",
                    i,
                )
            if not raw.startswith("/"):
                raise BuiltinError(
                    f"invalid rule: host_executable paths must be absolute (got {raw})",
                    "bad-host-executable",
                    "paths",
                    i,
                )
            path = normalize_path(raw)
            if path.rsplit("/", 1)[-1] != name:
                raise BuiltinError(
                    f"invalid rule: host_executable path `{raw}` must have basename `{name}`",
                    "bad-host-executable",
                    "paths",
                    i,
                )
            if path not in paths:
                paths.append(path)
        self.host_executables[name] = tuple(paths)

    def network_rule(self, *args: object, **kwargs: object) -> None:
        self.calls += 1
        a = _bind("network_rule", args, kwargs)
        protocol = a["protocol"]
        assert isinstance(protocol, str)
        canonical = _PROTOCOLS.get(protocol)
        if canonical is None:
            raise BuiltinError(
                "invalid rule: network_rule protocol must be one of http, https, socks5_tcp, "
                f"socks5_udp (got {protocol})",
                "bad-network-rule",
                "protocol",
            )
        raw_decision = a["decision"]
        decision = Decision.FORBIDDEN if raw_decision == "deny" else _decision(raw_decision)
        justification = _justification(a.get("justification"))
        host = a["host"]
        assert isinstance(host, str)
        normal = normalize_network_host(host)
        self.network_rules.append(
            NetworkRule(normal, canonical, decision, justification, self.span)
        )


_PROTOCOLS = {
    "http": "http",
    "https": "https",
    "https_connect": "https",
    "http-connect": "https",
    "socks5_tcp": "socks5_tcp",
    "socks5_udp": "socks5_udp",
}


def _bind(name: str, args: Sequence[object], kwargs: Mapping[str, object]) -> dict[str, object]:
    try:
        return bind(builtin_specs()[name], args, kwargs)
    except BindError as err:
        raise BuiltinError(err.message, err.code, err.param) from None


_DECISIONS = {d.value: d for d in Decision}
_PLAIN_KEYS = frozenset(["pattern", "decision"])


def _decision(raw: object) -> Decision:
    assert isinstance(raw, str)
    decision = _DECISIONS.get(raw)
    if decision is None:
        raise BuiltinError(f"invalid decision: {raw}", "invalid-decision", "decision")
    return decision


def _justification(raw: object) -> str | None:
    if raw is None:
        return None
    assert isinstance(raw, str)
    if not raw.strip():
        raise BuiltinError(
            "invalid rule: justification cannot be empty", "empty-justification", "justification"
        )
    return raw


def _pattern(raw: object) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    assert isinstance(raw, list)
    tokens: list[tuple[str, ...]] = []
    for i, element in enumerate(raw):
        if isinstance(element, str):
            tokens.append((element,))
        elif isinstance(element, list):
            if not element:
                raise BuiltinError(
                    "invalid pattern element: pattern alternatives cannot be empty",
                    "bad-pattern",
                    "pattern",
                    i,
                )
            for alt in element:
                if not isinstance(alt, str):
                    raise BuiltinError(
                        "invalid pattern element: pattern alternative must be a string "
                        f"(got {type_name(alt)})",
                        "bad-pattern",
                        "pattern",
                        i,
                    )
            tokens.append(tuple(element))
        else:
            raise BuiltinError(
                "invalid pattern element: pattern element must be a string or list of strings "
                f"(got {type_name(element)})",
                "bad-pattern",
                "pattern",
                i,
            )
    if not tokens:
        raise BuiltinError(
            "invalid pattern element: pattern cannot be empty", "empty-pattern", "pattern"
        )
    return tokens[0], tuple(tokens[1:])


def _examples(raw: object, param: str) -> tuple[tuple[str, ...], ...]:
    if raw is None:
        return ()
    assert isinstance(raw, list)
    out: list[tuple[str, ...]] = []
    for i, example in enumerate(raw):
        if isinstance(example, str):
            words = shlex_rs.split(example)
            if words is None:
                raise _bad_example("example string has invalid shell syntax", param, i)
            if not words:
                raise _bad_example("example cannot be an empty string", param, i)
            out.append(tuple(words))
        elif isinstance(example, list):
            if not example:
                raise _bad_example("example cannot be an empty list", param, i)
            for token in example:
                if not isinstance(token, str):
                    raise _bad_example(
                        f"example tokens must be strings (got {type_name(token)})", param, i
                    )
            out.append(tuple(example))
        else:
            raise _bad_example(
                f"example must be a string or list of strings (got {type_name(example)})",
                param,
                i,
            )
    return tuple(out)


def _bad_example(message: str, param: str, index: int) -> BuiltinError:
    return BuiltinError(f"invalid example: {message}", "bad-example", param, index)


def normalize_network_host(raw: str) -> str:
    """Codex's `normalize_network_rule_host` (0.169.0: `user@host`, `host:abc` pass)."""

    def bad(what: str) -> BuiltinError:
        return BuiltinError(f"invalid rule: network_rule host {what}", "bad-network-host", "host")

    host = raw.strip()
    if not host:
        raise bad("cannot be empty")
    if "://" in host or any(c in host for c in "/?#"):
        raise bad("must be a hostname or IP literal (without scheme or path)")
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            raise bad("has an invalid bracketed IPv6 literal")
        suffix = host[end + 1 :]
        if suffix and not (suffix[0] == ":" and suffix[1:].isascii() and suffix[1:].isdigit()):
            raise bad(f"contains an unsupported suffix: {raw}")
        host = host[1:end]
    elif host.count(":") == 1:
        name, port = host.split(":")
        if port.isascii() and port.isdigit():
            host = name
    host = host.rstrip(".").lower()
    if not host:
        raise bad("cannot be empty")
    if "*" in host:
        raise bad("must be a specific host; wildcards are not allowed")
    if any(c.isspace() for c in host):
        raise bad("cannot contain whitespace")
    return host
