"""Discovery: the deepest workspace folder holding cwd wins; stale files are ignored and removed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from shellgate.broker import discovery

from .conftest import World, running


def _fake(folder: Path, pid: int, workspaces: list[str], *, socket: bool = True) -> Path:
    """A discovery file as a server writes it (with a socket file beside it)."""
    sock = folder / f"server-{pid}.sock"
    if socket:
        sock.write_bytes(b"")
    path = folder / f"server-{pid}.json"
    path.write_text(json.dumps({"pid": pid, "workspaceFolders": workspaces,
                                "socket": str(sock), "version": "x", "protocol": 1}))  # fmt: skip
    return path


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_the_deepest_workspace_folder_holding_cwd_wins(world: World, tmp_path: Path) -> None:
    outer, inner = tmp_path / "mono", tmp_path / "mono" / "pkg"
    (inner / "src").mkdir(parents=True)
    folder = Path(discovery.ensure_runtime_dir())
    # Two live "servers" (this process and its parent), one for each folder.
    _fake(folder, os.getppid(), [str(outer), str(tmp_path / "elsewhere")])
    _fake(folder, os.getpid(), [str(inner)])
    found = discovery.find_server(str(inner / "src"))
    assert found is not None and found.pid == os.getpid()
    found = discovery.find_server(str(outer))
    assert found is not None and found.pid == os.getppid()
    assert discovery.find_server(str(tmp_path)) is None
    # A sibling whose name merely starts the same is not inside.
    (tmp_path / "mono-other").mkdir()
    assert discovery.find_server(str(tmp_path / "mono-other")) is None


def test_stale_files_are_ignored_and_removed(world: World) -> None:
    folder = Path(discovery.ensure_runtime_dir())
    dead = _fake(folder, _dead_pid(), [str(world.project)])
    no_socket = _fake(folder, os.getppid(), [str(world.project)], socket=False)
    garbage = folder / "server-1234567.json"
    garbage.write_text("{half a file")
    with running([str(world.project)]) as ep:
        found = discovery.find_server(str(world.project))
        assert found is not None and ep.info is not None and found.socket == ep.info.socket
    assert not dead.exists() and not dead.with_suffix(".sock").exists()
    assert not no_socket.exists() and not garbage.exists()


def test_the_runtime_folder_must_be_private_and_ours(world: World) -> None:
    folder = Path(discovery.runtime_dir())
    folder.symlink_to(world.project)  # someone planted a link
    try:
        discovery.ensure_runtime_dir()
        raise AssertionError("a symlinked runtime folder was accepted")
    except discovery.RuntimeDirError as exc:
        assert "not a folder" in str(exc)
    assert discovery.servers() == []


def test_without_xdg_runtime_dir_a_private_folder_in_tmp(world: World, monkeypatch: object) -> None:
    import pytest

    mp = pytest.MonkeyPatch()
    mp.delenv("XDG_RUNTIME_DIR")
    try:
        assert discovery.runtime_dir() == f"/tmp/shellgate-{os.getuid()}"
    finally:
        mp.undo()
