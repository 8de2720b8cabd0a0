// Answers the server's `shellgate/approve` request with a modal dialog. A modal stays until it is
// answered; VS Code's toasts with buttons slide into the notification centre after ~15-30 s
// while the server still waits (tried in code-server), so they are no place for approvals.
import * as vscode from 'vscode';

export interface ApproveChoice {
  id: string;
  label: string;
  description?: string;
}

export interface MatchedRule {
  decision?: string;
  pattern?: string[] | string;
  matchedPrefix?: string[];
  justification?: string;
  source?: string;
  kind?: string;
}

export interface ApproveParams {
  id?: string;
  command: string | string[];
  cwd?: string;
  reason?: string;
  matchedRules?: MatchedRule[];
  amendment?: { description?: string; path?: string; text?: string; line?: string } | null;
  choices: ApproveChoice[];
  timeoutSeconds?: number;
}

export interface ApproveResult { choice: string }

const DENY_IDS = ['denied', 'deny', 'abort'];

/** What the dialog says: one title line and a detail block (plain text: VS Code shows it as is). */
export function renderApproval(p: ApproveParams): { title: string; detail: string } {
  const command = Array.isArray(p.command) ? p.command.join(' ') : p.command;
  const lines: string[] = [];
  if (p.cwd) lines.push(`Working directory: ${clean(p.cwd)}`);
  if (p.reason) lines.push(`Reason: ${clean(p.reason)}`);
  const rules = p.matchedRules ?? [];
  if (rules.length > 0) {
    lines.push('', 'Rules that matched:');
    for (const r of rules) lines.push(`  • ${describeRule(r)}`);
  } else {
    lines.push('', 'No rule matched: the approval policy decides.');
  }
  lines.push('', 'Choices:');
  for (const c of p.choices) lines.push(`  • ${clean(c.label)}${c.description ? `: ${clean(c.description)}` : ''}`);
  if (p.amendment && (p.amendment.text || p.amendment.line || p.amendment.description)) {
    const a = p.amendment;
    lines.push('', `The "don't ask again" choice appends${a.path ? ` to ${clean(a.path)}` : ''}:`);
    lines.push(`  ${clean(a.text ?? a.line ?? a.description ?? '')}`);
  }
  if (p.timeoutSeconds) lines.push('', `Unanswered after ${p.timeoutSeconds} s, it counts as denied.`);
  return { title: `ShellGate: run this command?\n${clean(command, 400)}`, detail: lines.join('\n') };
}

function describeRule(r: MatchedRule): string {
  const pattern = Array.isArray(r.pattern) ? JSON.stringify(r.pattern) : r.pattern;
  const prefix = r.matchedPrefix ? JSON.stringify(r.matchedPrefix) : undefined;
  const parts = [r.decision ?? '?', pattern ?? prefix ?? r.kind ?? 'rule'];
  if (r.source) parts.push(`(${clean(r.source)})`);
  if (r.justification) parts.push(`: ${clean(r.justification)}`);
  return parts.join(' ');
}

/** Untrusted text (a model's justification, a command) shown literally: no control characters. */
export function clean(text: string, max = 2000): string {
  // eslint-disable-next-line no-control-regex
  const printable = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '\uFFFD');
  return printable.length > max ? `${printable.slice(0, max)}…` : printable;
}

export async function askApproval(p: ApproveParams, log: vscode.LogOutputChannel): Promise<ApproveResult> {
  const { title, detail } = renderApproval(p);
  const deny = p.choices.find((c) => DENY_IDS.includes(c.id)) ?? p.choices[p.choices.length - 1];
  // The deny choice is the close affordance: Escape (or closing the dialog) means "no".
  const items = p.choices.map((c) => ({ title: c.label, id: c.id, isCloseAffordance: c === deny }));
  log.info(`approval asked: ${JSON.stringify(p)}`);
  const picked = await vscode.window.showWarningMessage(title, { modal: true, detail }, ...items);
  const choice = picked?.id ?? deny?.id ?? 'denied';
  log.info(`approval answered: ${choice}`);
  return { choice };
}
