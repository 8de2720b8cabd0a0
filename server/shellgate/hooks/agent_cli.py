"""Is an agent installed for this user? `hook doctor` looks for its program where a user's
install puts it: on PATH, in npm's global bin folders (the prefix of $NPM_CONFIG_PREFIX or
~/.npmrc, ~/.npm-global, nvm's and volta's), a project's node_modules/.bin, and the agent's
own installer's folder (Claude Code's ~/.claude/local). A hook written for an agent that is not
installed answers nobody: the doctor says both."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Agent:
    name: str
    programs: tuple[str, ...]
    own_folders: tuple[str, ...] = ()  # under $HOME: where the agent's own installer puts it


AGENTS = {
    "codex": Agent("Codex", ("codex",)),
    "claude-code": Agent("Claude Code", ("claude",), (".claude/local",)),
    "gemini": Agent("Gemini CLI", ("gemini",)),
    "copilot": Agent("Copilot CLI", ("copilot",)),
    # VS Code's agent is VS Code's chat: the editor's command, or its remote server's folder.
    "vscode": Agent("VS Code", ("code", "code-insiders", "codium"), (".vscode-server/bin",)),
}
SYSTEM_FOLDERS = ("/usr/local/bin", "/usr/bin", "/snap/bin", "/home/linuxbrew/.linuxbrew/bin")


def _npm_prefix(env: Mapping[str, str], home: Path) -> str | None:
    prefix = env.get("NPM_CONFIG_PREFIX") or env.get("npm_config_prefix")
    if prefix:
        return prefix
    try:
        lines = (home / ".npmrc").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        key, eq, value = line.partition("=")
        if eq and key.strip() == "prefix":
            return os.path.expanduser(value.strip())
    return None


def folders(agent: Agent, env: Mapping[str, str], cwd: Path) -> list[Path]:
    """Where a user's install of `agent` may be, in the order they are looked at."""
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    found = [Path(d) for d in (env.get("PATH") or "").split(os.pathsep) if d]
    if prefix := _npm_prefix(env, home):
        found.append(Path(prefix) / "bin")
    found += [home / ".npm-global" / "bin", home / ".local" / "bin", home / ".volta" / "bin",
              home / ".bun" / "bin", home / ".local" / "share" / "pnpm"]  # fmt: skip
    nvm = Path(env.get("NVM_DIR") or home / ".nvm") / "versions" / "node"
    if nvm.is_dir():
        found += sorted(nvm.glob("*/bin"), reverse=True)
    found.append(cwd / "node_modules" / ".bin")
    found += [home / own for own in agent.own_folders]
    found += [Path(d) for d in SYSTEM_FOLDERS]
    return list(dict.fromkeys(found))


def find(agent_id: str, env: Mapping[str, str], cwd: Path) -> Path | None:
    """The agent's program (or folder, for VS Code's server) where a user's install put it."""
    agent = AGENTS[agent_id]
    for folder in folders(agent, env, cwd):
        if folder.name == "bin" and folder.parent.name == ".vscode-server":
            if folder.is_dir() and any(folder.iterdir()):
                return folder
            continue
        for program in agent.programs:
            path = folder / program
            if path.is_file() and os.access(path, os.X_OK):
                return path
    return None


def not_found(agent_id: str) -> str:
    """What was looked for, said to a person."""
    agent = AGENTS[agent_id]
    where = "on PATH, in npm's global or local bin folders"
    if agent.own_folders:
        where += " or ~/" + ", ~/".join(agent.own_folders)
    programs = " or ".join(f"`{p}`" for p in agent.programs)
    return f"{agent.name} is not installed (no {programs} {where})"
