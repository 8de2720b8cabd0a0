"""Run one agent CLI turn against a stand-in model, both inside this network namespace.

Usage (by the tests): unshare -rn python netns_run.py CONFIG.json RESULT.json
CONFIG: {"kind": "anthropic"|"gemini"|"responses", "script": [...], "argv": [...],
         "env": {...}, "cwd": "...", "timeout": S}; "{URL}" in argv and env is the stand-in's.
RESULT: {"rc", "stdout", "stderr", "requests": [main-loop request bodies]}.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


def main() -> None:
    config = json.loads(Path(sys.argv[1]).read_text())
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    if config["kind"] == "responses":
        from shellgate.agent.standin import StandIn as Responses

        responses = Responses(config["script"])
        url = responses.start()
        requests = lambda: responses.posts  # noqa: E731
        stop = responses.stop
    else:
        from standins import StandIn

        server = StandIn(config["kind"], config["script"]).__enter__()
        url = server.url
        requests = lambda: list(server.requests)  # noqa: E731
        stop = lambda: server.__exit__(None)  # noqa: E731
    sub = lambda s: s.replace("{URL}", str(url))  # noqa: E731
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
    result["requests"] = requests()
    stop()
    Path(sys.argv[2]).write_text(json.dumps(result))


if __name__ == "__main__":
    main()
