// Answers the server's `shellgate/approve` request (rules-schema/approval.schema.json) with a
// modal dialog. A modal stays until it is answered; VS Code's toasts with buttons slide into the
// notification centre after ~15-30 s while the server still waits (tried in code-server).
import * as vscode from 'vscode';
import { join } from './trace';

export interface ApproveChoice { id: string; label: string; key?: string }

export interface MatchedRule {
  decision: string;
  matchedPrefix: string[];
  justification?: string | null;
  source?: string | null;
  kind?: string;
}

export interface ApproveParams {
  id: string;
  kind?: string;
  title?: string;
  command: string[];
  cwd: string;
  reason?: string | null;
  host?: string | null;
  retryPermission?: string | null;
  matchedRules?: MatchedRule[];
  amendment?: { tokens?: string[]; text: string; path?: string | null; description?: string } | null;
  choices: ApproveChoice[];
  notes?: string[];
  timeoutSeconds?: number | null;
}

export interface ApproveResult { choice: string }

// What Escape (closing the dialog) answers: the first "no" on offer.
const REFUSALS = ['denied', 'abort'];

/** The dialog's text. Everything from the server may carry a model's words: shown literally. */
export function renderApproval(p: ApproveParams): { title: string; detail: string } {
  const lines: string[] = [`$ ${clean(join(p.command), 600)}`, `in ${clean(p.cwd)}`];
  if (p.host) lines.push(`Host: ${clean(p.host)}`);
  if (p.reason) lines.push(`Reason: ${clean(p.reason)}`);
  if (p.retryPermission) lines.push(`The retry would get: ${clean(p.retryPermission)}`);
  const rules = p.matchedRules ?? [];
  lines.push('');
  if (rules.length === 0) lines.push('No rule matched: the approval policy asks.');
  for (const r of rules) {
    const what = r.kind === 'heuristics' ? 'heuristics' : `rule \`${clean(join(r.matchedPrefix))}\``;
    lines.push(`Matched ${what} → ${r.decision}${r.source ? ` (${clean(r.source)})` : ''}` +
      `${r.justification ? `: ${clean(r.justification)}` : ''}`);
  }
  lines.push('', 'Choices:');
  for (const c of p.choices) lines.push(`• ${clean(c.label)}: ${meaning(c, p)}`);
  for (const n of p.notes ?? []) lines.push(`Note: ${clean(n)}`);
  if (p.timeoutSeconds) lines.push('', `Unanswered after ${Math.round(p.timeoutSeconds)} s, it counts as No.`);
  return { title: clean(p.title ?? 'Would you like to run the following command?'), detail: lines.join('\n') };
}

function meaning(c: ApproveChoice, p: ApproveParams): string {
  const [decision, network] = c.id.split(':');
  switch (decision) {
    case 'approved': return 'run it this once.';
    case 'approved_for_session': return p.host
      ? `allow ${clean(p.host)} until the server restarts.`
      : 'run it, and this exact command again without asking until the server restarts.';
    case 'approved_execpolicy_amendment': return p.amendment
      ? `run it, and append to ${clean(p.amendment.path ?? 'default.rules')}: ${clean(p.amendment.text)}`
      : 'run it, and add an allow rule for it.';
    case 'network_policy_amendment': return `${network === 'deny' ? 'block' : 'allow'} ${clean(p.host ?? 'this host')} from now on` +
      `${p.amendment ? `, appending to ${clean(p.amendment.path ?? 'default.rules')}: ${clean(p.amendment.text)}` : ''}.`;
    case 'denied': return 'do not run it (Escape).';
    case 'abort': return 'do not run it, and stop the task.';
    default: return c.id;
  }
}

/** Untrusted text shown literally: control and bidi characters replaced, length bounded. */
export function clean(text: string, max = 2000): string {
  // eslint-disable-next-line no-control-regex
  const printable = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '\uFFFD');
  return printable.length > max ? `${printable.slice(0, max)}…` : printable;
}

export async function askApproval(p: ApproveParams, log: vscode.LogOutputChannel): Promise<ApproveResult> {
  const { title, detail } = renderApproval(p);
  const refusal = REFUSALS.map((id) => p.choices.find((c) => c.id === id)).find(Boolean);
  // The refusal is the close affordance: Escape or the dialog's X answer "no", never "yes".
  const items = p.choices.map((c) => ({ title: clean(c.label, 200), id: c.id, isCloseAffordance: c === refusal }));
  log.info(`approval ${p.id} asked: ${join(p.command)}`);
  const picked = await vscode.window.showWarningMessage(title, { modal: true, detail }, ...items);
  const choice = picked?.id ?? refusal?.id ?? 'denied';
  log.info(`approval ${p.id} answered: ${choice}`);
  return { choice };
}
