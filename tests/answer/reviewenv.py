"""The recipe's stand-in model server (standin/standin_review.py) on 127.0.0.1 for one test:
the main model's script and the reviewer's, every request logged."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

STANDIN = Path(__file__).with_name("standin") / "standin_review.py"


class Standin:
    def __init__(self, root: Path, port: int) -> None:
        self.root, self.port = root, port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def requests(self, role: str = "reviewer") -> list[dict[str, Any]]:
        log = self.root / "requests.jsonl"
        if not log.exists():
            return []
        rows = [json.loads(line) for line in log.read_text().splitlines()]
        return [r for r in rows if r["role"] == role]


@contextmanager
def standin(root: Path, review: list[dict[str, Any]],
            main: list[dict[str, Any]] | None = None) -> Iterator[Standin]:
    root.mkdir(parents=True, exist_ok=True)
    (root / "main.json").write_text(json.dumps(main or []))
    (root / "review.json").write_text(json.dumps(review))
    port_file = root / "port"
    proc = subprocess.Popen(
        [sys.executable, str(STANDIN), str(root / "main.json"), str(root / "review.json"),
         str(root / "requests.jsonl"), str(port_file)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        for _ in range(100):
            if port_file.exists() and port_file.read_text().strip():
                break
            time.sleep(0.05)
        yield Standin(root, int(port_file.read_text()))
    finally:
        proc.kill()
        proc.wait()
