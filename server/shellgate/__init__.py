"""ShellGate: decide, explain and approve the shell commands coding agents run."""

__version__ = "0.1.0"
