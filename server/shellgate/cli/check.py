"""`shellgate check`: what `codex execpolicy check` (0.169.0) prints, byte for byte.

    shellgate check --rules FILE [--rules FILE ...] [--resolve-host-executables] [--pretty]
                    -- CMD...

Exit 0 with the JSON on stdout; 1 when a rules file cannot be read or parsed (stderr starts
`Error: failed to read|parse policy at <path>`); 2 on usage errors. Compiled policies are cached
by content (marshal files under $XDG_CACHE_HOME/shellgate), so Python's start-up is most of a
warm run. Imports stay lean: the Starlark interpreter loads only on a cache miss.
"""

from __future__ import annotations

import marshal
import os
import sys

from shellgate import rules
from shellgate.rules.compact import evaluate, to_compact

_USAGE = "Usage: shellgate check --rules <PATH> <COMMAND>..."
_HELP = f"""Check a command against rules files, as `codex execpolicy check` does.

{_USAGE}

Arguments:
  <COMMAND>...  The command to check (put it after `--`)

Options:
  -r, --rules <PATH>            A rules file (repeatable; loaded in order)
      --resolve-host-executables  Let absolute/relative program paths reach basename rules
      --pretty                  Pretty-print the JSON
  -h, --help                    Print help
"""
_CACHE_VERSION = "shellgate-check-1"
# Run as the whole process, it may end with os._exit once its output is flushed (cli.main):
# every file it writes is closed (and renamed into place) before main returns.
EXIT_FAST = True


class _Usage(Exception):
    pass


# Arguments clap never takes as the value of `--rules` (it asks for a value instead).
_NOT_VALUES = frozenset(
    ["--", "-r", "--rules", "--pretty", "--resolve-host-executables", "-h", "--help"]
)
_SWITCHES = ("--pretty", "--resolve-host-executables", "--help")


def _parse_args(argv: list[str]) -> tuple[list[str], bool, bool, list[str]] | None:
    """Codex's clap parser: options until `--` or the first other argument, which (even when
    it looks like an option: `--bogus`, `-rFILE`) starts the command."""
    rules: list[str] = []
    switches: set[str] = set()
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            i += 1
            break
        if a in ("-h", "--help"):
            return None
        if a in ("-r", "--rules") or a.startswith("--rules="):
            value = a[len("--rules=") :] if "=" in a else None
            if value is None and i + 1 < len(argv) and argv[i + 1] not in _NOT_VALUES:
                value = argv[i + 1]
                i += 1
            if not value:
                raise _Usage(
                    "error: a value is required for '--rules <PATH>' but none was supplied"
                )
            rules.append(value)
        elif a in _SWITCHES:
            if a in switches:
                raise _Usage(f"error: the argument '{a}' cannot be used multiple times")
            switches.add(a)
        elif a.startswith(tuple(f"{flag}=" for flag in _SWITCHES)):
            flag, value = a.split("=", 1)
            raise _Usage(
                f"error: unexpected value '{value}' for '{flag}' found; no more were expected"
            )
        else:
            break
        i += 1
    pretty = "--pretty" in switches
    resolve = "--resolve-host-executables" in switches
    command = argv[i:]
    missing = []
    if not rules:
        missing.append("  --rules <PATH>")
    if not command:
        missing.append("  <COMMAND>...")
    if missing:
        raise _Usage(
            "error: the following required arguments were not provided:\n" + "\n".join(missing)
        )
    return rules, pretty, resolve, command


