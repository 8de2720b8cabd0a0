"""The answer cache of `shellgate mcp`'s fast start (front.py): the SDK's answers to the openings
of earlier conversations, in `$XDG_CACHE_HOME/shellgate/mcp-answers.json`.

One JSON file, `{"key": …, "answers": {opening digest: answer line}}`, written atomically (temp
file and rename, mode 0600), merged with what other servers wrote, the newest answers kept. The
key stamps everything the answers come from (ShellGate's version and `shellgate/mcp` sources, the
SDK, pydantic and anyio as installed, Python, the options that change answers), cheaply: `stat`
calls, no SDK import. A file of another key is ignored and replaced; a corrupt or unreadable one
is reported and rewritten. Stdlib only, like front.py.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import threading
from importlib.machinery import PathFinder
from typing import Any

import shellgate

FORMAT = 1
# What the SDK's answers are made of, besides our own sources.
_SDK_PACKAGES = ("mcp", "mcp_types", "pydantic", "pydantic_core", "anyio")


def cache_path() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "shellgate", "mcp-answers.json")


def cache_key(options: dict[str, Any]) -> str:
    """A stamp of the code and options the answers come from; cheap (stats, no SDK import)."""
    stamp: list[Any] = [FORMAT, shellgate.__version__, sys.version, sys.executable, options]
    here = os.path.dirname(os.path.abspath(__file__))
    for path in [shellgate.__file__, *sorted(
            os.path.join(here, n) for n in os.listdir(here) if n.endswith(".py"))]:  # fmt: skip
        st = os.stat(path)
        stamp.append((path, st.st_mtime_ns, st.st_size))
    folders = set()
    for name in _SDK_PACKAGES:
        spec = PathFinder.find_spec(name)
        origin = spec.origin if spec is not None else None
        if origin is None:
            stamp.append((name, None))
            continue
        st = os.stat(origin)
        stamp.append((name, origin, st.st_mtime_ns, st.st_size))
        folders.add(os.path.dirname(os.path.dirname(origin)))
    # An install or upgrade in site-packages adds or renames a dist-info folder there.
    stamp.extend((f, os.stat(f).st_mtime_ns) for f in sorted(folders))
    return hashlib.sha256(json.dumps(stamp, default=str).encode()).hexdigest()


def warn(message: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"shellgate mcp: {message}\n")
        sys.stderr.flush()


class AnswerCache:
    """Opening digest -> the SDK's answer line, in one JSON file written atomically."""

    LIMIT = 256  # answers kept, the newest: a client's upgrade adds a handful

    def __init__(self, path: str, key: str) -> None:
        self.path, self.key = path, key
        self._lock = threading.Lock()
        self.answers: dict[str, str] = {}
        try:
            self.answers = self._load()
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:
            warn(f"ignoring the answer cache {path} ({exc}); it is rewritten from the SDK's "
                  "answers")  # fmt: skip

    def _load(self) -> dict[str, str]:
        """The file's answers for this key ({} for another build's); ValueError if corrupt."""
        with open(self.path, encoding="utf-8") as fh:
            data = json.load(fh)
        answers = data.get("answers") if isinstance(data, dict) else None
        if not isinstance(answers, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in answers.items()):
            raise ValueError("not a cache of answers")
        return answers if data.get("key") == self.key else {}

    def get(self, digest: str) -> str | None:
        with self._lock:
            return self.answers.get(digest)

    def put(self, digest: str, line: str | None) -> None:
        """Records the SDK's answer (None: forgets it) and writes the file."""
        import tempfile  # only when writing: its import costs the start a few ms

        with self._lock:
            with contextlib.suppress(OSError, ValueError):  # what other servers learnt since
                self.answers = {**self._load(), **self.answers}
            self.answers.pop(digest, None)
            if line is not None:
                self.answers[digest] = line  # the newest last
            while len(self.answers) > self.LIMIT:
                del self.answers[next(iter(self.answers))]
            data = json.dumps({"key": self.key, "answers": self.answers}, ensure_ascii=False)
        folder = os.path.dirname(self.path)
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".mcp-answers-", dir=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(data)
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError as exc:
            warn(f"could not write the answer cache {self.path}: {exc}")
