// Answers the server's `shellgate/approve` request (rules-schema/approval.schema.json) with a
// modal dialog. A modal stays until it is answered; VS Code's toasts with buttons slide into the
// notification centre after ~15-30 s while the server still waits (tried in code-server).
import * as vscode from 'vscode';
import { join } from './trace';
import { ApproveParams, ApproveResult, button, LadderRung, REFUSALS, renderApproval } from './approvaltext';

export type { ApproveParams } from './approvaltext';

export async function askApproval(p: ApproveParams, log: vscode.LogOutputChannel): Promise<ApproveResult> {
  const { title, detail } = renderApproval(p);
  const refusal = REFUSALS.map((id) => p.choices.find((c) => c.id === id)).find(Boolean);
  // The refusal is the close affordance: Escape or the dialog's X answer "no", never "yes".
  const items = p.choices.map((c) => ({ title: button(c), id: c.id, isCloseAffordance: c === refusal }));
  log.info(`approval ${p.id} asked: ${join(p.command)}`);
  const picked = await vscode.window.showWarningMessage(title, { modal: true, detail }, ...items);
  const choice = picked?.id ?? refusal?.id ?? 'denied';
  log.info(`approval ${p.id} answered: ${choice}`);
  if (choice === 'approved_execpolicy_amendment' && p.ladder && p.ladder.length > 1) {
    const rung = await pickRung(p.ladder);
    log.info(`approval ${p.id}: rule ${p.ladder[rung]?.rule ?? ''}`);
    return { choice, rung };
  }
  // An outside agent is told the person's words with "No, say what instead" (the embedded
  // agent asks for them itself, after its turn ends).
  if (choice === 'abort' && p.agent) {
    const message = await vscode.window.showInputBox({
      title: `ShellGate: tell ${p.agent.name} what to do instead`, ignoreFocusOut: true,
      prompt: 'Sent to the agent with the refusal (Escape: refuse without words)',
    });
    if (message?.trim()) return { choice, message: message.trim() };
  }
  return { choice };
}

// The "don't ask again" ladder: which rule to write. Dismissed: Codex's own proposal (rung 0).
export async function pickRung(ladder: LadderRung[]): Promise<number> {
  const items = ladder.map((r, index) => ({
    label: r.pattern.join(' '),
    description: r.label,
    detail: `would have allowed ${r.allowed} past commands (${r.askedBefore} asked)` +
      (r.admits.length ? ` · also admits ${r.admits.map((a) => a.join(' ')).join(', ')}` : '') +
      ` · ${r.path}`,
    index,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: "Don't ask again for…", placeHolder: 'narrow to broad; the first is Codex\'s own proposal',
    ignoreFocusOut: true,
  });
  return picked?.index ?? 0;
}
