"""Every command and subcommand of `shellgate`, as a person meets them: `--help`, a bad
argument, and an output closed early (`shellgate ... | head -1`). None ends in a traceback.

The commands are enumerated from the CLI itself: the dispatcher's table, each command module's
SUBCOMMANDS, and the subparsers and positional choices of every argparse parser a `--help`
builds. A new command or subcommand is covered without touching this file.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from shellgate import cli
from shellgate.cli import hook

SHELLGATE = [sys.executable, "-m", "shellgate"]
EXIT_CLOSED_OUTPUT = 141
# A hook run never answers a person's --help with "allowed": it blocks (exit 2), usage on stderr.
HOOK_RUNS = {("hook", agent) for agent in hook.AGENTS}


@contextlib.contextmanager
def _recording_parsers() -> Iterator[list[argparse.ArgumentParser]]:
    seen: list[argparse.ArgumentParser] = []
    original = argparse.ArgumentParser.parse_known_args

    def record(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> object:
        seen.append(self)
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    argparse.ArgumentParser.parse_known_args = record  # type: ignore[assignment,method-assign]
    try:
        yield seen
    finally:
        argparse.ArgumentParser.parse_known_args = original  # type: ignore[method-assign]


def _children(path: tuple[str, ...]) -> list[str]:
    """The words that may follow `path`: from the module's table, then from the argparse
    parsers its `--help` builds (subparsers, and a positional's choices)."""
    if not path:
        return list(cli.COMMANDS)
    words: list[str] = []
    if len(path) == 1:
        words += getattr(importlib.import_module(cli.COMMANDS[path[0]][0]), "SUBCOMMANDS", ())
    if path in HOOK_RUNS:
        return words
    quiet = io.StringIO()
    with _recording_parsers() as parsers, contextlib.redirect_stdout(quiet), \
            contextlib.redirect_stderr(quiet), contextlib.suppress(SystemExit):  # fmt: skip
        cli.main([*path, "--help"])
    for parser in parsers:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                words += list(action.choices)
            elif not action.option_strings and action.choices and action.nargs in (None, "?"):
                if path[-1] in action.choices:
                    continue  # this positional is the word just given
                words += [str(choice) for choice in action.choices]
                break  # the first positional left names what follows
    return list(dict.fromkeys(w for w in words if w not in path))


def command_paths() -> list[tuple[str, ...]]:
    paths: list[tuple[str, ...]] = []
    todo: list[tuple[str, ...]] = [()]
    while todo:
        path = todo.pop(0)
        paths.append(path)
        if len(path) < 3:
            todo += [(*path, word) for word in _children(path)]
    return paths


PATHS = command_paths()


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    home = tmp_path_factory.mktemp("home")
    env = {**os.environ, "HOME": str(home), "CODEX_HOME": str(home / ".codex"), "COLUMNS": "100"}
    env.pop("PYTHONUNBUFFERED", None)  # as a person's shell has it: stdout buffered
    return env


def _run(args: list[str], env: dict[str, str], cwd: str, close: str) -> tuple[int, str, str]:
    """(exit status, stdout's first line or all of it, stderr). close: "" keeps stdout open,
    "after-first-line" closes it once a line was read, "before" hands it closed."""
    if close == "before":
        read_end, write_end = os.pipe()
        os.close(read_end)
        try:
            done = subprocess.run([*SHELLGATE, *args], stdin=subprocess.DEVNULL, stdout=write_end,
                                  stderr=subprocess.PIPE, env=env, cwd=cwd, timeout=60)  # fmt: skip
        finally:
            os.close(write_end)
        return done.returncode, "", done.stderr.decode(errors="replace")
    proc = subprocess.Popen([*SHELLGATE, *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=cwd)  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    if close:
        out = proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
    else:
        out, err = proc.communicate(timeout=60)
    return proc.wait(timeout=60), out.decode(errors="replace"), err.decode(errors="replace")


Run = tuple[list[str], str]


def _all(runs: list[Run], env: dict[str, str], cwd: str) -> list[tuple[int, str, str]]:
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda run: _run(run[0], env, cwd, run[1]), runs))


def _no_traceback(args: list[str], err: str) -> None:
    assert "Traceback" not in err and "Exception ignored" not in err, (args, err)


def test_the_enumeration_reaches_every_level() -> None:
    assert ("hook", "install", "copilot") in PATHS
    assert ("mcp", "install", "gemini") in PATHS
    assert ("hook", "doctor") in PATHS and ("hook", "codex") in PATHS
    assert all((name,) in PATHS for name in cli.COMMANDS)


def _in_process(args: list[str]) -> tuple[int, str, str]:
    """`shellgate ARGS` in this process (no interpreter start: fast): (status, stdout, stderr).
    An exception escaping the CLI fails the test with its traceback."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(args)
        except SystemExit as exc:  # argparse's, in a command that lets it through
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def test_help_everywhere(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    monkeypatch.setattr(os, "environ", env)
    for path in PATHS:
        args = [*path, "--help"]
        code, out, err = _in_process(args)
        if path in HOOK_RUNS:
            assert code == 2 and "usage:" in err and "blocked" in err, (args, code, err)
        else:
            assert code == 0 and "usage" in out.lower() and not err, (args, code, out, err)


def test_bad_arguments_everywhere(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    monkeypatch.setattr(os, "environ", env)
    for path in PATHS:
        args = [*path, "--no-such-option"]
        code, _, err = _in_process(args)
        assert code != 0 and err.strip() and "Traceback" not in err, (args, code, err)


def test_output_closed_early_everywhere(env: dict[str, str], tmp_path: Path) -> None:
    """In real processes: the interpreter's own flush at exit is where a closed pipe used to
    end in `Exception ignored ... BrokenPipeError`."""
    runs = [([*path, "--help"], close) for path in PATHS for close in ("after-first-line",
                                                                        "before")]  # fmt: skip
    for (args, close), (code, _out, err) in zip(runs, _all(runs, env, str(tmp_path)),
                                                 strict=True):  # fmt: skip
        _no_traceback(args, err)
        if tuple(args[:-1]) in HOOK_RUNS:
            assert code == 2, (args, code, err)  # its usage goes to stderr
        elif close == "before":
            assert code == EXIT_CLOSED_OUTPUT and not err, (args, close, code, err)
        else:
            assert code in (0, EXIT_CLOSED_OUTPUT) and not err, (args, close, code, err)


def test_a_task_that_is_not_utf8(env: dict[str, str], tmp_path: Path) -> None:
    code, _, err = _run(["agent", "fix \udcff"], env, str(tmp_path), "")
    _no_traceback(["agent"], err)
    assert code == 2 and "the task is not valid UTF-8" in err, err


def test_the_help_names_every_agent_the_hook_serves() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["--help"]) == 0
    line = next(x for x in out.getvalue().splitlines() if x.strip().startswith("hook "))
    for agent in ("Codex", "Claude Code", "Gemini CLI", "Copilot CLI", "VS Code's agent"):
        assert agent in line, line
    assert max(len(x) for x in out.getvalue().splitlines()) <= 100
