"""Steps the command-line tools share. Each returns a value, or an exit status after printing
`<prog>: error: ...` on stderr. Heavy modules are imported late: start-up time matters."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shellgate.approval.context import ApprovalPolicy
    from shellgate.codexconfig.resolve import CodexConfig
    from shellgate.codexconfig.session import Session
    from shellgate.codexconfig.trust import ProjectTrust
    from shellgate.rules.policy import Policy

EXIT_USAGE = 2


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter at the width it would choose, found without importing shutil:
    argparse builds a formatter for every add_argument, and shutil brings zlib, bz2 and lzma
    (milliseconds of every start, help or not)."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = _terminal_columns() - 2  # as argparse does
        super().__init__(prog, indent_increment, max_help_position, width)


def _terminal_columns() -> int:
    """shutil.get_terminal_size().columns: $COLUMNS, else stdout's terminal, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def split_at_dashes(argv: list[str]) -> tuple[list[str], list[str]]:
    """(options, command): everything after the first `--` is the command, untouched."""
    if "--" in argv:
        cut = argv.index("--")
        return argv[:cut], argv[cut + 1 :]
    return argv, []


def exit_status(exc: SystemExit) -> int:
    """argparse exits 0 for --help and prints usage and the error otherwise."""
    return 0 if exc.code == 0 else EXIT_USAGE


def one_target(
    parser: argparse.ArgumentParser, shell: str | None, command: list[str]
) -> int | None:
    """None when exactly one of `--shell SCRIPT` and `-- CMD...` was given, and the command
    names a program."""
    if (shell is None) != (not command):
        if not command or command[0]:
            return None
        # execvp("") fails (a shell says "Permission denied"): nothing to decide or run.
        problem = ("the command after `--` has no program (its first word is ''); an empty "
                   "script is `--shell ''`")
    else:
        problem = "give a command after `--` or a script with --shell (exactly one)"
    parser.print_usage(sys.stderr)
    print(f"{parser.prog}: error: {problem}", file=sys.stderr)
    return EXIT_USAGE


def approval_policy(prog: str, text: str | None) -> ApprovalPolicy | int | None:
    """`--approval-policy` parsed; None when not given (Codex's config files decide)."""
    # deferred: approval.context (~16-20 ms) once a command reads the flag; `--help`
    # and usage errors answer without it
    from shellgate.approval.context import ApprovalPolicy

    if text is None:
        return None

    try:
        return ApprovalPolicy.parse(text)
    except ValueError as exc:
        print(f"{prog}: error: --approval-policy: {exc}", file=sys.stderr)
        return EXIT_USAGE


def workdir(prog: str, cwd: str | None) -> str | int:
    """The absolute `--cwd` (default: the current directory), which must be a folder."""
    path = os.path.abspath(cwd or os.getcwd())
    if not os.path.isdir(path):
        print(f"{prog}: error: --cwd {path}: no such directory", file=sys.stderr)
        return EXIT_USAGE
    return path


def rules_folders(prog: str, codex_home: str | None, project: str | None) -> int | None:
    """None when `--codex-home` and `--project`, if given, are folders."""
    for flag, folder in (("--codex-home", codex_home), ("--project", project)):
        if folder is not None and not os.path.isdir(folder):
            print(f"{prog}: error: {flag}: no such directory: {folder}", file=sys.stderr)
            return EXIT_USAGE
    return None


def load_config(
    prog: str,
    *,
    codex_home: Path | None,
    project: Path | None,
    cwd: str,
    extra_rules: list[str],
    consequence: str,
    status: int,
) -> tuple[CodexConfig, Policy] | int:
    """Codex's configuration for a session in `cwd` (codexconfig.resolve: every tier and the
    admin's requirements) and the merged policy of its layers (cached); or `status` after
    reporting what Codex would refuse to start with."""
    # deferred: the config resolver and layer cache (~40 ms) once the arguments are parsed
    from shellgate.codexconfig.layer_cache import load_layers_cached
    from shellgate.codexconfig.requirements import RequirementsError
    from shellgate.codexconfig.resolve import resolve
    from shellgate.codexconfig.trust import ConfigError
    from shellgate.rules.errors import RulesError

    try:
        config = resolve(Path(cwd), codex_home=codex_home, project=project,
                         extra_rules=extra_rules)  # fmt: skip
        return config, load_layers_cached(config.layers)
    except ConfigError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        print("Codex refuses to start with this config.toml: nothing is decided or run until "
              "it is fixed", file=sys.stderr)  # fmt: skip
        return status
    except RequirementsError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        print(REQUIREMENTS_STOP, file=sys.stderr)
        return status
    except RulesError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        print(consequence, file=sys.stderr)
        return status


REQUIREMENTS_STOP = (
    "Codex refuses to start with these requirements: nothing is decided or run until the admin "
    "fixes them"
)


def session(
    prog: str,
    config: CodexConfig,
    approval: ApprovalPolicy | None,
    sandbox: str | None,
    *,
    status: int,
) -> Session | int:
    """The session's approval policy and sandbox: the flags, else Codex's config files, then
    the admin's requirements (their fallback warnings on stderr); `status` when Codex would
    refuse the session."""
    # deferred: approval.context (~16-20 ms) once the arguments are parsed
    from shellgate.approval.context import SandboxMode
    from shellgate.rules.errors import RulesError

    try:
        found = config.session(approval, None if sandbox is None else SandboxMode(sandbox))
    except RulesError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return status
    for warning in found.warnings:
        print(f"{prog}: warning: {warning}", file=sys.stderr)
    return found


def running_session(
    prog: str, args: argparse.Namespace, cwd: str, approval: ApprovalPolicy | None, *,
    status: int,
) -> tuple[Path, Policy, Session] | int:  # fmt: skip
    """What a command that runs things (`run`, `agent`) runs under: the Codex home, the rules
    Codex would load for `cwd` (`--codex-home`, `--project`, `--rules`), and the session's
    policy and sandbox after the admin's clamp; `status` after reporting what stops it."""
    # deferred: the config resolver (~40 ms) once the arguments are parsed
    from shellgate.codexconfig.layers import default_codex_home

    # A mistyped project folder must not silently drop its rules (forbidden ones too);
    # a new --codex-home is fine: amendments create its rules folder.
    if (bad := rules_folders(prog, None, args.project)) is not None:
        return bad
    codex_home = Path(args.codex_home) if args.codex_home else default_codex_home()
    loaded = load_config(
        prog, codex_home=codex_home, project=Path(args.project) if args.project else None,
        cwd=cwd, extra_rules=args.rules, consequence="nothing ran: fix the rules first",
        status=status)  # fmt: skip
    if isinstance(loaded, int):
        return loaded
    config, policy = loaded
    note_ignored_project(prog, config.trust)
    # the admin's requirements clamp the session's policy and sandbox (warnings on stderr)
    clamped = session(prog, config, approval, args.sandbox, status=status)
    if isinstance(clamped, int):
        return clamped
    return codex_home, policy, clamped


def note_ignored_project(prog: str, trust: ProjectTrust) -> None:
    """Say on stderr when the cwd's project has rules Codex would not load (untrusted)."""
    if trust.ignored:
        print(f"{prog}: note: {trust.describe()}", file=sys.stderr)
