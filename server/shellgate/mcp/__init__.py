"""`shellgate mcp`: ShellGate as an MCP server (stdio), so any MCP client runs its commands through
the same chain as the embedded agent: rules from disk -> approval policy -> the editor's dialog (or
MCP elicitation) -> the bubblewrap sandbox -> Codex's escalation on a denial.

- `call.py`: the `shell` tool's arguments, checked before anything can run;
- `approvers.py`: who answers a question: the editor through the broker, else elicitation;
- `shell.py`: one `shell` call through the orchestrator, with progress, and what the model reads;
- `approve.py`: the `approve` tool, Claude Code's `--permission-prompt-tool`;
- `front.py`: the fast start: the wire claimed and the opening answered before the SDK loads,
  from `answers.py`, the cache of the SDK's answers;
- `server.py`: the MCP wiring (tools, schemas, stdio);
- `install.py`: `shellgate mcp install codex|claude-code|gemini`.
"""
