// The ShellGate views' trees (Waiting, History, Policy, Agents) as plain data: pure, unit-tested
// without VS Code. views.ts turns each Node into a TreeItem. Everything from the server or an
// agent may carry a model's words: labels go through clean().
import { clean } from './approvaltext';
import type { ApproveParams } from './approvaltext';
import type { ApprovalEntry } from './approvals';
import type { AgentHook } from './governtext';
import { join } from './trace';

export interface Node {
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  /** A codicon id (`pass`, `error`, `question`...), with an optional theme colour id. */
  icon?: string;
  color?: string;
  /** The TreeItem's contextValue: package.json's menus show actions by it. */
  context?: string;
  /** Opened on click: a VS Code command and its arguments. */
  command?: { command: string; title: string; arguments?: unknown[] };
  children?: Node[];
  expanded?: boolean;
  /** Where this node points: a file and a 1-based line ("Open rule"). */
  location?: { path: string; line: number; column?: number };
  /** The command words of a question or a decision (Copy command, Explain). */
  words?: string[];
  /** Or the command as the agent gave it, a script (a decision from the record). */
  script?: string;
}

// ---- Waiting --------------------------------------------------------------------------------

export interface Waiting { params: ApproveParams; askedAt: number }

/** Seconds as a person reads a wait: "12 s", "3 min", "2 h". */
export function ago(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  return `${Math.floor(s / 3600)} h`;
}

/** What the rules said of a question, in a few words: the deciding rule, else the reason. */
export function saidBy(p: ApproveParams): string {
  const rule = p.matchedRules?.[0];
  if (rule) {
    const what = rule.kind === 'heuristics' ? 'heuristics' : `\`${join(rule.matchedPrefix)}\``;
    return `${what} → ${rule.decision}${rule.source ? ` (${rule.source})` : ''}`;
  }
  return p.reason ? p.reason : 'no rule matched: the approval policy asks';
}

export function waitingNodes(questions: Waiting[], now: number): Node[] {
  return questions.map(({ params: p, askedAt }) => ({
    id: `waiting:${p.id}`,
    label: clean(join(p.command), 200),
    description: `${p.agent ? clean(p.agent.name) : 'ShellGate agent'} · ${ago(now - askedAt)}`,
    tooltip: [`$ ${clean(join(p.command), 600)}`, `in ${clean(p.cwd)}`,
      `asked by ${p.agent ? clean(p.agent.name) : "ShellGate's agent"}`, `rules: ${clean(saidBy(p))}`].join('\n'),
    icon: 'question', color: 'charts.yellow',
    // outside agents' questions can be answered here; the embedded agent's dialog is modal
    context: p.agent ? 'waiting.answerable' : 'waiting',
    command: { command: 'shellgate.waiting.show', title: 'Show the question', arguments: [p.id] },
    words: p.command,
    children: [
      { id: `waiting:${p.id}:cwd`, label: `in ${clean(p.cwd)}`, icon: 'folder' },
      { id: `waiting:${p.id}:rules`, label: clean(saidBy(p), 300), icon: 'law' },
    ],
  }));
}

// ---- History --------------------------------------------------------------------------------

/** One decision in the history: from the record (`shellgate/history`), or, from an older
 * server, its list of questions. */
export interface Decision {
  id: string;
  at: number; // seconds since the epoch
  agent: string;
  agentName: string;
  command?: string[];
  text?: string; // the command as the agent gave it (the record keeps a script)
  cwd: string;
  decision: string; // allow | prompt | forbidden | approved | denied | ...
  answerer: string; // rules | hook | reviewer | person | agent | pending
  answer?: string | null;
  reason?: string | null;
  rule?: { path: string; line: number; pattern?: string } | null;
  amendment?: string | null;
}

export interface HistoryFilter { agent?: string; decision?: string }

