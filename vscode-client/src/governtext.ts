// What "ShellGate: Govern Agents…" and the agent warning say (pure: unit-tested without VS Code).
// The facts come from `shellgate hook status --json` (server/shellgate/hooks/status.py).

/** One agent in `shellgate hook status --json`. */
export interface AgentHook {
  id: string;
  name: string;
  /** The agent's own program on this machine (null: not found; an older CLI: absent). */
  program?: string | null;
  installed: boolean;
  file: string | null;
  command: string | null;
  problem: string | null;
  /** `shellgate` arguments that install its hook, e.g. ["hook", "install", "copilot"]. */
  install: string[];
  /** The files that install writes (each backed up first). */
  writes: string[];
}

export const VSCODE_AGENT = 'vscode-agent';

/** Why VS Code's own agent would run terminal commands without asking ShellGate ([]: it asks). */
export function vscodeAgentGaps(agents: AgentHook[] | undefined, trusted: boolean, useHooks: boolean): string[] {
  const gaps: string[] = [];
  if (!trusted) gaps.push('this workspace is not trusted, and VS Code loads no hook in an untrusted workspace (user-level ones included)');
  if (!useHooks) gaps.push('the setting `chat.useHooks` is off, so VS Code runs no hook');
  const me = agents?.find((a) => a.id === VSCODE_AGENT);
  if (me && !me.installed) gaps.push("ShellGate's hook is not installed (`shellgate hook install copilot`)");
  else if (me?.problem) gaps.push(`ShellGate's hook cannot answer: ${me.problem}`);
  return gaps;
}

export interface GovernRow { label: string; description: string; detail: string; picked: boolean; agent: AgentHook }

/** One QuickPick row per agent; those without a working hook come picked. */
export function governRows(agents: AgentHook[], vscodeGaps: string[]): GovernRow[] {
  return agents.map((a) => {
    const ok = a.installed && !a.problem;
    const description = !a.installed ? 'no ShellGate hook' : a.problem ? `hook broken: ${a.problem}` : 'ShellGate hook installed';
    let detail = a.installed ? `in ${a.file ?? '?'}` : `installing writes ${a.writes.join(', ')}`;
    const others = a.id === VSCODE_AGENT ? vscodeGaps.filter((g) => !g.startsWith("ShellGate's hook")) : [];
    if (others.length) detail += `; but ${others.join('; ')}`;
    return { label: a.name, description, detail, picked: !ok, agent: a };
  });
}

/** The installs the picked agents need, once each (Copilot CLI and VS Code's agent share one),
 * and every file they write. */
export function installPlan(picked: AgentHook[]): { installs: string[][]; names: string[]; writes: string[] } {
  const installs: string[][] = [];
  const writes: string[] = [];
  for (const a of picked) {
    if (!installs.some((i) => i.join(' ') === a.install.join(' '))) installs.push(a.install);
    for (const w of a.writes) if (!writes.includes(w)) writes.push(w);
  }
  return { installs, names: picked.map((a) => a.name), writes };
}
