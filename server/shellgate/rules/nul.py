"""NUL characters in string literals, which the starlark-go binding cuts strings at.

Codex keeps them (`"a\\x00b"` never equals `"a"`). Before evaluation each NUL escape, and each
raw NUL character, is rewritten, same length, to a control character the file does not
otherwise use (the sentinel); values reaching the builtins get the NULs back.
"""

from __future__ import annotations

import re

# A NUL escape preceded by an even number of backslashes (so not itself escaped).
_NUL_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\(x00|u0000|U00000000|0{1,3}(?![0-7]))")


def _uses(text: str, code: int) -> bool:
    forms = [f"\\x{code:02x}", f"\\u{code:04x}", f"\\U{code:08x}", chr(code)]
    if code == 7:
        forms.append("\\a")
    return (
        any(f in text for f in forms)
        or re.search(rf"\\0{{0,2}}{code:o}(?![0-7])", text) is not None
    )


def hide_nuls(text: str) -> tuple[str, str | None]:
    """(text with NUL escapes replaced, the sentinel character) or (text, None) if none."""
    raw = "\0" in text
    if not raw and ("\\" not in text or _NUL_ESCAPE.search(text) is None):
        return text, None
    for code in range(7, 0, -1):
        if not _uses(text, code):
            break
    else:
        return text, None  # every candidate is taken: leave the NULs to the binding

    def replace(m: re.Match[str]) -> str:
        esc = m.group(2)
        if esc[0] in "xuU":
            return m.group(1) + "\\" + esc[0] + f"{code:0{len(esc) - 1}x}"
        return m.group(1) + "\\" + f"{code:0{len(esc)}o}"

    return _NUL_ESCAPE.sub(replace, text).replace("\0", chr(code)), chr(code)


def restore(value: object, sentinel: str) -> object:
    """`value` with the sentinel turned back into NUL, through lists, tuples and dicts."""
    if isinstance(value, str):
        return value.replace(sentinel, "\0")
    if isinstance(value, list):
        return [restore(v, sentinel) for v in value]
    if isinstance(value, tuple):
        return tuple(restore(v, sentinel) for v in value)
    if isinstance(value, dict):
        return {restore(k, sentinel): restore(v, sentinel) for k, v in value.items()}
    return value
