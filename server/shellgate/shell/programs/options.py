"""The generic reader: a table row's options and operands found in a command's words.

Options are read as getopt reads them: `--opt=value` and `--opt value`, an unambiguous prefix of
a long option (`--to-comm=CMD`), `-o value` and `-ovalue`, and short options glued together
(`-xvI CMD`: the letters before a valued one are flags). An option of one dash and several
letters (`-TT`, `-ex`, `-wrapper`) is matched whole. Words bash decides at run time are never
read as options, but for
`--opt="$X"`: its value is decided at run time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from shellgate.shell.programs.table import Program, Way

_PLAIN_OPTION = re.compile(r"--?[A-Za-z][\w-]*=")  # `--to-command="$CMD"`: a run-time value
_MIN_PREFIX = 6  # a long option's prefix (`--to-co`) counts only from this many characters


@dataclass(frozen=True)
class Found:
    """A value handed through an option or an operand: how, the text, the word's index."""

    spelling: str  # for the reason: `--to-command`, `-o ProxyCommand`; "" for an operand
    way: Way
    value: str
    index: int  # the word the value comes from (to tell a run-time one)


def found(
    program: Program, words: tuple[str, ...], dynamic: frozenset[int]
) -> tuple[list[Found], list[int]]:
    """Every value `program`'s options hand over in `words`, then its operands' (when the row
    reads them), in order; and the indexes of the operands."""
    out: list[Found] = []
    operands: list[int] = []
    i, n = 1, len(words)
    while i < n:
        word = words[i]
        if (
            (i in dynamic and not _PLAIN_OPTION.match(word))
            or not word.startswith("-")
            or word == "-"
        ):
            operands.append(i)
            i += 1
        elif word == "--":
            operands += range(i + 1, n)
            break
        else:
            i = _option(program, words, i, out)
    if program.operands is not None:
        for k in operands[program.skip :]:
            out.append(Found("", program.operands, words[k], k))
    return out, operands


def _option(program: Program, words: tuple[str, ...], i: int, out: list[Found]) -> int:
    """Read the option at `words[i]`; the index after it (and its value)."""
    word, options, valued = words[i], program.options, program.valued
    name, eq, glued = word.partition("=")
    whole = (
        name.startswith("--")
        or program.whole
        or (len(name) > 2 and (name in options or name in valued))
    )
    if whole:
        spelling = name if name in options or name in valued else _prefix(options, name)
        spelling = spelling or name
        ways = options.get(spelling, ())
        if eq:
            _add(spelling, ways, glued, i, out)
            return i + 1
        if (ways or spelling in valued) and i + 1 < len(words):
            _add(spelling, ways, words[i + 1], i + 1, out)
            return i + 2
        return i + 1
    # short options, maybe glued: `-I CMD`, `-ICMD`, `-xvfI CMD`
    for k in range(1, len(word)):
        letter = "-" + word[k]
        if letter in options or letter in valued:
            if word[k + 1 :]:
                _add(letter, options.get(letter, ()), word[k + 1 :], i, out)
                return i + 1
            if i + 1 < len(words):
                _add(letter, options.get(letter, ()), words[i + 1], i + 1, out)
                return i + 2
            return i + 1
    return i + 1


def _prefix(options: Mapping[str, tuple[Way, ...]], name: str) -> str | None:
    """The one long option `name` abbreviates, if any (getopt_long's rule)."""
    if len(name) < _MIN_PREFIX:
        return None
    matches = [o for o in options if o.startswith("--") and o.startswith(name)]
    return matches[0] if len(matches) == 1 else None


def _add(spelling: str, ways: tuple[Way, ...], value: str, index: int, out: list[Found]) -> None:
    for way in ways:
        if way.key:
            key, sep, rest = _key_value(value)
            if key.lower() == way.key.lower() and sep:
                out.append(Found(f"{spelling} {way.key}", way, rest, index))
        elif way.prefix:
            if value.startswith(way.prefix):
                shown = f"{spelling}={way.prefix.rstrip('=')}"
                out.append(Found(shown, way, value[len(way.prefix) :], index))
        else:
            out.append(Found(spelling, way, value, index))


def _key_value(value: str) -> tuple[str, bool, str]:
    """`Key=Value`, `Key Value` or `Key::=Value` (apt's list form) as (key, found, value)."""
    value = value.lstrip(" \t\"'")  # a run-time value keeps its quotes: `"Key $(x)"`
    for at, c in enumerate(value):
        if c in "= \t":
            key = value[:at].rstrip(":")
            rest = value[at + 1 :]
            return key, True, rest.lstrip(" \t=") if c != "=" else rest
    return value, False, ""


def rest_start(program: Program, words: tuple[str, ...], dynamic: frozenset[int]) -> int | None:
    """Where a runner's command starts in `words` (None: it runs none): after its subcommand
    (`npm exec`, `ip netns exec`), its options and `skip` positional operands."""
    rest = program.rest
    if rest is None:
        return None
    i, n = 1, len(words)
    for expected in rest.after:
        while i < n and (words[i] != expected or i in dynamic):
            i += 1
        if i >= n:
            return None
        i += 1
    if rest.after and rest.after[-1].startswith("-"):
        return i if i < n else None  # `ksu -e CMD`, `capsh -- ARGS`: right after it
    skip = 0 if rest.maybe_skip else rest.skip  # `setarch [ARCH] CMD`: both are read
    while i < n:
        word = words[i]
        if word == "--":
            i += 1
            break
        if word.startswith("-") and word != "-" and i not in dynamic:
            name = word.split("=", 1)[0]
            i += 2 if name in program.valued and "=" not in word else 1
        elif skip:
            skip -= 1
            i += 1
        else:
            break
    while skip and i < n:
        skip -= 1
        i += 1
    return i if i < n else None
