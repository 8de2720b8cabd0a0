"""Diagnostics for `.rules` files: Codex's own errors plus checks beyond Codex.

One library for `shellgate lint` and the language server: `analyze(text, path)` gives a
`FileAnalysis` whose `findings` each carry a stable code, a severity, a message, the exact span
and the fixes that apply.
"""
