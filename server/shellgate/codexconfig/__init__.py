"""Codex's configuration of a cwd, resolved once and passed down: the tiers (system
`/etc/codex`, user `$CODEX_HOME`, trusted projects, the session's flags), their config values
and rules files, and the admin's requirements (`requirements.py`). `resolve.py` is the one place
that computes where they live."""
