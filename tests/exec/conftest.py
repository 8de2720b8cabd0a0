"""Fixtures for tests/exec (defined in exec_helpers, a name no other test directory uses)."""

from exec_helpers import listener, outside, probe, web, workspace

__all__ = ["listener", "outside", "probe", "web", "workspace"]
