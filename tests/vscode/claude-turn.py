"""One turn of the real Claude Code CLI (`claude -p`), offline, in the folder this VS Code has
open: its stand-in model calls Bash with COMMAND, ShellGate's hook (run-e2e.sh installed it with
`shellgate hook install claude-code`) asks this editor's broker, and the answer given in VS Code
decides. Both run inside `unshare -rn`, as the hook tests drive Claude Code (tests/hooks/agents.py).
Writes {"rc", "stdout", "stderr", "told": what the model was told of its call} as JSON to OUT.

    python3 claude-turn.py OUT COMMAND

Env: CLAUDE (the CLI), WS, HOME, CODEX_HOME, CLAUDE_CONFIG_DIR, XDG_RUNTIME_DIR (the broker's),
XDG_STATE_HOME (the record the History view reads); PYTHONPATH: ShellGate (the stand-in).
"""

import json
import os
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(TESTS), str(TESTS / "hooks")]

from agents import Home, bash, claude_turn  # noqa: E402

from realclients import tool_results  # noqa: E402

out, command = sys.argv[1:3]
env = os.environ
work = Path(tempfile.mkdtemp(prefix="claude-turn-", dir=Path(out).parent))
home = Home(work, Path(env["HOME"]), Path(env["CODEX_HOME"]), Path(env["WS"]))
keep = ("XDG_RUNTIME_DIR", "XDG_STATE_HOME", "CLAUDE_CONFIG_DIR")
result = claude_turn(home, Path(env["CLAUDE"]), [bash(command), {"text": "claude-turn-done"}],
                     **{k: env[k] for k in keep})  # fmt: skip
told = tool_results(result["requests"][-1]) if result["requests"] else []
said = {k: result[k] for k in ("rc", "stdout", "stderr")}
Path(out).write_text(json.dumps({**said, "told": told}))
