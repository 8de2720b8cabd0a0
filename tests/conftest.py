"""Settings shared by every test package."""

import contextlib
import os

import pytest
from hypothesis import HealthCheck, settings

# No per-example deadline anywhere: CI machines are slower and busier than a laptop, and a
# timing flake says nothing about correctness. In CI the search is derandomized, so a green run
# here is a green run there; locally it stays random to keep finding new inputs.
settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


# Every decision a test makes is recorded (shellgate.record): into the test's own state folder,
# never the user's `~/.local/state/shellgate`, and never another test's (the editor's history
# reads it).
@pytest.fixture(autouse=True)
def _state_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


# Fixtures wider than a test (a server started once for a module) record here.
if "SHELLGATE_TEST_STATE" not in os.environ:
    import tempfile

    os.environ["SHELLGATE_TEST_STATE"] = os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(
        prefix="shellgate-state-")


# The real Codex's bubblewrap sandbox puts empty read-only placeholders for the paths it protects
# (`.git`, `.codex`, `.agents`, `.aws`) into every writable root, `/tmp` included, and leaves them
# behind when a sandboxed command outlives its Codex. An empty `/tmp/.git` makes `/tmp` the
# project root of every later test's temporary folder, for Codex and for ShellGate alike.
_PLACEHOLDERS = [os.path.join("/tmp", n) for n in (".git", ".codex", ".agents", ".aws")]


@pytest.fixture(autouse=True)
def _no_codex_placeholders_in_tmp() -> None:
    for path in _PLACEHOLDERS:
        if os.path.isdir(path) and not os.path.islink(path):
            with contextlib.suppress(OSError):  # only ever an empty one: content stays
                os.rmdir(path)
