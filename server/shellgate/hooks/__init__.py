"""ShellGate as the command hook of outside agents (Codex, Claude Code, Gemini CLI).

One module per agent turns its hook event into a request and the chain's answer into that
agent's own output format; `outcome` holds what they share. Every path answers explicitly and
an internal error blocks (exit 2): all three agents fail open on a hook that crashes.
"""