def main(argv: list[str]) -> int:
    try:
        for a in argv:
            a.encode("utf-8")  # undecodable bytes arrive as lone surrogates
    except UnicodeEncodeError:
        sys.stderr.write("error: invalid UTF-8 was detected in one or more arguments\n")
        return 2
    try:
        parsed = _parse_args(argv)
    except _Usage as err:
        sys.stderr.write(f"{err}\n\n{_USAGE}\n\nFor more information, try '--help'.\n")
        return 2
    if parsed is None:
        sys.stdout.write(_HELP)
        return 0
    rules, pretty, resolve, command = parsed
    loaded = _load(rules)
    if isinstance(loaded, str):
        sys.stderr.write(loaded)
        return 1

    try:
        found, decision = evaluate(command, *loaded, resolve_host_executables=resolve)
    except (TypeError, ValueError, AttributeError, IndexError, KeyError):
        # A damaged cache entry: compile afresh (the entry is rewritten on the next miss).
        fresh = _compile(rules)
        if isinstance(fresh, str):
            sys.stderr.write(fresh)
            return 1
        found, decision = evaluate(command, *fresh, resolve_host_executables=resolve)
    try:
        sys.stdout.write(render(found, decision, pretty) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away: no traceback, and none at interpreter exit either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


# serde_json's string escaping: short forms, other C0 controls as \u00xx, the rest raw.
_ESCAPES = {i: f"\\u{i:04x}" for i in range(0x20)}
_ESCAPES.update({0x22: '\\"', 0x5C: "\\\\", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t"})


def _json(value: object, indent: str | None, level: int = 0) -> str:
    if isinstance(value, str):
        return '"' + value.translate(_ESCAPES) + '"'
    if isinstance(value, dict):
        items = [(_json(k, indent), _json(v, indent, level + 1)) for k, v in value.items()]
        if indent is None:
            return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
        if not items:
            return "{}"
        pad = "\n" + indent * (level + 1)
        return "{" + ",".join(f"{pad}{k}: {v}" for k, v in items) + "\n" + indent * level + "}"
    assert isinstance(value, list)
    elems = [_json(v, indent, level + 1) for v in value]
    if indent is None:
        return "[" + ",".join(elems) + "]"
    if not elems:
        return "[]"
    pad = "\n" + indent * (level + 1)
    return "[" + ",".join(pad + e for e in elems) + "\n" + indent * level + "]"


def render(
    matches: list[tuple[tuple[str, ...], str, str | None, str | None]],
    decision: str | None,
    pretty: bool = False,
) -> str:
    """The JSON `codex execpolicy check` prints (serde_json's key order, escaping, layout)."""
    matched = []
    for prefix, rule_decision, resolved, justification in matches:
        body: dict[str, object] = {"matchedPrefix": list(prefix), "decision": rule_decision}
        if resolved is not None:
            body["resolvedProgram"] = resolved
        if justification is not None:
            body["justification"] = justification
        matched.append({"prefixRuleMatch": body})
    out: dict[str, object] = {"matchedRules": matched}
    if decision is not None:
        out["decision"] = decision
    return _json(out, "  " if pretty else None)


def _load(paths: list[str]) -> tuple[dict, dict] | str:  # type: ignore[type-arg]
    """(buckets, hosts) of the compiled policy, or the stderr text of the failure."""
    texts: list[bytes | None] = []
    for p in paths:
        try:
            with open(p, "rb") as fh:
                texts.append(fh.read(64 * 1024 * 1024))
        except OSError:
            texts.append(None)
    cache_file = _cache_file(paths, texts)
    if cache_file is not None:
        try:
            with open(cache_file, "rb") as fh:
                cached = marshal.loads(fh.read())
            if isinstance(cached, str):
                return cached
            shaped = isinstance(cached, list) and len(cached) == 2
            if shaped and isinstance(cached[0], dict) and isinstance(cached[1], dict):
                return cached[0], cached[1]
        except (OSError, ValueError, EOFError, TypeError, IndexError):
            pass
    result = _compile(paths)
    if cache_file is not None:
        _store(cache_file, result if isinstance(result, str) else list(result))
    return result


def _compile(paths: list[str]) -> tuple[dict, dict] | str:  # type: ignore[type-arg]
    from shellgate.rules.errors import RulesError
    from shellgate.rules.loader import load_policy

    try:
        policy = load_policy(paths)
    except RulesError as err:
        return format_error(err)
    return to_compact(policy)


def format_error(err: object) -> str:
    """Codex's (anyhow) error report: first line, blank line, `Caused by:` and the cause."""
    # deferred: rules.errors (~10 ms) only for an error; check's fast path never loads it
    from shellgate.rules.errors import RulesError

    assert isinstance(err, RulesError)
    verb = "read" if err.kind == "read" else "parse"
    cause = err.message
    # Example failures come after evaluation: Codex prints them bare, without a location.
    if err.line and not err.code.startswith("example-"):
        cause = f"error: {err.message}\n     --> {err.path}:{err.line}:{err.column}"
    return f"Error: failed to {verb} policy at {err.path}\n\nCaused by:\n    {cause}\n"


def _cache_file(paths: list[str], texts: list[bytes | None]) -> str | None:
    if os.environ.get("SHELLGATE_NO_CACHE"):
        return None
    from _blake2 import blake2b  # hashlib's OpenSSL import costs more than the whole check

    h = blake2b(digest_size=32)
    # Examples resolve relative and `~` programs, so the cwd and HOME are part of the input.
    try:
        cwd = os.getcwd()
    except OSError:
        return None
    code_dir = os.path.dirname(rules.__file__)
    stamp = []
    try:
        for name in sorted(os.listdir(code_dir)):
            if name.endswith(".py"):
                st = os.stat(os.path.join(code_dir, name))
                stamp.append(f"{name}:{st.st_mtime_ns}:{st.st_size}")
    except OSError:
        return None
    head = [_CACHE_VERSION, cwd, os.environ.get("HOME", ""), *stamp]
    h.update(repr(head).encode())
    for p, t in zip(paths, texts, strict=True):
        h.update(b"\0path\0" + os.fsencode(p))
        h.update(b"\0none\0" if t is None else b"\0text\0%d\0" % len(t) + t)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "shellgate", "check", h.hexdigest())


def _store(cache_file: str, value: object) -> None:
    try:
        os.makedirs(os.path.dirname(cache_file), exist_ok=True)
        tmp = f"{cache_file}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            marshal.dump(value, fh)  # type: ignore[arg-type]
        os.replace(tmp, cache_file)
    except (OSError, ValueError):
        pass
