"""Codex's configuration for a session in a cwd, as Codex 0.169.0/0.171.0 resolve it.

`resolve(cwd)` reads the tiers once, lowest precedence first:
- system: `/etc/codex/` (`config.toml`, `rules/*.rules`, `requirements.toml`); no environment
  variable moves it (`system_dir` is for tests);
- user: `$CODEX_HOME` (`~/.codex`): `config.toml` (trust, values), `rules/*.rules`;
- project: `.codex/` of each trusted folder from the project root to cwd (`codexconfig.trust`);
- the session's flags (`CodexConfig.session`), which beat every file;
then the admin's `requirements.toml` overlays all of it: its rules are merged after every rules
file (the strictest decision wins), its `allowed_approval_policies` / `allowed_sandbox_modes`
clamp the session's values (Codex's fallback and warning), its `deny_read` clamps a requested
danger-full-access to read-only.

Every entry point (explain, run, agent, the hooks and the broker, MCP, replay, import's round
trip, the language server) gets its rules and session values from here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from shellgate.approval.context import ON_REQUEST, ApprovalPolicy, ExecContext, SandboxMode
from shellgate.codexconfig import SYSTEM_FOLDER, codex_home
from shellgate.codexconfig import codex_home as default_home
from shellgate.codexconfig.layers import LayerKind, RulesLayer, rules_files
from shellgate.codexconfig.requirements import RequirementsError, load_requirements
from shellgate.codexconfig.session import Session, SessionError, clamp
from shellgate.codexconfig.trust import (
    ConfigFile,
    ProjectTrust,
    project_trust,
    read_config_file,
    trusted_project,
)
from shellgate.rules.errors import RulesError

if TYPE_CHECKING:
    from shellgate.approval.context import ApprovalPolicy, ExecContext, SandboxMode
    from shellgate.codexconfig.requirements import Requirements

__all__ = ["SYSTEM_DIR", "CodexConfig", "Session", "SessionError", "codex_home", "resolve"]

SYSTEM_DIR = Path(SYSTEM_FOLDER)


@dataclass(frozen=True)
class CodexConfig:
    """Everything Codex resolves for a session in `cwd` before a command is judged."""

    cwd: Path
    system_dir: Path
    codex_home: Path
    trust: ProjectTrust
    layers: tuple[RulesLayer, ...]  # system, user, project…, cli, requirements
    requirements: Requirements | None
    # approval_policy / sandbox_mode from the config files (project over user over system),
    # with the file that set each; None: no file sets it
    approval_policy: tuple[object, Path] | None = None
    sandbox_mode: tuple[str, Path] | None = None
    config_files: tuple[Path, ...] = field(default=())

    def session(
        self,
        approval_policy: ApprovalPolicy | None = None,
        sandbox: SandboxMode | None = None,
        *,
        default_approval: ApprovalPolicy | None = None,
        default_sandbox: SandboxMode | None = None,
    ) -> Session:
        """The session's values: the flags given, else the config files', else the entry
        point's defaults (on-request, workspace-write); then the requirements' clamp. Raises
        SessionError for `never` with a danger-full-access the requirements do not allow."""
        file_a = file_s = None
        if self.approval_policy is not None:
            try:
                file_a = ApprovalPolicy.parse(self.approval_policy[0])
            except ValueError as exc:  # read_config_file checked the name; a bad granular table
                raise RulesError(str(exc), path=str(self.approval_policy[1]),
                                 code="config-type") from None  # fmt: skip
        if self.sandbox_mode is not None:
            file_s = SandboxMode(self.sandbox_mode[0])
        requested_a = approval_policy or file_a or default_approval or ON_REQUEST
        requested_s = sandbox or file_s or default_sandbox or SandboxMode.WORKSPACE_WRITE
        found = clamp(self.requirements, requested_a, requested_s)
        # Codex clamps the config files' values too when it loads them, flags or not, and
        # warns about each (observed: a file's `never` and a thread's `untrusted`, both listed)
        early: list[str] = []
        if file_a is not None and approval_policy is not None and file_a != approval_policy:
            early += clamp(self.requirements, file_a, SandboxMode.READ_ONLY).warnings
        if file_s is not None and sandbox is not None and file_s != sandbox:
            # (never + a disallowed danger-full-access from the file is never used: no refusal)
            with contextlib.suppress(SessionError):
                early += clamp(self.requirements, found.approval_policy, file_s).warnings
        if not early:
            return found
        return dataclasses.replace(found, warnings=(*early, *found.warnings))


def resolve(
    cwd: Path,
    *,
    codex_home: Path | None = None,
    env: Mapping[str, str] | None = None,
    system_dir: Path | None = None,
    project: Path | None = None,
    extra_rules: Sequence[str] = (),
) -> CodexConfig:
    """Codex's configuration for a session in `cwd` (absolute). `project` (`--project DIR`)
    replaces Codex's trust by the caller's; `extra_rules` (`--rules`) is ShellGate's
    command-line layer. Raises ConfigError (a config.toml Codex refuses), RequirementsError
    (a requirements.toml Codex refuses) or RulesError (a rules folder that cannot be read)."""
    system = SYSTEM_DIR if system_dir is None else system_dir
    home = codex_home if codex_home is not None else default_home(env)
    if project is not None:
        trust = trusted_project(project, cwd=cwd, codex_home=home)
    else:
        trust = project_trust(cwd, codex_home=home)
    layers = [
        RulesLayer(LayerKind.SYSTEM, str(system / "rules"), rules_files(system / "rules")),
        RulesLayer(LayerKind.USER, str(home / "rules"), rules_files(home / "rules")),
    ]
    configs = [system / "config.toml", home / "config.toml"]
    for folder in trust.folders:
        if folder.trusted:
            dot = folder.folder / ".codex"
            layers.append(RulesLayer(LayerKind.PROJECT, str(dot / "rules"),
                                     rules_files(dot / "rules")))  # fmt: skip
            configs.append(dot / "config.toml")
    if extra_rules:
        layers.append(RulesLayer(LayerKind.CLI, None, tuple(str(p) for p in extra_rules)))
    requirements = _requirements(system)
    if requirements is not None:
        layers.append(RulesLayer(LayerKind.REQUIREMENTS, str(system), (requirements.path,)))
    approval: tuple[object, Path] | None = None
    sandbox: tuple[str, Path] | None = None
    for path in configs:  # lowest first: a later file's value wins
        found: ConfigFile = read_config_file(path)
        if found.approval_policy is not None:
            approval = (found.approval_policy, path)
        if found.sandbox_mode is not None:
            sandbox = (found.sandbox_mode, path)
    return CodexConfig(Path(cwd), system, home, trust, tuple(layers), requirements, approval,
                       sandbox, tuple(configs))  # fmt: skip


_KEPT: dict[Path, tuple[tuple[int, int, int, int], Requirements | None]] = {}


def _requirements(system: Path) -> Requirements | None:
    """requirements.toml typed, or None; kept while the file is unchanged (the editor and the
    broker ask for every command; errors are never kept). Imported only when the file exists:
    a hook pays for tomllib only on a machine with a managed tier."""
    path = system / "requirements.toml"
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError:
        st = None  # the loader reports it
    signature = None if st is None else (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    kept = _KEPT.get(path)
    if kept is not None and signature is not None and kept[0] == signature:
        return kept[1]

    found = load_requirements(system)
    # a file changed within the clock's granularity may change again unseen ("racy git")
    if signature is not None and time.time_ns() - signature[2] > 2_000_000_000:
        _KEPT[path] = (signature, found)
    return found


def managed_session(
    approval: ApprovalPolicy, sandbox: SandboxMode, *, system_dir: Path | None = None
) -> Session:
    """The requirements' clamp of a session whose flags are known (the editor's settings, an
    MCP session): `resolve(...).session(...)` without the rest. Raises RequirementsError or
    SessionError as Codex would stop."""
    return clamp(_requirements(SYSTEM_DIR if system_dir is None else system_dir), approval,
                 sandbox)  # fmt: skip


def managed_context(policy: ApprovalPolicy, mode: SandboxMode) -> ExecContext:
    """The context after the admin's requirements (/etc/codex/requirements.toml): Codex's
    fallback for a disallowed policy or sandbox. A broken requirements file is reported by the
    merged layers (nothing runs); a session Codex refuses is a ValueError for the user."""
    try:
        session = managed_session(policy, mode)
    except SessionError as exc:
        raise ValueError(exc.message) from None
    except RequirementsError:
        return ExecContext(approval_policy=policy, sandbox=mode)
    return ExecContext(approval_policy=session.approval_policy, sandbox=session.sandbox,
                       fs_policy_has_denied_reads=bool(session.deny_read))  # fmt: skip


def codex_layers_for(
    cwd: Path,
    *,
    codex_home: Path | None = None,
    extra_rules: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    project: Path | None = None,
    system_dir: Path | None = None,
) -> tuple[tuple[RulesLayer, ...], ProjectTrust]:
    """The rule layers Codex would load for a session in `cwd`, and the trust that chose
    them: `shellgate.codexconfig.resolve.resolve(...)`'s layers and trust (system, user, each
    trusted project folder's `.codex/rules`, `extra_rules`, the requirements). Raises
    ConfigError on a broken config.toml, RequirementsError on a broken requirements.toml."""
    found = resolve(cwd, codex_home=codex_home, extra_rules=extra_rules, env=env,
                    project=project, system_dir=system_dir)  # fmt: skip
    return found.layers, found.trust
