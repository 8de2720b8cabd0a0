"""Readers of other tools' command allowlists, turned into Codex rules.

`run.run_import(tool, files, ...)` reads Claude Code, Gemini CLI or VS Code settings (one
module per format), translates each entry (`translate`), refuses what does not carry over,
checks the result with the real loader, and compares decisions both ways (`roundtrip`).
"""
