"""The Codex layers in scope, merged as Codex merges them, for questions across files.

Codex loads every layer's `rules/*.rules` into one policy, and refuses all of it when any file
fails. `MergedPolicy` keeps both views: the rules of the files that load (what they decide once
the broken files are fixed) and the files that fail (why Codex, today, runs with no rules).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from shellgate.codexconfig import SYSTEM_FOLDER
from shellgate.codexconfig.layers import LayerKind, RulesLayer, discover_layers, rules_files
from shellgate.lint.analyze import FileAnalysis
from shellgate.rules.errors import RulesError
from shellgate.rules.policy import Policy


@dataclass(frozen=True, slots=True)
class LayerFile:
    path: str
    layer: str  # "user", "project", "open file", ...


# The layer name of an open `.rules` document outside every Codex layer: Codex never loads it.
DRAFT_LAYER = "draft"


@dataclass(frozen=True, slots=True)
class MergedPolicy:
    policy: Policy
    files: tuple[LayerFile, ...]
    broken: tuple[tuple[LayerFile, RulesError], ...]
    # How this view differs from what runs (the layers as saved on disk): layer files read
    # from an editor buffer that differs from disk, and drafts outside every layer.
    unsaved: tuple[str, ...] = ()
    drafts: tuple[str, ...] = ()

    def layer_of(self, path: str) -> str | None:
        for f in self.files:
            if f.path == path:
                return f.layer
        return None

    def differences(self) -> list[str]:
        """Sentences saying how this view differs from the rules that run (none: it is them)."""
        notes = [
            f"with your unsaved edits of {path} (commands run with the saved file)"
            for path in self.unsaved
        ]
        notes += [
            f"with the draft {path}, which Codex does not load: outside its rules folders"
            for path in self.drafts
        ]
        return notes


def discover_layer_files(
    *,
    codex_home: Path | None,
    project_roots: Sequence[Path],
    extra: Iterable[Path] = (),
    system_dir: Path | None = None,
) -> list[LayerFile]:
    """Codex's layers (the admin's /etc/codex/rules, the user's, each trusted project's, extra
    files, then the admin's requirements.toml), deduplicated.

    A layer folder that cannot be listed is skipped here: the loader reports it when it
    matters, and the editor must keep working.
    """
    system = Path(SYSTEM_FOLDER) if system_dir is None else system_dir
    layers: list[RulesLayer] = []
    with contextlib.suppress(RulesError):
        layers.append(RulesLayer(LayerKind.SYSTEM, str(system / "rules"),
                                 rules_files(system / "rules")))  # fmt: skip
    roots: list[Path | None] = list(project_roots) or [None]
    for i, root in enumerate(roots):
        try:
            found = discover_layers(
                codex_home=codex_home,
                project=root,
                extra_rules=[str(p) for p in extra] if i == len(roots) - 1 else (),
            )
        except RulesError:
            continue
        layers.extend(found if i == 0 else [x for x in found if x.kind is not LayerKind.USER])
    requirements = system / "requirements.toml"
    if requirements.exists():
        layers.append(RulesLayer(LayerKind.REQUIREMENTS, str(system), (str(requirements),)))
    files: list[LayerFile] = []
    seen: set[str] = set()
    for layer in layers:
        for path in layer.files:
            if path not in seen:
                seen.add(path)
                files.append(LayerFile(path, layer.name))
    return files


def merge_files(analyses: Sequence[tuple[LayerFile, FileAnalysis]]) -> MergedPolicy:
    policy = Policy()
    broken: list[tuple[LayerFile, RulesError]] = []
    for layer_file, analysis in analyses:
        if analysis.error is not None:
            broken.append((layer_file, analysis.error))
        for rule in analysis.rules:
            policy.add_rule(rule if rule.layer else replace(rule, layer=layer_file.layer))
        for name, paths in analysis.host_executables.items():
            policy.set_host_executable(name, paths)
        policy.network_rules.extend(analysis.network_rules)
    return MergedPolicy(policy, tuple(f for f, _ in analyses), tuple(broken))
