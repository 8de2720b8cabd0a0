"""`--against REV|DIR|FILE`: the same history under other rules, and what changes.

The other rules are a file, a folder of `*.rules` (or a Codex home or a project holding one),
or a git revision of the rules loaded now: each loaded file as it was at that revision
(`git show REV:path`, into a private temporary folder that is removed afterwards).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from shellgate.approval.context import ExecContext
from shellgate.codexconfig.layers import LayerKind, RulesLayer, rules_files
from shellgate.replay.engine import Decided, Entry, Outcome, redecide
from shellgate.rules.policy import Policy


class AgainstError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Change:
    entry: Entry
    before: Decided  # under the other rules
    after: Decided  # under the rules loaded now

    @property
    def loosened(self) -> bool:
        return self.after.outcome.rank < self.before.outcome.rank


@dataclass(frozen=True, slots=True)
class Comparison:
    label: str  # what the other rules are: `HEAD~1`, a path
    changes: tuple[Change, ...]
    names: dict[str, str]  # temporary path -> `REV:path`, for showing where a rule was

    def groups(self) -> dict[tuple[Outcome, Outcome], list[Change]]:
        out: dict[tuple[Outcome, Outcome], list[Change]] = {}
        for change in self.changes:
            out.setdefault((change.before.outcome, change.after.outcome), []).append(change)
        return out

    def count(self, *, loosened: bool) -> int:
        return sum(c.entry.count for c in self.changes if c.loosened is loosened)


def compare(
    entries: Sequence[Entry], now: dict[tuple[object, ...], Decided] | None, other: Policy,
    context: ExecContext, label: str, names: dict[str, str],
) -> Comparison:  # fmt: skip
    before = redecide(entries, other, context)
    changes = []
    for entry in entries:
        after = entry.decided if now is None else now[entry.key]
        if before[entry.key].outcome is not after.outcome:
            changes.append(Change(entry, before[entry.key], after))
    changes.sort(key=lambda c: (-c.entry.count, c.entry.last.text if c.entry.last else ""))
    return Comparison(label, tuple(changes), names)


@contextmanager
def other_layers(
    spec: str, current: Sequence[RulesLayer]
) -> Iterator[tuple[tuple[RulesLayer, ...], dict[str, str]]]:
    """The layers `spec` names, and the display names of temporary files."""
    if os.path.isfile(spec):
        yield (RulesLayer(LayerKind.CLI, None, (os.path.abspath(spec),)),), {}
        return
    if os.path.isdir(spec):
        yield (_folder_layer(spec),), {}
        return
    folder = tempfile.mkdtemp(prefix="shellgate-against-")
    try:
        yield _at_revision(spec, current, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _folder_layer(spec: str) -> RulesLayer:
    for sub in ("", "rules", os.path.join(".codex", "rules")):
        folder = os.path.abspath(os.path.join(spec, sub))
        if os.path.isdir(folder) and (files := rules_files(Path(folder))):
            return RulesLayer(LayerKind.CLI, folder, files)
    raise AgainstError(f"--against {spec}: no *.rules in it, nor in its rules/ or .codex/rules/")


def _git(cwd: str, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", cwd, *args], capture_output=True, text=True,
                              timeout=30, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AgainstError(f"git: {exc}") from None
    if done.returncode != 0:
        raise AgainstError(done.stderr.strip() or f"git {' '.join(args)} failed")
    return done.stdout


def _at_revision(
    rev: str, current: Sequence[RulesLayer], folder: str
) -> tuple[tuple[RulesLayer, ...], dict[str, str]]:
    names: dict[str, str] = {}
    layers: list[RulesLayer] = []
    used_git = False
    for index, layer in enumerate(current):
        places = [layer.folder] if layer.folder else [os.path.dirname(f) for f in layer.files]
        files: list[str] = []
        for place in dict.fromkeys(places):
            if not os.path.isdir(place):
                continue
            try:
                top = _git(place, "rev-parse", "--show-toplevel").strip()
            except AgainstError:
                continue  # not in a repository: this layer has no history
            used_git = True
            try:
                _git(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
            except AgainstError:
                raise AgainstError(f"--against {rev}: not a file or folder, nor a revision the "
                                   f"git repository {top} knows") from None  # fmt: skip
            rel = os.path.relpath(os.path.realpath(place), os.path.realpath(top))
            try:
                listed = _git(top, "ls-tree", "--name-only", "-z", f"{rev}:{rel}" if rel != "."
                              else f"{rev}^{{tree}}")  # fmt: skip
            except AgainstError:
                listed = ""  # the folder did not exist at that revision: no rules then
            wanted = [n for n in listed.split("\0") if n.endswith(".rules")]
            if layer.folder is None:
                wanted = [n for n in wanted if os.path.join(place, n) in layer.files]
            for name in sorted(wanted, key=os.fsencode):
                path_in_repo = name if rel == "." else f"{rel}/{name}"
                text = _git(top, "show", f"{rev}:{path_in_repo}")
                target = os.path.join(folder, str(index), rel, name)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "w", encoding="utf-8") as handle:
                    handle.write(text)
                names[target] = f"{rev}:{path_in_repo}"
                files.append(target)
        layers.append(replace(layer, folder=None, files=tuple(files)))
    if not used_git:
        raise AgainstError(f"--against {rev}: not a file or folder, and no rules loaded now are "
                           "in a git repository")  # fmt: skip
    return tuple(layers), names
