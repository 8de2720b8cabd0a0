"""Run one agent CLI turn against a stand-in model, both inside this network namespace.

Usage (by the tests): unshare -rn python netns_run.py CONFIG.json RESULT.json
CONFIG: {"script": [...], "argv": [...], "env": {...}, "cwd": "..." | null, "timeout": S}; in argv
and env, "{URL}" is the stand-in's OpenAI base URL (`…/v1`), "{ROOT}" its Anthropic and Gemini
one, "{PORT}" its port.
RESULT: {"rc", "stdout", "stderr", "requests": [main-loop request bodies], "log": [every request]}.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from shellgate.agent.standin import StandIn


def main() -> None:
    config = json.loads(Path(sys.argv[1]).read_text())
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    standin = StandIn(config["script"])
    standin.start()
    port = standin.root.rsplit(":", 1)[1]
    sub = lambda s: (  # noqa: E731
        s.replace("{URL}", standin.url).replace("{ROOT}", standin.root).replace("{PORT}", port)
    )
    env = {k: sub(v) for k, v in config["env"].items()}
    try:
        done = subprocess.run(
            [sub(a) for a in config["argv"]],
            env=env,
            cwd=config["cwd"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=config.get("timeout", 90),
        )
        result = {"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
    except subprocess.TimeoutExpired as exc:
        result = {"rc": "timeout", "stdout": str(exc.stdout), "stderr": str(exc.stderr)}
    result["requests"], result["log"] = standin.posts, standin.requests
    standin.stop()
    Path(sys.argv[2]).write_text(json.dumps(result))


if __name__ == "__main__":
    main()