/** An entry of `shellgate/approvals` as a decision: a person answered (or not yet). */
export function fromApproval(e: ApprovalEntry): Decision {
  // the broker's wire answers (accept, acceptForSession, acceptWithExecpolicyAmendment, decline,
  // cancel, timeout), as Codex's telemetry spells decisions
  const answered = e.answer ?? null;
  const decision = !answered ? e.state
    : answered === 'acceptForSession' ? 'approved_for_session'
      : answered === 'acceptWithExecpolicyAmendment' ? 'approved_with_amendment'
        : answered.startsWith('accept') ? 'approved' : answered === 'timeout' ? 'timed out' : 'denied';
  const person = answered && answered !== 'timeout';
  return {
    id: e.id, at: e.askedAt, agent: e.agent, agentName: e.agentName, command: e.command, cwd: e.cwd,
    decision, answerer: person ? 'person' : answered ? 'nobody' : e.state === 'gone' || e.state === 'failed' ? 'nobody' : 'pending',
    answer: answered, reason: e.reason ?? null, amendment: e.amendmentWritten ?? null,
  };
}

const ICONS: Record<string, [string, string]> = {
  allow: ['pass', 'testing.iconPassed'], approved: ['pass', 'testing.iconPassed'],
  approved_for_session: ['pass', 'testing.iconPassed'], approved_with_amendment: ['pass', 'testing.iconPassed'],
  prompt: ['question', 'charts.yellow'],
  forbidden: ['error', 'testing.iconFailed'], denied: ['error', 'testing.iconFailed'],
};

export function decisionIcon(decision: string): { icon: string; color?: string } {
  const [icon, color] = ICONS[decision] ?? ['circle-outline', undefined];
  return { icon, color };
}

