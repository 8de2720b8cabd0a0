"""The server's state: settings, analyses of open documents, and the merged Codex layers.

Analyses run on one worker thread (the event loop stays free to read the client), always on
the latest text of a document, and are cached by document version: a burst of edits costs one
analysis of the final text, not one per edit.
"""

from __future__ import annotations

import asyncio
import gc
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

from shellgate.lint.analyze import FileAnalysis, analyze, analyze_file
from shellgate.lint.chunked import ChunkedParser
from shellgate.lint.memo import CheckMemo
from shellgate.lint.workspace import LayerFile, MergedPolicy, discover_layer_files, merge_files

log = logging.getLogger("shellgate.lsp")

# Open `.rules` documents outside every Codex layer count like files given with `--rules`.
OPEN_FILE_LAYER = "cli"


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
        base = Settings(codex_home=_default_codex_home())
        if not isinstance(options, dict):
            return base
        home = options.get("codexHome")
        extra = options.get("rules")
        raw = options.get("replay")
        replay: dict[str, Any] = raw if isinstance(raw, dict) else {}
        sources = replay.get("sources")
        return replace(
            base,
            codex_home=Path(home).expanduser()
            if isinstance(home, str) and home
            else base.codex_home,
            approval_policy=str(options.get("approvalPolicy") or base.approval_policy),
            sandbox=str(options.get("sandbox") or base.sandbox),
            trust_project=bool(options.get("trustProject", True)),
            extra_rules=tuple(Path(p) for p in extra if isinstance(p, str))
            if isinstance(extra, list)
            else (),
            replay_enabled=replay.get("enabled", True) is not False,
            replay_sources=tuple(str(x) for x in sources) if isinstance(sources, list) else None,
            replay_client_notice=replay.get("clientShowsChanges") is True,
        )


def _default_codex_home() -> Path:
    env = os.environ.get("CODEX_HOME")
    return Path(env).expanduser() if env else Path.home() / ".codex"


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
        self.stop = asyncio.Event()
        # Called (on the event loop) when rules on disk change: features refresh their views.
        self.listeners: list[Callable[[], None]] = []
        self.generation = 0  # bumped on every disk change: part of pull result ids
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="shellgate-analysis")
        self._lock = threading.Lock()
        self._analyses: dict[str, tuple[int | None, str, FileAnalysis]] = {}
        self._parsers: dict[str, tuple[ChunkedParser, CheckMemo]] = {}
        self._merged: MergedPolicy | None = None
        self._disk: dict[str, tuple[float, int, FileAnalysis]] = {}

    # -- documents ---------------------------------------------------------------------------

    def open_document(self, uri: str) -> TextDocument | None:
        if self.workspace is None:
            return None
        doc: TextDocument | None = self.workspace.text_documents.get(uri)
        return doc

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
        with self._lock:
            parser, memo = self._parsers.setdefault(uri, (ChunkedParser(), CheckMemo()))
        result = analyze(text, document_path(uri), parser, memo)
        # What we keep lives long: collect the young garbage (cycles such as caught exceptions),
        # then take the survivors out of the cyclic collector's sight, else a full collection
        # walks every rule of a big file in the middle of an edit.
        gc.collect(1)
        gc.freeze()
        with self._lock:
            self._analyses[uri] = (version, text, result)
            self._merged = None  # an open file is a layer: its rules changed
        return result

    async def analysis_async(self, uri: str) -> FileAnalysis | None:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self.analysis, uri)

    def forget(self, uri: str) -> None:
        with self._lock:
            self._analyses.pop(uri, None)
            self._parsers.pop(uri, None)
            self._merged = None

    # -- layers ------------------------------------------------------------------------------

    def layer_files(self) -> list[LayerFile]:
        return discover_layer_files(
            codex_home=self.settings.codex_home,
            project_roots=self.roots if self.settings.trust_project else (),
            extra=self.settings.extra_rules,
        )

    def merged(self) -> MergedPolicy:
        """Every loaded layer plus the open `.rules` documents, merged in Codex's order."""
        with self._lock:
            if self._merged is not None:
                return self._merged
        files = self.layer_files()
        known = {f.path for f in files}
        analyses: list[tuple[LayerFile, FileAnalysis]] = []
        for f in files:
            uri_analysis = self._open_analysis_for(f.path)
            analyses.append((f, uri_analysis or self._disk_analysis(f.path)))
        if self.workspace is not None:
            for uri in list(self.workspace.text_documents):
                path = document_path(uri)
                if path in known or not path.endswith(".rules"):
                    continue
                a = self.analysis(uri)
                if a is not None:
                    analyses.append((LayerFile(path, OPEN_FILE_LAYER), a))
        merged = merge_files(analyses)
        with self._lock:
            self._merged = merged
        return merged

    async def merged_async(self) -> MergedPolicy:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self.merged)

    def _open_analysis_for(self, path: str) -> FileAnalysis | None:
        if self.workspace is None:
            return None
        for uri in list(self.workspace.text_documents):
            if document_path(uri) == path:
                return self.analysis(uri)
        return None

    def _disk_analysis(self, path: str) -> FileAnalysis:
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
            self._merged = None
            self.generation += 1
        for listener in self.listeners:
            try:
                listener()
            except Exception:
                log.exception("refresh after a rules change failed")
