"""A stand-in for an outside agent's hook: asks the editor through the broker client, as
`shellgate hook claude-code` does, and writes the answer (or "none") as JSON to OUT.

    python3 hook-client.py CWD OUT COMMAND [TIMEOUT]
"""

import json
import sys
import time

from shellgate.broker import client
from shellgate.broker.protocol import AgentRequest
from shellgate.hooks import seam

cwd, out, command = sys.argv[1:4]
timeout = float(sys.argv[4]) if len(sys.argv) > 4 else 90.0
request = AgentRequest("claude-code", "e2e-session", cwd, command, approval_policy="untrusted")
for _ in range(300):  # the editor's server may still be starting
    if client.find_server(cwd) is not None:
        break
    time.sleep(0.1)
answer = seam.ask(request, seam.decide(request), timeout=timeout)
with open(out, "w") as fh:
    json.dump(None if answer is None else answer.to_json(), fh)
