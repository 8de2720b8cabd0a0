"""Where Codex finds rules: its config layers' `rules/*.rules`, lowest precedence first.

- system: `/etc/codex/rules/*.rules` (the admin's; `shellgate.codexconfig.resolve`);
- user: `$CODEX_HOME/rules/*.rules` (`~/.codex` when CODEX_HOME is unset or empty);
- project: `<folder>/.codex/rules/*.rules`, only for folders Codex trusts (`codexconfig.trust` reads
  Codex's config.toml and builds the layers for a cwd; here the caller names the project);
- cli: files named on the command line (`--rules`), in the order given;
- requirements: the `[rules] prefix_rules` of `/etc/codex/requirements.toml`, merged last
  (admin rules that only prompt or forbid: the strictest decision wins anyway).

In a folder: regular files (symlinks are skipped, as Codex's `DirEntry::file_type` does) whose
extension is exactly `rules`, sorted by name; a missing folder holds none. Every rule keeps its
span and gets its layer's name, so explanations can say where a decision came from.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from shellgate.codexconfig import codex_home
from shellgate.codexconfig.requirements import parse_requirements, read_requirements_text
from shellgate.rules.errors import RulesError
from shellgate.rules.policy import Policy
from shellgate.rules.rule import NetworkRule, PrefixRule


class LayerKind(Enum):
    SYSTEM = "system"  # /etc/codex/rules: the admin's, lowest precedence
    USER = "user"
    PROJECT = "project"
    CLI = "cli"
    # /etc/codex/requirements.toml's [rules]: merged after every rules file
    REQUIREMENTS = "requirements"


@dataclass(frozen=True)
class RulesLayer:
    """One layer of rules Codex loads: its kind, the folder scanned and the files found."""

    kind: LayerKind
    folder: str | None  # the `rules` folder scanned; None for command-line files
    files: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.kind.value


default_codex_home = codex_home  # the one computation lives in shellgate.codexconfig


def rules_files(rules_dir: Path) -> tuple[str, ...]:
    """`rules_dir/*.rules` as Codex lists them; RulesError if `rules_dir` is not a folder."""
    try:
        with os.scandir(rules_dir) as entries:
            found = [
                e.path
                for e in entries
                if Path(e.name).suffix == ".rules" and e.is_file(follow_symlinks=False)
            ]
    except FileNotFoundError:
        return ()
    except OSError as exc:
        raise RulesError(
            f"failed to read rules directory: {exc.strerror or exc}",
            path=str(rules_dir),
            code="read-error",
            kind="read",
        ) from None
    return tuple(sorted(found, key=os.fsencode))


def discover_layers(
    *,
    codex_home: Path | None = None,
    project: Path | None = None,
    extra_rules: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> tuple[RulesLayer, ...]:
    """The layers in Codex's order. `project` is a trusted project's root (None: no project)."""
    home = codex_home if codex_home is not None else default_codex_home(env)
    layers = [RulesLayer(LayerKind.USER, str(home / "rules"), rules_files(home / "rules"))]
    if project is not None:
        folder = project / ".codex" / "rules"
        layers.append(RulesLayer(LayerKind.PROJECT, str(folder), rules_files(folder)))
    if extra_rules:
        layers.append(RulesLayer(LayerKind.CLI, None, tuple(str(p) for p in extra_rules)))
    return tuple(layers)


def load_layers(layers: Sequence[RulesLayer]) -> Policy:
    """One policy from every layer, each rule with its span and layer, as Codex reads them:
    file after file, host executables carried across files. Raises RulesError on bad input (a
    broken file is an error here, never an empty policy that would let commands through)."""
    rules: list[PrefixRule] = []
    network: list[NetworkRule] = []
    hosts: dict[str, tuple[str, ...]] = {}
    for layer in layers:
        if layer.kind is LayerKind.REQUIREMENTS:
            rules.extend(_requirements_rules(layer))
            continue
        for path in layer.files:
            # deferred: the Starlark loader (~20-50 ms) only when the layer cache misses;
            # parse_text rather than load_policy: it keeps every rule's span for explanations.
            from shellgate.rules.loader import parse_text, read_rules_file

            parsed = parse_text(read_rules_file(path), path, hosts)
            if parsed.error is not None:
                raise parsed.error
            rules.extend(dataclasses.replace(r, layer=layer.name) for r in parsed.rules)
            network.extend(parsed.network_rules)
            hosts = dict(parsed.host_executables)
    return Policy(rules, network, hosts)


def _requirements_rules(layer: RulesLayer) -> list[PrefixRule]:
    """The managed rules of requirements.toml; RequirementsError (a RulesError) when the file
    is not what Codex accepts."""
    out: list[PrefixRule] = []
    for path in layer.files:
        text = read_requirements_text(Path(path))
        if text is not None:
            base = Path(path).parent
            out.extend(parse_requirements(text, path, base=base).prefix_rules())
    return out
