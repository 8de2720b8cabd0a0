"""Options a program takes before its subcommand, which prefix rules do not skip.

A rule for `git push` compares tokens from the start, so `git -C DIR push`, `git -c k=v push`
and `git --no-pager push` escape it (lint reports them as equivalent spellings). ShellGate
judges such a command also as the subcommand's own words (`git push ...`), so that the rules
written for the subcommand meet it (beyond Codex; see docs/shell.md). To cover another
program, add it to `GLOBAL_OPTIONS`: its options that take a separate value, and the ones
that stand alone (an `--option=value` word is always one option).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shellgate.shell.paths import executable_name_lookup_key


@dataclass(frozen=True)
class GlobalOptions:
    """A program's options before its subcommand: `valued` take the next word as value."""

    valued: frozenset[str]
    flags: frozenset[str]


def _options(valued: str, flags: str) -> GlobalOptions:
    return GlobalOptions(frozenset(valued.split()), frozenset(flags.split()))


# git(1) "OPTIONS", git 2.43–2.47.
GLOBAL_OPTIONS: dict[str, GlobalOptions] = {
    "git": _options(
        valued="-C -c --git-dir --work-tree --namespace --config-env --super-prefix --attr-source",
        flags="--exec-path -p --paginate -P --no-pager --bare --no-replace-objects --no-lazy-fetch "
        "--literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs "
        "--no-optional-locks --no-advice --html-path --man-path --info-path",
    ),
}


def canonical_words(words: Sequence[str]) -> tuple[tuple[str, ...], int] | None:
    """`(program, subcommand, ...)` without the global options before the subcommand, and the
    index of the subcommand in `words`; None when there are none (or no known program)."""
    if len(words) < 2:
        return None
    name = executable_name_lookup_key(words[0]) or words[0]
    spec = GLOBAL_OPTIONS.get(name)
    if spec is None:
        return None
    i = 1
    while i < len(words):
        word = words[i]
        if word in spec.valued:
            i += 2
        elif (
            word in spec.flags
            or (word.startswith("--") and "=" in word)
            or (word[:2] in ("-C", "-c") and len(word) > 2)
        ):
            i += 1
        else:
            break
    if i == 1 or i >= len(words):
        return None
    return (words[0], *words[i:]), i
