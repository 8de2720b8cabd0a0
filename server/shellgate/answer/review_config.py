"""Who reviews, as Codex reads it (spec auto-review.md §2): `approvals_reviewer` (`user`,
`auto_review`, `guardian_subagent`; anything else stops with Codex's message), `[auto_review]`
(`timeout_ms`, `policy`), `--approve-for-me`, the admin's `allowed_approvals_reviewers` (Codex's
fallback and warning), `guardian_policy_config`, `guardian_extra_policy`; and the model the
reviewer asks: the session's own (`model`, `model_provider`, `[model_providers.*]` with
`base_url`, `wire_api`, `env_key`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from shellgate.answer.review_client import Provider
from shellgate.codexconfig.requirements import Requirements
from shellgate.codexconfig.trust import ConfigError, read_config

REVIEWERS = ("user", "auto_review", "guardian_subagent")
DEFAULT_TIMEOUT_MS = 90_000
# Codex's built-in providers (a config's [model_providers.<name>] adds or replaces)
BUILT_IN = {
    "openai": {"base_url": "https://api.openai.com/v1", "wire_api": "responses",
               "env_key": "OPENAI_API_KEY"},
    "ollama": {"base_url": "http://localhost:11434/v1", "wire_api": "chat", "env_key": None},
}  # fmt: skip


@dataclass(frozen=True)
class ReviewConfig:
    reviewer: str  # "user" or "auto_review" (after the admin's fallback)
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    user_policy: str | None = None
    admin_policy: str | None = None
    admin_extra: str | None = None
    provider: Provider | None = None  # None: no model configured
    warning: str | None = None  # Codex's fallback warning

    @property
    def reviews(self) -> bool:
        return self.reviewer == "auto_review"

    def describe(self) -> dict[str, object] | None:
        if not self.reviews or self.provider is None:
            return None
        return {"model": self.provider.model, "provider": self.provider.name,
                "base_url": self.provider.base_url, "wire_api": self.provider.wire_api,
                "timeout_ms": self.timeout_ms}  # fmt: skip


def _merged(files: tuple[Path, ...]) -> dict[str, object]:
    """The config files' top-level values, lowest tier first (a later file wins a key)."""
    out: dict[str, object] = {}
    for path in files:
        data = read_config(path)
        for key, value in data.items():
            if isinstance(value, dict) and isinstance(out.get(key), dict):
                out[key] = {**out[key], **value}  # type: ignore[dict-item]
            else:
                out[key] = value
    return out


def review_config(
    config_files: tuple[Path, ...], requirements: Requirements | None, *,
    approve_for_me: bool = False, model: str | None = None,
) -> ReviewConfig:  # fmt: skip
    """Raises ConfigError with Codex's message for a reviewer Codex does not know."""
    data = _merged(config_files)
    raw = data.get("approvals_reviewer", "user")
    if not isinstance(raw, str) or raw not in REVIEWERS:
        raise ConfigError(
            f"unknown variant `{raw}`, expected one of `user`, `auto_review`, "
            "`guardian_subagent`\nin `approvals_reviewer`",
            path=_where(config_files, "approvals_reviewer"),
            code="config-type")  # fmt: skip
    reviewer = "auto_review" if approve_for_me or raw != "user" else "user"
    warning = None
    allowed = requirements.allowed_approvals_reviewers if requirements else None
    if reviewer == "auto_review" and allowed is not None and "auto_review" not in allowed:
        shown = ", ".join("User" if a == "user" else "AutoReview" for a in allowed)
        warning = (
            "Configured value for `approvals_reviewer` is disallowed by requirements; falling "
            f"back to required value User. Details: invalid value for `approvals_reviewer`: "
            f"`AutoReview` is not in the allowed set [{shown}] (set by "
            f"{requirements.path if requirements else ''})"
        )
        reviewer = "user"
    table = data.get("auto_review")
    auto = table if isinstance(table, dict) else {}
    timeout = auto.get("timeout_ms", DEFAULT_TIMEOUT_MS)
    if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout <= 0:
        raise ConfigError(f"invalid type: {timeout!r}, expected a positive integer\nin "
                          "`auto_review.timeout_ms`", path=_where(config_files, "auto_review"),
                          code="config-type")  # fmt: skip
    policy = auto.get("policy")
    return ReviewConfig(
        reviewer, timeout, policy if isinstance(policy, str) else None,
        requirements.guardian_policy_config if requirements else None,
        requirements.guardian_extra_policy if requirements else None,
        _provider(data, model, _where(config_files, "model_provider")), warning,
    )  # fmt: skip


def _where(files: tuple[Path, ...], key: str) -> str:
    """The file that sets `key` (the highest tier), for an error's path."""
    found = next((p for p in reversed(files) if key in read_config(p)), None)
    return str(found or (files[-1] if files else "config.toml"))


def _provider(data: Mapping[str, object], model: str | None, where: str) -> Provider | None:
    name = data.get("model_provider", "openai")
    configured = data.get("model")
    model = model or (configured if isinstance(configured, str) else None)
    if not isinstance(name, str) or model is None:
        return None
    tables = data.get("model_providers")
    entry = (tables.get(name) if isinstance(tables, dict) else None) or BUILT_IN.get(name)
    if not isinstance(entry, dict) or not isinstance(entry.get("base_url"), str):
        raise ConfigError(f"model provider `{name}` not found (model_provider)", path=where,
                          code="config-type")  # fmt: skip
    wire = entry.get("wire_api", "responses")
    if wire not in ("responses", "chat"):
        raise ConfigError(f"unknown variant `{wire}`, expected `responses` or `chat`\nin "
                          f"`model_providers.{name}.wire_api`", path=where,
                          code="config-type")  # fmt: skip
    key = entry.get("env_key")
    return Provider(model, entry["base_url"], wire, key if isinstance(key, str) else None, name)
