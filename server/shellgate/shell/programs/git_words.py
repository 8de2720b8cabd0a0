"""git's own small readers of text, ported from its sources so that ShellGate splits as git does.

- `split_cmdline`: how git splits a non-`!` alias into words (alias.c);
- `config_parameters`: `GIT_CONFIG_PARAMETERS`, the quoted list git passes its `-c` options
  down in (config.c `parse_config_env_list`, quote.c `sq_dequote_step`);
- `config_pair`: a `-c KEY[=VALUE]` word as git splits and canonicalises it;
- `ext_argv`: the argv the `ext::` transport executes for `ext::CMD ARGS` (remote-ext.c:
  arguments split at single spaces, `% ` a space, `%%` a percent, `%s`/`%S` the service,
  `%G`/`%V` at an argument's start sent to the server, not run).
"""

from __future__ import annotations

import re

_BOOL = re.compile(r"(?i)(true|false|yes|no|on|off|-?\d+[kmg]?)?")


_SAFE = re.compile(r"[\w@%+=:,./-]+", re.ASCII)


def quote(word: str) -> str:
    """`word` as shell source (shlex.quote, without importing shlex at every hook start)."""
    if _SAFE.fullmatch(word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def is_bool(value: str) -> bool:
    """Whether git reads `value` as a boolean (an empty value is false)."""
    return _BOOL.fullmatch(value.strip()) is not None


def split_cmdline(text: str) -> list[str] | None:
    """The words of an alias, as git's split_cmdline gives them (a run of blanks ends a word,
    quotes and backslashes as in a shell); None where git refuses (an unclosed quote, a
    backslash at the end)."""
    words: list[list[str]] = [[]]
    quoted = ""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if not quoted and c.isspace():
            while i + 1 < n and text[i + 1].isspace():
                i += 1
            words.append([])
        elif not quoted and c in "'\"":
            quoted = c
        elif c == quoted:
            quoted = ""
        else:
            if c == "\\" and quoted != "'":
                i += 1
                if i >= n:
                    return None
                c = text[i]
            words[-1].append(c)
        i += 1
    return None if quoted else ["".join(w) for w in words]


def canonical_key(key: str) -> str | None:
    """A key as git canonicalises it (section and variable lowercased, a subsection as
    written); None for a key git rejects (no dot, or nothing after the last one)."""
    section, dot, rest = key.partition(".")
    if not dot or not section:
        return None
    sub, _, name = rest.rpartition(".")
    if not name:
        return None
    return f"{section.lower()}.{sub}.{name.lower()}" if sub else f"{section.lower()}.{name.lower()}"


def config_pair(word: str) -> tuple[str, str | None] | None:
    """`KEY=VALUE` (or `KEY`, an implicit true: value None) as `git -c` reads it."""
    key, eq, value = word.partition("=")
    canonical = canonical_key(key)
    if canonical is None:
        return None
    return canonical, (value if eq else None)


def _sq_step(text: str, i: int) -> tuple[str, int] | None:
    """One single-quoted word from `text[i]` (git's sq_dequote_step): its value and where the
    text after it starts; None when it is not one."""
    if i >= len(text) or text[i] != "'":
        return None
    out: list[str] = []
    i += 1
    while True:
        if i >= len(text):
            return None
        c = text[i]
        if c != "'":
            out.append(c)
            i += 1
            continue
        i += 1  # out of the quotes
        if i + 2 < len(text) and text[i] == "\\" and text[i + 1] in "'!" and text[i + 2] == "'":
            out.append(text[i + 1])
            i += 3
            continue
        return "".join(out), i


def config_parameters(text: str) -> list[tuple[str, str | None]] | None:
    """The (key, value) pairs of `GIT_CONFIG_PARAMETERS` (old style `'k=v'` and new style
    `'k'='v'`, `'k'=` an implicit true); None where git reports a bogus format."""
    pairs: list[tuple[str, str | None]] = []
    i, n = 0, len(text)
    while i < n:
        step = _sq_step(text, i)
        if step is None:
            return None
        key, i = step
        if i >= n or text[i].isspace():
            pair = config_pair(key)
            if pair is None:
                return None
            pairs.append(pair)
        elif text[i] == "=":
            i += 1
            value: str | None = None
            if i < n and text[i] == "'":
                quoted = _sq_step(text, i)
                if quoted is None or (quoted[1] < n and not text[quoted[1]].isspace()):
                    return None
                value, i = quoted
            elif i < n and not text[i].isspace():
                return None
            canonical = canonical_key(key)
            if canonical is None:
                return None
            pairs.append((canonical, value))
        else:
            return None
        while i < n and text[i].isspace():
            i += 1
    return pairs


def ext_argv(url: str, service: str = "git-upload-pack") -> list[str] | None:
    """The argv git's `ext::` transport executes for `url`; None when it is not an `ext::`
    address or git refuses its placeholders."""
    if not url.startswith("ext::"):
        return None
    text = url[5:]
    plain = service.removeprefix("git-")
    argv: list[str] = []
    i, n = 0, len(text)
    while i < n:
        out: list[str] = []
        special = ""
        escape = False
        start = i
        while i < n and (escape or text[i] != " "):
            c = text[i]
            if escape:
                if c in "GV" and i == start + 1:
                    special = c
                elif c == " " or c == "%":
                    out.append(c)
                elif c == "s":
                    out.append(plain)
                elif c == "S":
                    out.append(service)
                else:
                    return None
                escape = False
            elif c == "%":
                escape = True
            else:
                out.append(c)
            i += 1
        if escape:
            return None
        if i < n:
            i += 1  # the space after the argument
        if not special:
            argv.append("".join(out))
    return argv or None
