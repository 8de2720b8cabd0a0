"""Starts `shellgate serve` (or, given `mcp` or `hook` first, that `shellgate` command) from the
libraries bundled in the extension.

The .vsix ships ShellGate and its dependencies per Python version in bundled/libs/cpXY (some
wheels are compiled); this puts the matching folder first on sys.path, so that installing the
extension is enough. Without a matching folder it falls back to a ShellGate installed in the
interpreter, and otherwise says what to do instead of a traceback.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIBS = os.path.join(os.path.dirname(HERE), "libs")


def main() -> int:
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    bundled = os.path.join(LIBS, tag)
    if os.path.isdir(bundled):
        sys.path.insert(0, bundled)
    try:
        from shellgate.cli import main as shellgate_main
    except ImportError as exc:
        have = sorted(d for d in os.listdir(LIBS)) if os.path.isdir(LIBS) else []
        versions = ", ".join(f"{d[2]}.{d[3:]}" for d in have if d.startswith("cp")) or "none"
        sys.stderr.write(
            f"shellgate: cannot start the language server with {sys.executable} "
            f"(Python {sys.version_info[0]}.{sys.version_info[1]}): {exc}.\n"
            f"The extension bundles ShellGate for Python {versions}; point the setting "
            "`shellgate.interpreter` at such a Python, or at one where ShellGate is installed.\n"
        )
        return 3
    args = sys.argv[1:]
    # `mcp`: the MCP server VS Code's agents are offered (src/mcp.ts); `hook status|install`:
    # the "Govern Agents" command (src/govern.ts)
    if args[:1] in (["mcp"], ["hook"]):
        return int(shellgate_main(args))
    return int(shellgate_main(["serve", *args]))


if __name__ == "__main__":
    raise SystemExit(main())
