#!/usr/bin/env python3
"""A Codex command hook for tests, in the shape of ../shared/recipes/hooks-otel/hook.py: it logs
what it was sent and answers as a control file says.

Usage (as a hook `command`): python3 codex_hook.py CTL.json NAME
  CTL.json: {"log": "/abs/log.jsonl", "NAME:Event" | "Event" | "*": BEHAVIOUR}
  BEHAVIOUR: {"kind": "quiet"} | {"kind": "json", "stdout": {...}}
             | {"kind": "raw", "stdout": "text", "exit": N, "stderr": "text"}
             | {"kind": "exit", "exit": 2, "stderr": "reason"};  any may add "sleep": seconds.
"""
import json
import os
import sys
import time

t0 = time.time()
ctl_path, name = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "hook"
raw = sys.stdin.read()
with open(ctl_path) as f:
    ctl = json.load(f)
data = json.loads(raw)
event = data.get("hook_event_name")
beh = ctl.get(f"{name}:{event}") or ctl.get(str(event)) or ctl.get("*") or {"kind": "quiet"}
if beh.get("sleep"):
    time.sleep(float(beh["sleep"]))
out, err, code = "", "", 0
kind = beh.get("kind", "quiet")
if kind == "json":
    out = json.dumps(beh["stdout"])
elif kind == "raw":
    out, err, code = beh.get("stdout", ""), beh.get("stderr", ""), int(beh.get("exit", 0))
elif kind == "exit":
    err, code = beh.get("stderr", ""), int(beh.get("exit", 2))
with open(ctl["log"], "a") as f:
    f.write(json.dumps({"name": name, "t_start": t0, "t_end": time.time(), "cwd": os.getcwd(),
                        "codex_home": os.environ.get("CODEX_HOME"), "stdin": data}) + "\n")
if out:
    sys.stdout.write(out + "\n")
if err:
    sys.stderr.write(err + "\n")
sys.exit(code)