function day(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** Newest first, grouped by day (UTC), filtered by agent and decision. */
export function historyNodes(decisions: Decision[], filter: HistoryFilter = {}): Node[] {
  const kept = decisions
    .filter((d) => !filter.agent || d.agent === filter.agent)
    .filter((d) => !filter.decision || d.decision === filter.decision)
    .sort((a, b) => b.at - a.at);
  const days = new Map<string, Node[]>();
  for (const d of kept) {
    const { icon, color } = decisionIcon(d.decision);
    const time = new Date(d.at * 1000).toISOString().slice(11, 19);
    const shown = d.text ?? join(d.command ?? []);
    const node: Node = {
      id: `history:${d.id}`,
      label: clean(shown, 200),
      description: `${clean(d.agentName)} · ${d.decision} by ${d.answerer} · ${time}`,
      tooltip: [`$ ${clean(shown, 600)}`, `in ${clean(d.cwd)}`, `${d.decision}, answered by ${d.answerer}`,
        ...(d.reason ? [`reason: ${clean(d.reason, 600)}`] : []),
        ...(d.rule ? [`rule: ${clean(d.rule.path)}:${d.rule.line}`] : []),
        ...(d.amendment ? [`wrote: ${clean(d.amendment)}`] : [])].join('\n'),
      icon, color,
      context: d.rule ? 'history.rule' : 'history',
      words: d.command, script: d.text,
      location: d.rule ? { path: d.rule.path, line: d.rule.line } : undefined,
    };
    const key = day(d.at);
    days.set(key, [...(days.get(key) ?? []), node]);
  }
  return [...days.entries()].map(([key, children], i) => ({
    id: `day:${key}`, label: key, description: `${children.length} decision${children.length === 1 ? '' : 's'}`,
    icon: 'calendar', children, expanded: i === 0,
  }));
}

// ---- Policy ---------------------------------------------------------------------------------

/** `shellgate/policy` (server/shellgate/lint/overview.py). */
export interface PolicyRule { pattern: string; decision: string; justification?: string | null; line: number; column: number }
export interface PolicyFile {
  path: string; layer: string; rules: number;
  error: { message: string; line: number; column: number } | null;
  programs: { program: string; rules: PolicyRule[] }[];
}
export interface PolicyFolder {
  root: string; rules: number; loads: boolean;
  trust: { root: string; status: string; codexLoads: boolean; message: string } | null;
  requirements: { approvalPolicy: string | null; sandbox: string | null; warnings: string[] } | null;
  denyRead?: string[]; // the admin's deny_read: masked in every sandbox
  layers: { layer: string; title: string; files: PolicyFile[] }[];
}

function base(path: string): string {
  return path.split('/').pop() ?? path;
}

export function policyNodes(folders: PolicyFolder[]): Node[] {
  return folders.map((f) => {
    const children: Node[] = [];
    if (f.trust) {
      children.push({
        id: `trust:${f.root}`, label: f.trust.codexLoads ? 'Trusted by Codex' : 'Not trusted by Codex',
        description: f.trust.codexLoads ? undefined : 'its .codex/rules do not load in Codex', tooltip: clean(f.trust.message),
        icon: f.trust.codexLoads ? 'shield' : 'warning', color: f.trust.codexLoads ? undefined : 'charts.yellow',
        context: f.trust.codexLoads ? 'trust' : 'trust.untrusted', location: { path: f.root, line: 0 },
      });
    }
    if (f.requirements) {
      const r = f.requirements;
      children.push({
        id: `clamp:${f.root}`, label: 'Admin requirements', icon: 'lock',
        description: [r.approvalPolicy, r.sandbox].filter(Boolean).join(', '),
        tooltip: r.warnings.map((w) => clean(w)).join('\n'),
        children: r.warnings.map((w, i) => ({ id: `clamp:${f.root}:${i}`, label: clean(w, 300), icon: 'info' })),
      });
    }
    if (f.denyRead?.length) {
      children.push({
        id: `denyread:${f.root}`, label: 'Reads denied by the admin', icon: 'eye-closed',
        description: `${f.denyRead.length}`, tooltip: 'requirements.toml [permissions.filesystem] deny_read: masked in every sandbox',
        children: f.denyRead.map((p, i) => ({ id: `denyread:${f.root}:${i}`, label: clean(p, 300), icon: 'lock' })),
      });
    }
    for (const layer of f.layers) {
      children.push({
        id: `layer:${f.root}:${layer.layer}`, label: layer.title, icon: 'layers', expanded: true,
        description: `${layer.files.length} file${layer.files.length === 1 ? '' : 's'}`,
        children: layer.files.map((file) => fileNode(f.root, file)),
      });
    }
    return {
      id: `folder:${f.root}`, label: base(f.root), expanded: true,
      description: f.loads ? `${f.rules} rule${f.rules === 1 ? '' : 's'}` : 'Codex refuses these rules',
      tooltip: f.root, icon: f.loads ? 'root-folder' : 'error', color: f.loads ? undefined : 'testing.iconFailed',
      children,
    };
  });
}

function fileNode(root: string, file: PolicyFile): Node {
  const id = `file:${root}:${file.path}`;
  if (file.error) {
    return {
      id, label: base(file.path), description: `refused: ${clean(file.error.message, 120)}`,
      tooltip: `${clean(file.path)}:${file.error.line}:${file.error.column}\n${clean(file.error.message)}`,
      icon: 'error', color: 'testing.iconFailed', context: 'policy.file',
      location: { path: file.path, line: file.error.line, column: file.error.column },
      command: open(file.path, file.error.line, file.error.column),
    };
  }
  return {
    id, label: base(file.path), description: `${file.rules} rule${file.rules === 1 ? '' : 's'}`, tooltip: file.path,
    icon: 'file-code', context: 'policy.file', location: { path: file.path, line: 1 },
    children: file.programs.map((p) => ({
      id: `${id}:${p.program}`, label: clean(p.program), description: `${p.rules.length}`, icon: 'terminal',
      children: p.rules.map((r) => ({
        id: `${id}:${p.program}:${r.line}:${r.column}`, label: clean(r.pattern, 200),
        description: r.decision + (r.justification ? ` · ${clean(r.justification, 80)}` : ''),
        ...decisionIcon(r.decision), context: 'policy.rule',
        location: { path: file.path, line: r.line, column: r.column },
        command: open(file.path, r.line, r.column),
      })),
    })),
  };
}

function open(path: string, line: number, column = 1): Node['command'] {
  return { command: 'shellgate.openAt', title: 'Open', arguments: [path, line, column] };
}

// ---- Agents ---------------------------------------------------------------------------------

/** One row per agent: whether its CLI is installed, whether ShellGate governs it, and why not. */
export function agentNodes(agents: AgentHook[], reviewer?: string | null): Node[] {
  return agents.map((a) => {
    const governed = a.installed && !a.problem;
    const hook = !a.installed ? 'not governed: no ShellGate hook'
      : a.problem ? `hook broken: ${clean(a.problem, 120)}` : 'governed by ShellGate';
    const state = a.program === null ? `${hook} · not installed here` : hook;
    return {
      id: `agent:${a.id}`, label: clean(a.name), description: state,
      tooltip: [a.installed ? `hook in ${clean(a.file ?? '?')}\n${clean(a.command ?? '')}` : `installing writes ${a.writes.join(', ')}`,
        a.program ? `${clean(a.name)}: ${clean(a.program)}` : a.program === null ? `${clean(a.name)} is not installed on this machine` : '']
        .filter(Boolean).join('\n'),
      icon: governed ? 'pass' : 'warning', color: governed ? 'testing.iconPassed' : 'charts.yellow',
      context: governed ? 'agent.governed' : 'agent.ungoverned',
      // Codex's auto-reviewer answers this agent's questions (for Codex itself, Codex does)
      children: reviewer && governed ? [{ id: `agent:${a.id}:reviewer`, label: `auto-review: ${clean(reviewer)}`, icon: 'eye' }] : undefined,
    };
  });
}

// ---- Markdown -------------------------------------------------------------------------------

/** `[text](file:///path#L12)` links as command links that open the file at that line
 * (`command:shellgate.openAt?["/path",12]`): a webview page can run only that command. */
export function commandLinks(markdown: string): string {
  return markdown.replace(/\]\((file:\/\/[^)\s]+?)(?:#L(\d+))?\)/g, (_m, uri: string, line?: string) => {
    const path = decodeURIComponent(uri.replace(/^file:\/\//, ''));
    const args = encodeURIComponent(JSON.stringify([path, Number(line ?? 1), 1]));
    return `](command:shellgate.openAt?${args})`;
  });
}

/** The Markdown engine leaves a link's target in `data-href` (the preview's script follows it);
 * with no script here, the target goes back into `href`. */
export function linked(html: string): string {
  return html.replace(/<a\b([^>]*)>/g, (tag, attrs: string) => {
    const target = /\sdata-href="([^"]*)"/.exec(attrs)?.[1];
    if (target === undefined) return tag;
    return `<a${attrs.replace(/\shref="[^"]*"/, '').replace(/\sdata-href="[^"]*"/, '')} href="${target}">`;
  });
}


/** The arguments of a `command:shellgate.openAt?…` link clicked in a view ([path, line, column]),
 * or undefined when it is anything else. */
export function openAtArgs(target: unknown): [string, number, number] | undefined {
  if (typeof target !== 'string' || !target.startsWith('command:shellgate.openAt?')) return undefined;
  try {
    const args: unknown = JSON.parse(decodeURIComponent(target.slice('command:shellgate.openAt?'.length)));
    if (!Array.isArray(args) || typeof args[0] !== 'string' || !args[0].startsWith('/')) return undefined;
    const [path, line, column] = args as [string, unknown, unknown];
    return [path, Number.isInteger(line) ? (line as number) : 1, Number.isInteger(column) ? (column as number) : 1];
  } catch {
    return undefined;
  }
}
