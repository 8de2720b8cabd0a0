"""The broker: outside agents (their hooks, the MCP server) ask the editor's ShellGate.

protocol (the messages), decide (the chain on the rules from disk, no person), discovery (which
server holds a cwd), client (stdlib only, for hooks), endpoint (the Unix socket server the
language server runs). See docs/broker.md.
"""
