"""The server's state: settings, analyses of open documents, and the merged Codex layers.

Two views of the layers, never mixed:
- `running()`: the layers Codex would load, as saved on disk. Whatever executes (Run Command,
  the agent, approvals, outside agents) decides with it; editor buffers never change it.
- `merged(uri)`: the same layers as typed (open buffers instead of their saved text), plus the
  document `uri` when it is a draft outside every layer. Lint, hover, hints and Explain show it,
  and say how it differs from what runs (`MergedPolicy.differences`).

Analyses run on one worker thread (the event loop stays free to read the client), always on
the latest text of a document, and are cached by document version: a burst of edits costs one
analysis of the final text, not one per edit.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pygls.uris import to_fs_path
from pygls.workspace import TextDocument, Workspace

from shellgate.codexconfig import codex_home
from shellgate.codexconfig.editing import is_requirements
from shellgate.lint.analyze import FileAnalysis, analyze, analyze_file, analyze_requirements
from shellgate.lint.chunked import ChunkedParser
from shellgate.lint.memo import CheckMemo
from shellgate.lint.workspace import (
    DRAFT_LAYER,
    LayerFile,
    MergedPolicy,
    discover_layer_files,
    merge_files,
)

log = logging.getLogger("shellgate.lsp")


@dataclass(frozen=True, slots=True)
class Settings:
    """What the client may set through `initializationOptions` (camelCase keys)."""

    codex_home: Path | None = None
    approval_policy: str = "on-request"
    sandbox: str = "workspace-write"
    # Codex only reads a project's .codex/rules when the project is trusted: the editor
    # user opened it, so we treat it as trusted unless told otherwise.
    trust_project: bool = True
    extra_rules: tuple[Path, ...] = field(default=())
    # Rule coverage from past commands (lsp/coverage.py): `replay.enabled` (default on) and
    # `replay.sources` (default: every history found in the default places).
    replay_enabled: bool = True
    replay_sources: tuple[str, ...] | None = None
    # The client shows `shellgate/pastDecisionsChanged` itself (VS Code): no showMessage then.
    replay_client_notice: bool = False

    @staticmethod
    def from_options(options: Any) -> Settings:
        return Settings(codex_home=_default_codex_home()).updated(options)

    def updated(self, options: Any) -> Settings:
        """These settings with the keys `options` gives replaced (the rest kept).

        Keys: `codexHome`, `approvalPolicy`, `sandbox` (VS Code's `sandboxMode` too),
        `trustProject`, `rules` (extra rules files). Raises nothing: a key of the wrong type is
        ignored, and a bad policy or sandbox name is caught by the caller's `context_for`.
        """
        if not isinstance(options, dict):
            return self
        changes: dict[str, Any] = {}
        home = options.get("codexHome")
        if isinstance(home, str):
            home = home.replace("${userHome}", str(Path.home()))
            changes["codex_home"] = Path(home).expanduser() if home else _default_codex_home()
        policy = options.get("approvalPolicy")
        if isinstance(policy, (str, dict)) and policy:
            changes["approval_policy"] = policy if isinstance(policy, str) else _json(policy)
        sandbox = options.get("sandbox", options.get("sandboxMode"))
        if isinstance(sandbox, str) and sandbox:
            changes["sandbox"] = sandbox
        trust = options.get("trustProject")
        if isinstance(trust, bool):
            changes["trust_project"] = trust
        extra = options.get("rules")
        if isinstance(extra, list):
            changes["extra_rules"] = tuple(Path(p) for p in extra if isinstance(p, str))
        replay = options.get("replay")
        if isinstance(replay, dict):
            # `sources` empty or absent: what is auto-detected (VS Code's default is []).
            sources = replay.get("sources")
            changes["replay_enabled"] = replay.get("enabled", True) is not False
            changes["replay_sources"] = (
                tuple(str(x) for x in sources) or None if isinstance(sources, list) else None
            )
            if "clientShowsChanges" in replay:  # only initializationOptions carry it
                changes["replay_client_notice"] = replay["clientShowsChanges"] is True
        return replace(self, **changes)


def _json(value: object) -> str:

    return json.dumps(value)


def _default_codex_home() -> Path:
    return codex_home().expanduser()


def document_path(uri: str) -> str:
    """A file path for messages and layer identity; `untitled:` documents keep their URI."""
    return to_fs_path(uri) or uri


class Session:
    def __init__(self) -> None:
        self.settings = Settings(codex_home=_default_codex_home())
        self.roots: tuple[Path, ...] = ()
        self.workspace: Workspace | None = None
        self.supports_pull = False
        self.client_watches = False
        self.watch_tasks: list[asyncio.Task[None]] = []
        self.home_watch: asyncio.Task[None] | None = None
        self.stop = asyncio.Event()
        # Called (on the event loop) when rules on disk change: features refresh their views.
        self.listeners: list[Callable[[], None]] = []
        self.generation = 0  # bumped on every disk change: part of pull result ids
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="shellgate-analysis")
        self._lock = threading.Lock()
        self._analyses: dict[str, tuple[int | None, str, FileAnalysis]] = {}
        self._parsers: dict[str, tuple[ChunkedParser, CheckMemo]] = {}
        # The views as typed, by (document, every open document's version, every layer file's
        # stamp): an edit, an opened buffer or a change on disk changes the key, even before
        # a watcher reports it.
        self._merged: dict[tuple[object, ...], MergedPolicy] = {}
        self._running: tuple[tuple[tuple[str, int, int], ...], MergedPolicy] | None = None
        self._disk: dict[str, tuple[float, int, FileAnalysis]] = {}

    # -- documents ---------------------------------------------------------------------------

    def open_document(self, uri: str) -> TextDocument | None:
        if self.workspace is None:
            return None
        doc: TextDocument | None = self.workspace.text_documents.get(uri)
        return doc

    def open_uris(self) -> list[str]:
        return [] if self.workspace is None else list(self.workspace.text_documents)

    def analysis(self, uri: str) -> FileAnalysis | None:
        """The analysis of an open document's current text (computed here if needed)."""
        doc = self.open_document(uri)
        if doc is None:
            return None
        text, version = doc.source, doc.version
        with self._lock:
            cached = self._analyses.get(uri)
            if cached is not None and cached[0] == version and cached[1] == text:
                return cached[2]
        path = document_path(uri)
        if is_requirements(path):  # its own language: TOML, read as Codex reads it
            result = analyze_requirements(text, path)
        else:
            with self._lock:
                parser, memo = self._parsers.setdefault(uri, (ChunkedParser(), CheckMemo()))
            result = analyze(text, path, parser, memo)
        # What we keep lives long: collect the young garbage (cycles such as caught exceptions),
        # then take the survivors out of the cyclic collector's sight, else a full collection
        # walks every rule of a big file in the middle of an edit.
        gc.collect(1)
        gc.freeze()
        with self._lock:
            self._analyses[uri] = (version, text, result)
            self._merged.clear()  # the view as typed changed (what runs did not)
        return result

    async def analysis_async(self, uri: str) -> FileAnalysis | None:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self.analysis, uri)

    def forget(self, uri: str) -> None:
        with self._lock:
            self._analyses.pop(uri, None)
            self._parsers.pop(uri, None)
            self._merged.clear()

    # -- layers ------------------------------------------------------------------------------

    def layer_files(self) -> list[LayerFile]:
        return discover_layer_files(
            codex_home=self.settings.codex_home,
            project_roots=self.roots if self.settings.trust_project else (),
            extra=self.settings.extra_rules,
        )

    def running(self) -> MergedPolicy:
        """The layers Codex would load, as saved on disk: what every command run decides with."""
        files = self.layer_files()
        key = tuple(_stamp(f.path) for f in files)
        with self._lock:
            if self._running is not None and self._running[0] == key:
                return self._running[1]
        merged = merge_files([(f, self.disk_analysis(f.path)) for f in files])
        with self._lock:
            self._running = (key, merged)
        return merged

    async def running_async(self) -> MergedPolicy:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self.running)

    def merged(self, uri: str | None = None) -> MergedPolicy:
        """The layers as typed: open buffers instead of their saved text, plus the document
        `uri` when it is a draft outside every layer (other drafts stay out: each is explained
        against the layers plus itself)."""
        files = self.layer_files()
        key = (uri, self._versions(), tuple(_stamp(f.path) for f in files))
        with self._lock:
            cached = self._merged.get(key)
            if cached is not None:
                return cached
        analyses: list[tuple[LayerFile, FileAnalysis]] = []
        unsaved: list[str] = []
        for f in files:
            disk = self.disk_analysis(f.path)
            # requirements.toml is TOML: an open buffer of it is not a rules document
            typed = None if f.layer == "requirements" else self._open_analysis_for(f.path)
            if typed is not None and typed.text != disk.text:
                unsaved.append(f.path)
            analyses.append((f, typed or disk))
        drafts: list[str] = []
        if uri is not None:
            path = document_path(uri)
            if path not in {f.path for f in files} and self.open_document(uri) is not None:
                draft = self.analysis(uri)
                if draft is not None:
                    analyses.append((LayerFile(path, DRAFT_LAYER), draft))
                    drafts.append(path)
        merged = replace(merge_files(analyses), unsaved=tuple(unsaved), drafts=tuple(drafts))
        with self._lock:
            if len(self._merged) > 64:  # old keys are never asked again
                self._merged.clear()
            self._merged[key] = merged
        return merged

    def _versions(self) -> tuple[tuple[str, int | None], ...]:
        if self.workspace is None:
            return ()
        docs = self.workspace.text_documents
        return tuple(sorted((uri, docs[uri].version) for uri in list(docs) if uri in docs))

    async def merged_async(self, uri: str | None = None) -> MergedPolicy:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self.merged, uri)

    def _open_analysis_for(self, path: str) -> FileAnalysis | None:
        if self.workspace is None:
            return None
        for uri in list(self.workspace.text_documents):
            if document_path(uri) == path:
                return self.analysis(uri)
        return None

    def disk_analysis(self, path: str) -> FileAnalysis:
        """The file as saved on disk, analysed; kept while its mtime and size hold."""
        try:
            st = os.stat(path)
            key = (st.st_mtime, st.st_size)
        except OSError:
            key = (0.0, -1)
        with self._lock:
            cached = self._disk.get(path)
            if cached is not None and (cached[0], cached[1]) == key:
                return cached[2]
        result = analyze_file(path)
        with self._lock:
            self._disk[path] = (key[0], key[1], result)
        return result

    def rules_changed(self) -> None:
        """Something on disk changed: re-read the layers on the next question, tell features."""
        with self._lock:
            self._merged.clear()
            self._running = None
            self.generation += 1
        for listener in self.listeners:
            try:
                listener()
            except Exception:
                log.exception("refresh after a rules change failed")


def _stamp(path: str) -> tuple[str, int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (path, -1, -1)
    return (path, st.st_mtime_ns, st.st_size)
