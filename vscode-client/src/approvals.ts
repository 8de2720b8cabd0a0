// "ShellGate: Show Approvals": what outside agents asked, what the rules said and what you
// answered (the server's `shellgate/approvals`), as text. Pure: unit-tested without VS Code.
import { clean } from './approvaltext';
import { join } from './trace';

export interface ApprovalEntry {
  id: string;
  agent: string;
  agentName: string;
  sessionId?: string | null;
  command: string[];
  cwd: string;
  state: string; // deciding | waiting | asking | answered | gone | failed | reviewed
  decision?: string | null;
  reason?: string | null;
  answer?: string | null;
  message?: string | null;
  amendmentWritten?: string | null;
  askedAt: number;
  answeredAt?: number | null;
  /** Codex's auto-reviewer answered instead of a person (state `reviewed`). */
  review?: { outcome?: string | null; riskLevel?: string | null; userAuthorization?: string | null;
    rationale?: string | null; model?: string | null; told?: string | null } | null;
}

export interface ApprovalHistory { waiting: number; showing: number; entries: ApprovalEntry[] }

export function renderApprovals(h: ApprovalHistory): string {
  const lines = [`ShellGate approvals: ${h.entries.length} asked, ${h.waiting} waiting, ${h.showing} on screen`, ''];
  if (!h.entries.length) lines.push('No outside agent has asked yet (hooks: `shellgate hook install …`).');
  for (const e of [...h.entries].reverse()) {
    const when = new Date(e.askedAt * 1000).toISOString().replace('T', ' ').slice(0, 19);
    const took = e.answeredAt ? ` after ${(e.answeredAt - e.askedAt).toFixed(1)} s` : '';
    lines.push(`${when}  ${clean(e.agentName)}${e.sessionId ? ` (session ${clean(e.sessionId)})` : ''}`);
    lines.push(`  $ ${clean(join(e.command), 600)}`);
    lines.push(`  in ${clean(e.cwd)}`);
    lines.push(`  rules: ${clean(e.decision ?? 'not decided yet')}${e.reason ? `: ${clean(e.reason)}` : ''}`);
    const r = e.review;
    if (r) {
      const verdict = r.outcome ? `${clean(r.outcome)} (risk: ${clean(r.riskLevel ?? 'not given')}, authorization: ${clean(r.userAuthorization ?? 'not given')})` : 'the review failed: refused';
      lines.push(`  reviewer (${clean(r.model ?? 'auto-review')}): ${verdict}${r.rationale ? `: ${clean(r.rationale)}` : ''}`);
      if (r.told && r.outcome !== 'allow') lines.push(`  the agent read: ${clean(r.told)}`);
    } else {
      lines.push(`  answer: ${e.answer ? clean(e.answer) : e.state}${took}${e.message ? `: ${clean(e.message)}` : ''}`);
    }
    if (e.amendmentWritten) lines.push(`  wrote: ${clean(e.amendmentWritten)}`);
    lines.push('');
  }
  return lines.join('\n');
}
