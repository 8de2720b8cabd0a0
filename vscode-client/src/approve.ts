// Answers the server's `shellgate/approve` request (rules-schema/approval.schema.json) with a
// modal dialog. A modal stays until it is answered; VS Code's toasts with buttons slide into the
// notification centre after ~15-30 s while the server still waits (tried in code-server).
import * as vscode from 'vscode';
import { join } from './trace';
import { ApproveParams, ApproveResult, button, REFUSALS, renderApproval } from './approvaltext';

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
